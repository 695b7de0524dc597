"""Apply: one item of advice made into what a person does next.

A change to what was submitted (``{"object": I, "patch": [...]}``) becomes the what-if
form holding the submitted manifest with the RFC 6902 patch applied to its I-th object,
ready to run again. Nodes to add and objects to create are changes to the cluster, which
the form does not take (it takes pods and workloads): those become the words and the
YAML to apply, and the advice that the snapshot be taken again once they are in.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from django.http import Http404

from advice.models import Advice
from scheduling.engine.advice import AddNodes, AdviceItem, CreateObjects, ObjectPatch, patch
from scheduling.models import Analysis
from scheduling.services import analysis_manifest


class PatchError(ValueError):
    """A JSON Patch that does not apply to the object (a path is missing)."""


def json_patch(document: Any, ops: Sequence[Mapping[str, Any]]) -> Any:
    """``document`` with the RFC 6902 ``ops`` applied (the engine's own applier: what the
    form gets is what the engine proved), PatchError where they do not apply."""
    try:
        return patch.apply(document, ops)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise PatchError(f"{type(e).__name__}: {e}") from None


def patched_analysis(analysis: Analysis, change: ObjectPatch) -> Analysis:
    """An unsaved copy of the analysis as if it had been submitted with the change."""
    changed = copy.copy(analysis)
    if analysis.is_workload:
        objects = list(analysis.pod["objects"])
        if not 0 <= change.object < len(objects):
            raise PatchError(f"the what-if has no object {change.object}")
        objects[change.object] = json_patch(objects[change.object], change.patch)
        changed.pod = {**analysis.pod, "objects": objects}
    else:
        if change.object != 0:
            raise PatchError(f"the what-if has no object {change.object}")
        changed.pod = json_patch(analysis.pod, change.patch)
    return changed


def advice_manifest(*, analysis: Analysis, item: str) -> str:
    """The manifest the what-if form starts from for item ``item`` (its place in the
    stored advice, as the Apply link gives it): what was submitted with the change made.
    Http404 where the analysis has no such item, or its change is not to what was
    submitted (nodes, objects to create: the Apply page says what to do instead)."""
    row = Advice.objects.filter(analysis=analysis).first()
    advice = row.advice if row is not None else None
    try:
        chosen = advice.items[int(item)] if advice is not None and int(item) >= 0 else None
    except (ValueError, IndexError):
        chosen = None
    if chosen is None or not isinstance(chosen.change, ObjectPatch):
        raise Http404("No such advice.")
    try:
        return analysis_manifest(analysis=patched_analysis(analysis, chosen.change))
    except PatchError as e:
        raise Http404(f"The change does not apply to what was submitted: {e}") from None


@dataclass(frozen=True)
class ClusterChange:
    """A change to the cluster, in words and as YAML to apply (empty for nodes)."""

    heading: str
    steps: tuple[str, ...]
    manifest: str = ""


def cluster_change(item: AdviceItem) -> ClusterChange | None:
    """What to do for a change the what-if form cannot carry; None for a patch."""
    change = item.change
    again = (
        "The what-if form takes pods and workloads, not changes to the cluster: once this "
        "is done, take a new snapshot and run the same what-if on it (Again, elsewhere: "
        "“Run the same what-if on another snapshot”)."
    )
    if isinstance(change, AddNodes):
        n = change.add_nodes
        return ClusterChange(
            heading=f"Add {n} node{'s' if n != 1 else ''} like {change.like}",
            steps=(
                f"Add {n} node{'s' if n != 1 else ''} with the same allocatable resources, "
                f"labels and taints as {change.like} (the same instance type, machine set "
                "or node pool).",
                again,
            ),
        )
    if isinstance(change, CreateObjects):
        names = [
            f"{o.get('kind', 'object')} {(o.get('metadata') or {}).get('namespace', 'default')}/"
            f"{(o.get('metadata') or {}).get('name', '')}"
            for o in change.create
        ]
        return ClusterChange(
            heading="Create " + ", ".join(names),
            steps=("Apply this with kubectl apply -f (it changes no pod).", again),
            manifest=yaml.safe_dump_all([dict(o) for o in change.create], sort_keys=False),
        )
    return None
