"""Writes for the take-nodes-away what-if: queue it, run it on a worker, store the answer.

Nodes drained (as ``kubectl drain`` does: cordon, evictions through the PDB rules,
DaemonSet and mirror pods stay, bare pods only with force) or lost: the engine
(scheduling/engine/take_nodes_away/) decides where every evicted pod returns and whom
it preempts; this module checks the question before anything is stored, keeps it in
the row (``pod``: the request's to_dict) and the answer beside it (``simulation``).
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from clusters.models import Snapshot
from scheduling.analyses.submission import PodRejected, SnapshotNotReady, priority_classes_check
from scheduling.constants import AnalysisKind, AnalysisSource
from scheduling.engine import Cluster, InvalidInput
from scheduling.engine.simulate import default_cycle_limit
from scheduling.engine.take_nodes_away import NodesTakenAway, TakeNodesAway, take_nodes_away
from scheduling.engine.take_nodes_away.selection import select_nodes
from scheduling.models import Analysis, nodes_away_to_json
from scheduling.running.budgets import AnalysisBudget, OutOfTime, result_too_large
from scheduling.scheduler_config import SchedulerChoice
from scheduling.services.common import Progress, analysis_done, analysis_fail, analysis_queue

# The request's fields, as the API takes them: an engine error on "add_nodes.like" is
# answered under "add_nodes", the field the body gave.
REQUEST_FIELDS = ("nodes", "selector", "zone", "how", "force", "max_unavailable", "add_nodes")


def request_read(body: Any) -> TakeNodesAway:
    """The engine's request from a body of the API's shape (the form builds the same);
    PodRejected naming the body's field at fault."""
    if not isinstance(body, dict):
        raise PodRejected("Must be a JSON object.", field="non_field_errors")
    try:
        return TakeNodesAway.from_dict({k: v for k, v in body.items() if k in REQUEST_FIELDS})
    except InvalidInput as e:
        raise PodRejected(e.message, field=field_of(e.field)) from None


def field_of(engine_field: str | None) -> str:
    """The body's field an engine error names ("add_nodes.like" is under add_nodes)."""
    if not engine_field:
        return "non_field_errors"
    head = engine_field.split(".", 1)[0].split("[", 1)[0]
    return head if head in REQUEST_FIELDS else "non_field_errors"


def nodes_check(*, snapshot: Snapshot, request: TakeNodesAway) -> None:
    """The nodes named (taken away, or copied by add_nodes) are the snapshot's: a typo
    is refused under its field before a worker runs a question about no node."""
    asked = request.to_dict()
    named = [("nodes", n) for n in asked.get("nodes") or []]
    like = (asked.get("add_nodes") or {}).get("like")
    if like:
        named.append(("add_nodes", like))
    if asked.get("selector") or asked.get("zone"):
        _group_check(snapshot, selector=asked.get("selector") or "", zone=asked.get("zone") or "")
    if not named:
        return
    known = set(
        snapshot.nodes.filter(name__in=[n for _, n in named]).values_list("name", flat=True)
    )
    for field, name in named:
        if name not in known:
            raise PodRejected(
                f"The snapshot has no node named {name!r}.",
                field=field,
            )


def _group_check(snapshot: Snapshot, *, selector: str, zone: str) -> None:
    """A pool's selector or a zone that holds none of the snapshot's nodes is refused
    under its field, in the engine's words for it (it reads the same labels)."""
    from scheduling.engine.labels import parse_selector_text
    from scheduling.engine.take_nodes_away.selection import ZONE_LABEL

    labels = snapshot.nodes.values_list("labels", flat=True)
    if selector:
        wanted = parse_selector_text(selector)
        if not any(wanted.matches(ls or {}) for ls in labels.iterator(chunk_size=2000)):
            raise PodRejected(
                f"{selector!r} matches no node of the snapshot: check the labels",
                field="selector",
            )
        return
    zones = {str((ls or {}).get(ZONE_LABEL)) for ls in labels if (ls or {}).get(ZONE_LABEL)}
    if zone not in zones:
        known = ", ".join(sorted(zones)[:5]) or "none (no node has the label)"
        raise PodRejected(
            f"No node is in zone {zone!r} ({ZONE_LABEL}); the snapshot's zones: {known}.",
            field="zone",
        )


def describe(request: TakeNodesAway) -> str:
    """The lists' name of the question: "drain node-1, node-2", "lose zone us-east-1a"."""
    asked = request.to_dict()
    verb = "lose" if asked.get("how") == "lost" else "drain"
    if asked.get("nodes"):
        names = list(asked["nodes"])
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        what = f"{verb} {shown}"
    elif asked.get("selector"):
        what = f"{verb} nodes {asked['selector']}"
    else:
        what = f"{verb} zone {asked.get('zone')}"
    if asked.get("force"):
        what += " (force)"
    add = asked.get("add_nodes") or {}
    if add.get("count"):
        what += f", {add['count']} added like {add.get('like')}"
    return what


def analysis_create_take_nodes_away(
    *,
    snapshot: Snapshot,
    body: Any,
    source: str = AnalysisSource.API,
    priority_classes: list[dict[str, Any]] | None = None,
    scheduler: SchedulerChoice | None = None,
    requested_by: Any = None,
) -> Analysis:
    """A queued "what if these nodes go away?": ``body`` as the API takes it (nodes,
    selector or zone; how, force, max_unavailable, add_nodes). Bad input is refused
    (PodRejected naming the field) before anything is stored."""
    if not snapshot.is_ready:
        raise SnapshotNotReady(snapshot)
    request = request_read(body)
    nodes_check(snapshot=snapshot, request=request)
    classes = priority_classes_check(
        snapshot=snapshot, classes=priority_classes or [], field="priority_classes"
    )
    return analysis_queue(
        snapshot=snapshot,
        kind=AnalysisKind.TAKE_NODES_AWAY,
        pod=request.to_dict(),
        pod_key=describe(request)[:507],
        source=source,
        priority_classes=classes,
        scheduler=scheduler,
        requested_by=requested_by,
    )


def take_nodes_away_compute(
    *,
    cluster: Cluster,
    asked: dict[str, Any],
    priority_classes: list[dict[str, Any]],
    budget: AnalysisBudget,
    on_cycle: Any,
    scheduler: SchedulerChoice,
) -> NodesTakenAway:
    """The answer of the question as stored by analysis_create_take_nodes_away, under the
    analysis' scheduler configuration, within the analysis budget's cycles."""
    request = TakeNodesAway.from_dict(asked)
    return take_nodes_away(
        cluster,
        request,
        scheduler_config=scheduler.effective,
        priority_classes=priority_classes,
        cycle_limit=budget.cycle_limit(default_cycle_limit(_taken_pods(cluster, request))),
        on_cycle=on_cycle,
    )


def _taken_pods(cluster: Cluster, request: TakeNodesAway) -> int:
    """The pods on the nodes taken: the engine's own cycle limit counts them, and the
    analysis budget caps that limit (as a workload's run is capped)."""
    infos = cluster.node_info_by_name
    return sum(len(infos[n].pods) for n in select_nodes(cluster, request) if n in infos)


def take_nodes_away_store(
    analysis: Analysis, cluster: Cluster, *, cached: bool, t0: float, t1: float
) -> Analysis:
    """Runs the analysis (the worker's side of dispatch.analysis_run) and stores it."""
    budget = AnalysisBudget.from_settings()
    try:
        answer = take_nodes_away_compute(
            cluster=cluster,
            asked=analysis.pod,
            priority_classes=analysis.priority_classes,
            budget=budget,
            on_cycle=budget.watch(Progress(analysis.pk)),
            scheduler=analysis.scheduler,
        )
    except InvalidInput as e:
        return analysis_fail(analysis_id=analysis.pk, error=f"The question is invalid: {e}")
    except OutOfTime as e:
        return analysis_fail(analysis_id=analysis.pk, error=e.message)
    t2 = time.perf_counter()
    result = answer.to_dict()
    stored = nodes_away_to_json(result)
    too_large = result_too_large(len(orjson.dumps(stored)), budget)
    if too_large:
        return analysis_fail(analysis_id=analysis.pk, error=too_large)
    return analysis_done(
        analysis,
        load_seconds=0.0 if cached else t1 - t0,
        engine_seconds=t2 - t1,
        outcome=answer.verdict,
        summary=answer.sentence[:500],
        simulation=stored,
        progress_cycle=_cycles(result),
    )


def _cycles(result: dict[str, Any]) -> int:
    """The scheduling cycles the run took, when the answer says (0 otherwise)."""
    cycles = result.get("cycles")
    if isinstance(cycles, int):
        return cycles
    return len(cycles) if isinstance(cycles, list) else 0


def analysis_rerun_take_nodes_away(
    *, analysis: Analysis, snapshot: Snapshot, own: SchedulerChoice | None, requested_by: Any
) -> Analysis:
    """The same question on another snapshot (its nodes must be there)."""
    return analysis_create_take_nodes_away(
        snapshot=snapshot,
        body=analysis.pod,
        source=analysis.source,
        priority_classes=analysis.priority_classes,
        scheduler=own,
        requested_by=requested_by,
    )
