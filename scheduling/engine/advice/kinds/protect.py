"""protect: for each app that loses pods, the PodDisruptionBudget that would make
kube-scheduler choose other victims, and which; or that no budget would.

An app is the victims of one controller (a bare pod is its own); the budget selects
them by the labels they all carry that the controller did not add (pod-template-hash
and the like). Its
``maxUnavailable`` is one less than the app's victims: the loosest budget this eviction
exceeds (a budget created now, its pods all healthy, allows exactly that). The
scheduler then prefers a candidate whose victims violate fewer budgets; when every
candidate violates one it evicts anyway (PodDisruptionBudgets are best effort in
preemption), and that is said instead. One step less is the budget allowing one
disruption more, which the eviction does not exceed. No budget is proposed for an app
the cluster's operators own (plan/owned.py: OpenShift's platform namespaces, an
operator's labels or custom resource): a note says why instead.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from ...objects import Pod
from ...plan.owned import pod_marks
from ..question import Asked, Run
from ..result import AdviceKind, CreateObjects, Note
from ..search import KindBudget
from .common import KindAdvice, Searching, step_less, try_run

# The labels controllers add to the pods they make (never the app's own).
CONTROLLER_LABELS = frozenset(
    {
        "pod-template-hash",
        "controller-revision-hash",
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
        "batch.kubernetes.io/controller-uid",
        "batch.kubernetes.io/job-name",
        "controller-uid",
        "job-name",
        "batch.kubernetes.io/job-completion-index",
    }
)
NAME_LABELS = ("app.kubernetes.io/name", "app", "k8s-app", "name")


def app_of(pod: Pod) -> tuple[str, str]:
    """(namespace, owner) of a victim: its controller, else its own name."""
    return pod.namespace, pod.owner or f"Pod/{pod.name}"


def selecting_labels(victims: list[Pod]) -> dict[str, str]:
    """The labels every victim of the app carries that its controller did not add."""
    common = {k: v for k, v in victims[0].labels.items() if k not in CONTROLLER_LABELS}
    for v in victims[1:]:
        common = {k: x for k, x in common.items() if v.labels.get(k) == x}
    return dict(sorted(common.items()))


def budget_name(labels: dict[str, str], victims: list[Pod]) -> str:
    base = next((labels[k] for k in NAME_LABELS if k in labels), None)
    if base is None:
        owner = victims[0].owner
        base = owner.split("/", 1)[1] if owner else victims[0].name
    name = re.sub(r"[^a-z0-9-]", "-", f"{base}-protect".lower()).strip("-")
    return name[:63].rstrip("-")


def budget(
    namespace: str, labels: dict[str, str], victims: list[Pod], allowed: int
) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": budget_name(labels, victims), "namespace": namespace},
        "spec": {"maxUnavailable": allowed, "selector": {"matchLabels": labels}},
    }


def search(asked: Asked, base: Run, budget_: KindBudget) -> KindAdvice:
    with Searching(AdviceKind.PROTECT, budget_) as s:
        wanted = set(base.answer.victims)
        if not wanted:
            return s.found
        apps: dict[tuple[str, str], list[Pod]] = defaultdict(list)
        pods = {p.key: p for p in asked.cluster.pods}
        for key in wanted:
            if key in pods:
                apps[app_of(pods[key])].append(pods[key])
        # The apps that lose most first: the runs' bound may stop the search before the last.
        for (namespace, owner), victims in sorted(apps.items(), key=lambda a: (-len(a[1]), a[0])):
            labels = selecting_labels(victims)
            kind, _, name = owner.partition("/")
            app = f"{kind} {namespace}/{name}"
            marks = pod_marks(victims[0])
            if marks:
                # An operator's app: a budget there blocks node drains and upgrades, the
                # operator may remove it, and it only moves the eviction to another pod.
                s.found.notes.append(
                    Note(
                        AdviceKind.PROTECT,
                        f"no budget proposed for {app}: it is owned by the cluster's "
                        f"operators ({'; '.join(marks)}); a PodDisruptionBudget there would "
                        "block node drains and upgrades and only move the eviction to "
                        "another pod",
                    )
                )
                continue
            if not labels:
                s.found.notes.append(
                    Note(
                        AdviceKind.PROTECT, f"{app}: its pods carry no labels a budget could select"
                    )
                )
                continue
            s.mark()
            change = CreateObjects((budget(namespace, labels, victims, len(victims) - 1),))
            run = try_run(asked, change, budget_)
            if run is None:
                continue
            if any(
                (p := pods.get(v)) is not None
                and p.namespace == namespace
                and labels.items() <= p.labels.items()
                for v in run.answer.victims
            ):
                # A pod the budget selects is still evicted.
                s.found.notes.append(
                    Note(
                        AdviceKind.PROTECT,
                        f"no budget would protect {app}: every candidate node violates "
                        "one, and kube-scheduler's preemption treats budgets as best "
                        "effort (it evicts its pods anyway)",
                    )
                )
                continue
            looser = CreateObjects((budget(namespace, labels, victims, len(victims)),))
            less = step_less(looser, try_run(asked, looser, budget_))
            others = run.answer.victims
            s.add(
                change,
                run,
                less=less,
                summary=f"create a PodDisruptionBudget for {app} (maxUnavailable "
                f"{len(victims) - 1})",
                detail=(
                    f"kube-scheduler then evicts {', '.join(others)} instead"
                    if others
                    else "kube-scheduler then evicts no one"
                ),
            )
    return s.found
