"""The analysis result: the engine's own objects, and the explanation built from them.

``Result`` keeps what the decision was made of (Status objects, Candidates with
their victim Pods, the preemption record); ``Result.explanation`` turns them into
the typed, serializable ``Explanation`` every renderer reads, and ``to_dict``
gives the contract of DESIGN.md from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .cluster import Cluster
from .dra.waiting import DeviceWait, device_wait
from .explanation import (
    AttachmentCount,
    CandidateRecord,
    CannotHelp,
    Explanation,
    FilterSampling,
    InputNotice,
    NodeResources,
    NodeScores,
    NodeVerdict,
    NominationShare,
    Outcome,
    PDBState,
    PreemptionSampling,
    Sampling,
    Scores,
    StatusRecord,
    VictimDetail,
    VolumePin,
    cannot_help,
    requested_after,
)
from .framework import Status
from .objects import Pod
from .plugins.dynamicresources import CANNOT_ALLOCATE
from .plugins.nodevolumelimits import ERR_REASON_MAX_VOLUME_COUNT
from .preemption.candidate import Candidate
from .preemption.evaluator import PreemptionResult
from .priority import HypotheticalClass
from .profile.profile_map import DEFAULT_PROFILE_REF, SchedulerProfileRef
from .schedule import HostSelection
from .volumes.explain import attach_counts, attach_sentence, pin_sentence, pins


@dataclass
class RejectedNode:
    node: str
    status: Status
    preemption_can_help: bool
    preemption_status: Status | None = None


@dataclass
class Result:
    pod: str
    priority: int
    priority_class: str | None
    preemption_policy: str
    outcome: Outcome
    eligible: bool
    ineligible_reason: str | None
    node: str | None
    feasible_nodes: list[str]
    victims: list[str]
    pdb_violations: int
    candidates: list[Candidate]
    tied_nodes: list[str]
    rejected_nodes: list[RejectedNode]
    message: str
    # Explanation beyond the contract.
    scores: dict[str, dict[str, int]] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    top_scored_nodes: list[str] = field(default_factory=list)
    host_selection: HostSelection | None = None
    warnings: list[str] = field(default_factory=list)
    preemption: PreemptionResult | None = None
    num_nodes: int = 0
    pre_filter_msg: str = ""
    input_notices: list[InputNotice] = field(default_factory=list)
    # Where the real Filter phase would have stopped (None unless the pod fits by scores).
    filter_sampling: FilterSampling | None = None
    # The what-if's own PriorityClasses, in effect for this run only.
    hypothetical_classes: list[HypotheticalClass] = field(default_factory=list)
    # What the explanation reads the victims' and the chosen node's details from.
    cluster: Cluster | None = field(default=None, repr=False, compare=False)
    pending: Pod | None = field(default=None, repr=False, compare=False)
    # The scheduler profile that answered (results' scheduler_profile).
    scheduler_profile: SchedulerProfileRef = DEFAULT_PROFILE_REF

    @cached_property
    def explanation(self) -> Explanation:
        return explain(self)

    def to_dict(self) -> dict[str, Any]:
        return self.explanation.to_contract()

    def details(self) -> dict[str, Any]:
        """The explanation beyond the contract in the JSON shape the API served before
        the explanation existed (scores by node, node statuses by node)."""
        ex = self.explanation
        pre = ex.preemption
        scores = ex.scores
        return {
            "num_nodes": ex.num_nodes,
            "host_selection": ex.host_selection.value if ex.host_selection else None,
            "scores": {n.node: dict(n.plugins) for n in scores.nodes} if scores else {},
            "totals": {n.node: n.total for n in scores.nodes} if scores else {},
            "top_scored_nodes": list(scores.top) if scores else [],
            "warnings": list(ex.warnings),
            "pre_filter_message": ex.pre_filter_message,
            "node_statuses": {
                r.node: {
                    "filter": _status_json(r.filter),
                    "preemption": _status_json(r.preemption) if r.preemption else None,
                }
                for r in ex.rejected_nodes
            },
            "preemption": None
            if pre is None
            else {
                "potential_nodes": list(self.preemption.potential_nodes) if self.preemption else [],
                "evaluated_nodes": pre.evaluated_nodes,
                "real_scheduler_would_sample": pre.real_scheduler_would_sample,
                "sampled": pre.sampled,
                "resources_only_fast_path": pre.resources_only_fast_path,
            },
        }


def _status_json(s: StatusRecord) -> dict[str, Any]:
    return {"code": s.code, "plugin": s.plugin, "reasons": list(s.reasons)}


def status_record(s: Status) -> StatusRecord:
    return StatusRecord(code=s.code.label, plugin=s.plugin or None, reasons=list(s.reasons))


def candidate_record(c: Candidate) -> CandidateRecord:
    return CandidateRecord(
        node=c.node,
        victims=[p.key for p in c.victims.pods],
        violating_victims=[p.key for p in c.victims.violating],
        pdb_violations=c.victims.num_pdb_violations,
        highest_victim_priority=c.highest_priority,
        priority_sum=c.priority_sum,
        victim_count=len(c.victims.pods),
        highest_victims_earliest_start=c.earliest_start,
        eliminated_by=c.eliminated_by,
    )


def _scores(result: Result) -> Scores | None:
    if not result.scores:
        return None
    plugins: list[str] = []
    for per_node in result.scores.values():
        for name in per_node:
            if name not in plugins:
                plugins.append(name)
    rows = [
        NodeScores(node=n, plugins=dict(result.scores[n]), total=result.totals.get(n, 0))
        for n in result.scores
    ]
    rows.sort(key=lambda row: (-row.total, row.node))
    return Scores(plugins=plugins, nodes=rows, top=list(result.top_scored_nodes))


def _victim_details(result: Result, cluster: Cluster) -> list[VictimDetail]:
    chosen = result.preemption.chosen if result.preemption else None
    if chosen is None:
        return []
    violating = {p.key for p in chosen.victims.violating}
    out = []
    for p in chosen.victims.pods:
        budgets = [cluster.pdbs[i] for i in cluster.pdbs_for_pod(p)]
        out.append(
            VictimDetail(
                key=p.key,
                namespace=p.namespace,
                name=p.name,
                priority=p.priority,
                priority_class=p.priority_class_name,
                qos_class=p.qos_class,
                requests=dict(p.requests),
                start_time=p.start_time,
                owner=p.owner,
                grace_seconds=p.grace_seconds,
                terminating=p.terminating,
                pdbs=[
                    PDBState(
                        pdb=f"{b.namespace}/{b.name}", disruptions_allowed=b.disruptions_allowed
                    )
                    for b in budgets
                ],
                violates_pdb=p.key in violating,
            )
        )
    return out


def _chosen_node(result: Result, cluster: Cluster, pending: Pod) -> NodeResources | None:
    node_info = cluster.node_info_by_name.get(result.node) if result.node else None
    if node_info is None:
        return None
    chosen = result.preemption.chosen if result.preemption else None
    victims = chosen.victims.pods if chosen is not None else []
    after = requested_after(node_info.requested, [v.requests for v in victims], pending.requests)
    return NodeResources(
        node=node_info.name,
        allocatable=dict(node_info.node.allocatable),
        requested_before=dict(node_info.requested),
        requested_after=after,
        pod_count_before=len(node_info.pods),
        pod_count_after=len(node_info.pods) - len(victims) + 1,
        pod_requests=dict(pending.requests),
    )


def _shortfall(cluster: Cluster | None, pending: Pod | None, node: str) -> dict[str, list[int]]:
    """What the pod lacks on ``node`` once every lower-priority pod is gone: the numbers
    behind "does not fit even with every lower-priority pod gone"."""
    node_info = cluster.node_info_by_name.get(node) if cluster is not None else None
    if node_info is None or pending is None:
        return {}
    staying = [p for p in node_info.pods if p.priority >= pending.priority]
    allocatable = node_info.node.allocatable
    out: dict[str, list[int]] = {}
    for resource, wanted in sorted(pending.requests.items()):
        if wanted <= 0:
            continue
        free = allocatable.get(resource, 0) - sum(p.requests.get(resource, 0) for p in staying)
        if free < wanted:
            out[resource] = [wanted, free]
    if "pods" in allocatable and allocatable["pods"] - len(staying) < 1:
        out["pods"] = [1, allocatable["pods"] - len(staying)]
    return out


def _node_verdict(result: Result, r: Any) -> NodeVerdict:
    preemption = status_record(r.preemption_status) if r.preemption_status else None
    verdict = NodeVerdict(
        node=r.node,
        filter=status_record(r.status),
        preemption=preemption,
        preemption_can_help=r.preemption_can_help,
        cannot_help=cannot_help(
            outcome=result.outcome,
            eligible=result.eligible,
            ineligible_reason=result.ineligible_reason,
            can_help=r.preemption_can_help,
            filter_code=r.status.code.label,
            preemption=preemption,
        ),
    )
    if verdict.cannot_help == CannotHelp.DOES_NOT_FIT:
        verdict.shortfall = _shortfall(result.cluster, result.pending, r.node)
    if ERR_REASON_MAX_VOLUME_COUNT in r.status.reasons or (
        r.preemption_status is not None
        and ERR_REASON_MAX_VOLUME_COUNT in r.preemption_status.reasons
    ):
        verdict.attachments = _attachments(result, r.node)
    return verdict


def _attachments(result: Result, node: str) -> list[AttachmentCount]:
    cluster, pending = result.cluster, result.pending
    ni = cluster.node_info_by_name.get(node) if cluster is not None else None
    if cluster is None or pending is None or ni is None:
        return []
    return [
        AttachmentCount(
            driver=d, in_use=used, limit=limit, adding=new, sentence=attach_sentence(d, used, limit)
        )
        for d, used, limit, new in attach_counts(cluster, pending, ni)
    ]


def _volume_pins(result: Result) -> list[VolumePin]:
    cluster, pending = result.cluster, result.pending
    if cluster is None or pending is None or not pending.volumes:
        return []
    return [
        VolumePin(
            claim=claim,
            volume=pv,
            kind=kind,
            values=values,
            sentence=pin_sentence(claim, kind, values),
        )
        for claim, pv, kind, values in pins(cluster.storage, pending)
    ]


def _devices(result: Result) -> DeviceWait | None:
    """Who holds the devices a pod waits for: when some node could not allocate its
    claims and the pod fits nowhere."""
    if result.outcome == Outcome.FITS or result.cluster is None or result.pending is None:
        return None
    if not any(CANNOT_ALLOCATE in r.status.reasons for r in result.rejected_nodes):
        return None
    wait = device_wait(result.cluster, result.pending)
    return wait if wait is not None and wait.sentence else None


def explain(result: Result) -> Explanation:
    """The typed explanation of ``result`` (victim and node details need its cluster)."""
    pre = result.preemption
    cluster, pending = result.cluster, result.pending
    return Explanation(
        pod=result.pod,
        priority=result.priority,
        priority_class=result.priority_class,
        preemption_policy=result.preemption_policy,
        outcome=result.outcome,
        eligible=result.eligible,
        ineligible_reason=result.ineligible_reason,
        node=result.node,
        feasible_nodes=list(result.feasible_nodes),
        victims=list(result.victims),
        pdb_violations=result.pdb_violations,
        candidates=[candidate_record(c) for c in result.candidates],
        tied_nodes=list(result.tied_nodes),
        rejected_nodes=[_node_verdict(result, r) for r in result.rejected_nodes],
        message=result.message,
        num_nodes=result.num_nodes,
        host_selection=result.host_selection,
        scores=_scores(result),
        chosen_node=_chosen_node(result, cluster, pending)
        if cluster is not None and pending is not None
        else None,
        victim_details=_victim_details(result, cluster) if cluster is not None else [],
        preemption=None
        if pre is None
        else PreemptionSampling(
            potential_nodes=len(pre.potential_nodes),
            evaluated_nodes=len(pre.potential_nodes) if pre.eligible else 0,
            real_scheduler_would_sample=pre.would_sample,
            resources_only_fast_path=pre.fast_path,
        ),
        sampling=_sampling(pre),
        filter_sampling=result.filter_sampling,
        pre_filter_message=result.pre_filter_msg or None,
        warnings=list(result.warnings),
        input_notices=list(result.input_notices),
        hypothetical_classes=list(result.hypothetical_classes),
        scheduler_profile=result.scheduler_profile,
        volume_pins=_volume_pins(result),
        devices=_devices(result),
    )


def _sampling(pre: PreemptionResult | None) -> Sampling | None:
    """The contract's "sampling": per node, the share of kube-scheduler's random dry-run
    offsets that nominate it; with a given offset, the one node it leads to."""
    if pre is None or pre.chosen is None:
        return None
    n = len(pre.potential_nodes)
    if pre.offset is not None:
        shares = [NominationShare(pre.chosen.node, 1.0, 1)]
    else:
        shares = [NominationShare(s.node, s.share, s.offsets) for s in pre.sampling]
    return Sampling(potential_nodes=n, window=pre.would_sample, nominated=shares, offset=pre.offset)
