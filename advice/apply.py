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
from scheduling.engine.advice import AddNodes, AdviceItem, CreateObjects, ObjectPatch
from scheduling.models import Analysis
from scheduling.services import analysis_manifest


class PatchError(ValueError):
    """A JSON Patch that does not apply to the object (its path is missing, a test fails)."""


def _tokens(pointer: str) -> list[str]:
    """RFC 6901: "/a/b~1c" -> ["a", "b/c"]."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"{pointer!r} is not a JSON pointer")
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _index(container: list[Any], token: str, *, adding: bool) -> int:
    if adding and token == "-":
        return len(container)
    if not token.isdigit():
        raise PatchError(f"{token!r} is not an array index")
    i = int(token)
    if i > len(container) or (i == len(container) and not adding):
        raise PatchError(f"index {i} is out of range")
    return i


def _parent(doc: Any, pointer: str) -> tuple[Any, str]:
    tokens = _tokens(pointer)
    if not tokens:
        raise PatchError("the whole document cannot be the target")
    node = doc
    for t in tokens[:-1]:
        if isinstance(node, list):
            node = node[_index(node, t, adding=False)]
        elif isinstance(node, dict) and t in node:
            node = node[t]
        else:
            raise PatchError(f"{pointer}: {t!r} is missing")
    return node, tokens[-1]


def _get(doc: Any, pointer: str) -> Any:
    node = doc
    for t in _tokens(pointer):
        if isinstance(node, list):
            node = node[_index(node, t, adding=False)]
        elif isinstance(node, dict) and t in node:
            node = node[t]
        else:
            raise PatchError(f"{pointer}: {t!r} is missing")
    return node


def _add(doc: Any, pointer: str, value: Any) -> None:
    parent, last = _parent(doc, pointer)
    if isinstance(parent, list):
        parent.insert(_index(parent, last, adding=True), value)
    elif isinstance(parent, dict):
        parent[last] = value
    else:
        raise PatchError(f"{pointer}: the parent is not an object or an array")


def _remove(doc: Any, pointer: str) -> Any:
    parent, last = _parent(doc, pointer)
    if isinstance(parent, list):
        return parent.pop(_index(parent, last, adding=False))
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    raise PatchError(f"{pointer} is missing")


def json_patch(document: Any, patch: Sequence[Mapping[str, Any]]) -> Any:
    """``document`` with the RFC 6902 ``patch`` applied (a copy; the document is kept)."""
    doc = copy.deepcopy(document)
    for op in patch:
        name, path = op.get("op"), str(op.get("path", ""))
        if name == "add":
            _add(doc, path, copy.deepcopy(op["value"]))
        elif name == "remove":
            _remove(doc, path)
        elif name == "replace":
            _remove(doc, path)
            _add(doc, path, copy.deepcopy(op["value"]))
        elif name == "move":
            _add(doc, path, _remove(doc, str(op["from"])))
        elif name == "copy":
            _add(doc, path, copy.deepcopy(_get(doc, str(op["from"]))))
        elif name == "test":
            if _get(doc, path) != op["value"]:
                raise PatchError(f"test failed at {path}")
        else:
            raise PatchError(f"unknown operation {name!r}")
    return doc


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
