"""Rules about PodDisruptionBudgets: who lacks one, and budgets that cannot work."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from ...objects import PDB
from ...words import NAMES_IN_A_SENTENCE, join_names, plural
from ..apps import app_name, common_labels, pdb_ref, selector_text
from ..context import AuditContext
from ..finding import Draft
from ..fixes import pod_disruption_budget, snippet
from ..index import App, counted_selector

# PDBs guard what drains evict; a DaemonSet's pods are not drained and rarely budgeted.
_UNBUDGETED_KINDS = ("DaemonSet",)


def _budget_for(app: App) -> str:
    namespace, name = app_name(app.ref)
    labels = common_labels(app.pods)
    if not labels:
        return (
            f"# The pods of {app.ref} share no label a selector could pick:\n"
            "# add one to the pod template, then budget it with maxUnavailable: 1.\n"
        )
    return snippet(
        pod_disruption_budget(namespace, f"{name}-pdb", {"matchLabels": labels}),
        comment=f"At most one pod of {app.ref} disrupted at a time.",
    )


def critical_app_without_pdb(ctx: AuditContext) -> Iterator[Draft]:
    if not ctx.critical:
        return
    critical = ctx.critical
    for ref in sorted(ctx.index.apps):
        app = ctx.index.apps[ref]
        if app.kind in _UNBUDGETED_KINDS or app.covered_pods:
            continue
        classes = sorted({p.priority_class_name or "" for p in app.pods} & critical)
        if not classes:
            continue
        yield Draft(
            f"{ref} ({plural(len(app.pods), 'pod')}, PriorityClass {join_names(classes, limit=NAMES_IN_A_SENTENCE)}) has no "
            "PodDisruptionBudget",
            (ref,),
            _budget_for(app),
        )


def _int_or_percent(raw: Any, total: int) -> int | None:
    """intstr.GetScaledValueFromIntOrPercent, rounding up as the disruption controller
    does; None for a value it would refuse."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str):
        text = raw.strip()
        try:
            if text.endswith("%"):
                return math.ceil(int(text[:-1]) * total / 100)
            return int(text)
        except ValueError:
            return None
    return None


def _never_allows(pdb: PDB, pods: int) -> str | None:
    """The spec field that keeps the budget at 0 allowed disruptions whatever happens."""
    if pdb.max_unavailable is not None:
        n = _int_or_percent(pdb.max_unavailable, pods)
        return f"maxUnavailable {pdb.max_unavailable}" if n == 0 else None
    if pdb.min_available is not None:
        n = _int_or_percent(pdb.min_available, pods)
        return f"minAvailable {pdb.min_available}" if n is not None and n >= pods else None
    return None


def _matched(ctx: AuditContext, i: int) -> int:
    """Pods the budget covers: as kube-scheduler matches it, or for an empty selector
    every pod of its namespace, as the disruption controller and eviction count them."""
    pdb = ctx.index.cluster.pdbs[i]
    if pdb.label_selector.empty:
        return ctx.index.namespace_pods.get(pdb.namespace, 0)
    return ctx.index.pdb_pod_counts[i]


def pdb_never_allows(ctx: AuditContext) -> Iterator[Draft]:
    for i, pdb in enumerate(ctx.index.cluster.pdbs):
        if pdb.label_selector.nothing:
            continue
        pods = _matched(ctx, i)
        if not pods:
            continue
        why = _never_allows(pdb, pods)
        if why is None:
            continue
        yield Draft(
            f"{pdb_ref(pdb.namespace, pdb.name)} ({why}) covers {plural(pods, 'pod')}: "
            "it can never allow a disruption",
            (pdb_ref(pdb.namespace, pdb.name),),
            snippet(
                pod_disruption_budget(pdb.namespace, pdb.name, pdb.selector or {}),
                comment="Allow one pod at a time to go, so drains and preemption can proceed.",
            ),
        )


def pdb_matches_nothing(ctx: AuditContext) -> Iterator[Draft]:
    for i, pdb in enumerate(ctx.index.cluster.pdbs):
        ref = pdb_ref(pdb.namespace, pdb.name)
        if pdb.label_selector.nothing:
            what = "has no selector"
        elif counted_selector(pdb) and not ctx.index.pdb_pod_counts[i]:
            what = f"selects {selector_text(pdb.label_selector)}"
        else:
            continue
        yield Draft(
            f"{ref} {what} and matches no pod of namespace {pdb.namespace}",
            (ref,),
            f"# Point spec.selector at the app's pod labels\n"
            f"# (kubectl -n {pdb.namespace} get pods --show-labels), or delete it:\n"
            f"# kubectl -n {pdb.namespace} delete pdb {pdb.name}\n",
        )


def pdb_empty_selector(ctx: AuditContext) -> Iterator[Draft]:
    index = ctx.index
    empty = [pdb for pdb in index.cluster.pdbs if pdb.label_selector.empty]
    if not empty:
        return
    by_namespace: dict[str, list[App]] = defaultdict(list)
    for ref in sorted(index.apps):
        app = index.apps[ref]
        if app.kind not in _UNBUDGETED_KINDS:
            by_namespace[app.namespace].append(app)
    for pdb in empty:
        ref = pdb_ref(pdb.namespace, pdb.name)
        apps = by_namespace.get(pdb.namespace, [])
        pods = index.namespace_pods.get(pdb.namespace, 0)
        budgets = [
            pod_disruption_budget(
                pdb.namespace, f"{app_name(a.ref)[1]}-pdb", {"matchLabels": common_labels(a.pods)}
            )
            for a in apps[:5]
            if common_labels(a.pods)
        ]
        comment = "kube-scheduler v1.35 preemption skips an empty selector: one budget per app." + (
            f"\n{len(apps) - 5:,} more apps need one too." if len(apps) > 5 else ""
        )
        yield Draft(
            f"{ref} has an empty selector: eviction counts all {plural(pods, 'pod')} of "
            f"namespace {pdb.namespace} against it, but kube-scheduler v1.35's preemption "
            "ignores it",
            (ref,),
            snippet(*budgets, comment=comment) if budgets else f"# {comment}\n",
        )
