"""Reading a stored explanation, whichever shape it was stored in.

Schema 2 is the engine's ``Explanation`` as ``to_json`` gives it. Analyses stored
before it kept three columns: the contract (``result``), the engine's extras
(``details``) and the facts drawn from the snapshot (``node_view``); migration
0002 moved them as they were into the one column, under those three keys and
without a schema version (schema 1). ``explanation_from_legacy`` reads them into
the same typed object, so every page shows an old analysis as it shows a new one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scheduling.engine import (
    SCHEMA_VERSION,
    CandidateRecord,
    Criterion,
    Explanation,
    HostSelection,
    NodeResources,
    NodeScores,
    NodeVerdict,
    Outcome,
    PDBState,
    PreemptionSampling,
    Scores,
    StatusRecord,
    VictimDetail,
    cannot_help,
    requested_after,
)
from scheduling.engine.plugins.registry import DEFAULT_PROFILE

LEGACY_SCHEMA_VERSION = 1


def explanation_load(data: Mapping[str, Any] | None) -> Explanation | None:
    """The typed explanation of a stored column (None for an analysis without one)."""
    if not data:
        return None
    version = data.get("schema_version", LEGACY_SCHEMA_VERSION)
    if version == LEGACY_SCHEMA_VERSION:
        result = data.get("result")
        if not result:
            return None
        return explanation_from_legacy(result, data.get("details") or {}, data.get("node_view"))
    return Explanation.from_json(data)


def _ints(value: Any) -> dict[str, int]:
    return {str(k): int(v) for k, v in (value or {}).items()}


def _status(value: Any) -> StatusRecord | None:
    if not isinstance(value, Mapping):
        return None
    return StatusRecord(
        code=str(value.get("code") or ""),
        plugin=value.get("plugin") or None,
        reasons=[str(r) for r in value.get("reasons") or []],
    )


def _criterion(value: Any) -> Criterion | None:
    return Criterion(value) if value else None


def explanation_from_legacy(
    result: Mapping[str, Any], details: Mapping[str, Any], node_view: Mapping[str, Any] | None
) -> Explanation:
    outcome = Outcome(result["outcome"])
    eligible = bool(result.get("eligible", True))
    ineligible_reason = result.get("ineligible_reason")
    statuses = details.get("node_statuses") or {}
    rejected = []
    for r in result.get("rejected_nodes") or []:
        st = statuses.get(r["node"]) or {}
        reasons = [str(x) for x in r.get("reasons") or []]
        filt = _status(st.get("filter")) or StatusRecord(code="", reasons=reasons)
        pre = _status(st.get("preemption"))
        can_help = bool(r.get("preemption_can_help"))
        rejected.append(
            NodeVerdict(
                node=r["node"],
                filter=filt,
                preemption=pre,
                preemption_can_help=can_help,
                cannot_help=cannot_help(
                    outcome=outcome,
                    eligible=eligible,
                    ineligible_reason=ineligible_reason,
                    can_help=can_help,
                    filter_code=filt.code,
                    preemption=pre,
                ),
            )
        )
    scores = None
    by_node = details.get("scores") or {}
    if by_node:
        totals = details.get("totals") or {}
        # A JSON column keeps no key order: the plugins go in the profile's order.
        names = {p for per in by_node.values() for p in per}
        order = {name: i for i, name in enumerate(DEFAULT_PROFILE)}
        plugins = sorted(names, key=lambda p: (order.get(p, len(order)), p))
        rows = [
            NodeScores(node=n, plugins=_ints(per), total=int(totals.get(n, sum(per.values()))))
            for n, per in by_node.items()
        ]
        rows.sort(key=lambda row: (-row.total, row.node))
        scores = Scores(
            plugins=plugins, nodes=rows, top=list(details.get("top_scored_nodes") or [])
        )
    host = details.get("host_selection")
    pre_details = details.get("preemption")
    chosen_node = None
    victims: list[VictimDetail] = []
    if node_view:
        for v in node_view.get("victims") or []:
            if v.get("missing"):
                namespace, _, name = str(v["key"]).partition("/")
                victims.append(
                    VictimDetail(
                        key=v["key"], namespace=namespace, name=name, priority=0, missing=True
                    )
                )
                continue
            victims.append(
                VictimDetail(
                    key=v["key"],
                    namespace=v.get("namespace") or "",
                    name=v.get("name") or "",
                    priority=int(v.get("priority") or 0),
                    priority_class=v.get("priority_class"),
                    qos_class=v.get("qos_class"),
                    requests=_ints(v.get("requests")),
                    start_time=v.get("start_time"),
                    owner=v.get("owner"),
                    pdbs=[PDBState(pdb=p) for p in v.get("pdbs") or []],
                    violates_pdb=bool(v.get("violates_pdb")),
                )
            )
        before = _ints(node_view.get("requested"))
        pod_requests = _ints(node_view.get("preemptor_requests"))
        count = int(node_view.get("pod_count") or 0)
        chosen_node = NodeResources(
            node=node_view["node"],
            allocatable=_ints(node_view.get("allocatable")),
            requested_before=before,
            requested_after=requested_after(
                before, [v.requests for v in victims if not v.missing], pod_requests
            ),
            pod_count_before=count,
            pod_count_after=count - len(victims) + 1,
            pod_requests=pod_requests,
        )
    return Explanation(
        schema_version=SCHEMA_VERSION,
        pod=result["pod"],
        priority=int(result["priority"]),
        priority_class=result.get("priority_class"),
        preemption_policy=result.get("preemption_policy") or "PreemptLowerPriority",
        outcome=outcome,
        eligible=eligible,
        ineligible_reason=ineligible_reason,
        node=result.get("node"),
        feasible_nodes=list(result.get("feasible_nodes") or []),
        victims=list(result.get("victims") or []),
        pdb_violations=int(result.get("pdb_violations") or 0),
        candidates=[
            CandidateRecord(
                node=c["node"],
                victims=list(c.get("victims") or []),
                violating_victims=list(c.get("violating_victims") or []),
                pdb_violations=int(c.get("pdb_violations") or 0),
                highest_victim_priority=int(c.get("highest_victim_priority") or 0),
                priority_sum=int(c.get("priority_sum") or 0),
                victim_count=int(c.get("victim_count") or 0),
                highest_victims_earliest_start=c.get("highest_victims_earliest_start"),
                eliminated_by=_criterion(c.get("eliminated_by")),
            )
            for c in result.get("candidates") or []
        ],
        tied_nodes=list(result.get("tied_nodes") or []),
        rejected_nodes=rejected,
        message=result.get("message") or "",
        # Every node is either feasible or rejected.
        num_nodes=int(
            details.get("num_nodes") or len(rejected) + len(result.get("feasible_nodes") or [])
        ),
        host_selection=HostSelection(host) if host in tuple(HostSelection) else None,
        scores=scores,
        chosen_node=chosen_node,
        victim_details=victims,
        preemption=None
        if not pre_details
        else PreemptionSampling(
            potential_nodes=len(pre_details.get("potential_nodes") or []),
            evaluated_nodes=int(pre_details.get("evaluated_nodes") or 0),
            real_scheduler_would_sample=int(pre_details.get("real_scheduler_would_sample") or 0),
            resources_only_fast_path=bool(pre_details.get("resources_only_fast_path")),
        ),
        pre_filter_message=details.get("pre_filter_message"),
        warnings=[str(w) for w in details.get("warnings") or []],
    )
