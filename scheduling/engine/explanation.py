"""The explanation of one what-if: every fact the result page, the share page, the
CLI text and the API show, as typed, versioned data.

The engine builds it (``explain`` in ``result.py``); it is stored as JSON in one
column with its schema version and read back with ``Explanation.from_json``.
Renderers read attributes and enums, never string keys.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import msgspec

from .dra.waiting import DeviceWait
from .framework import Code
from .preemption.candidate import Criterion
from .preemption.victims import ERR_NO_VICTIMS, NOT_ELIGIBLE_NEVER
from .priority import HypotheticalClass
from .profile.profile_map import DEFAULT_PROFILE_REF, SchedulerProfileRef
from .schedule import HostSelection

# 1: the contract, ``details`` and ``node_view`` in three columns (read by the web
# layer's scheduling.analyses.explanations). 2: this structure, in one.
SCHEMA_VERSION = 2


class Outcome(enum.StrEnum):
    FITS = "fits"
    PREEMPTS = "preempts"
    UNSCHEDULABLE = "unschedulable"


class CannotHelp(enum.StrEnum):
    """Why preemption cannot make room on a node, in kube-scheduler's terms."""

    # The pod fits on another node: PostFilter (preemption) never runs.
    NOT_ATTEMPTED = "not-attempted"
    # preemptionPolicy: Never (PodEligibleToPreemptOthers).
    POLICY_NEVER = "policy-never"
    # A lower-priority pod on the nominated node is still terminating from a preemption.
    NOT_ELIGIBLE = "not-eligible"
    # The filter said UnschedulableAndUnresolvable (taint, selector, affinity, ...):
    # nodesWherePreemptionMightHelp leaves the node out.
    UNRESOLVABLE = "unresolvable"
    # The dry run found no pod of lower priority on the node.
    NO_LOWER_PRIORITY_PODS = "no-lower-priority-pods"
    # With every lower-priority pod gone, the pod still does not pass the filters.
    DOES_NOT_FIT = "does-not-fit"

    @property
    def label(self) -> str:
        return _CANNOT_HELP_LABELS[self]


_CANNOT_HELP_LABELS = {
    CannotHelp.NOT_ATTEMPTED: "not tried: the pod fits on another node",
    CannotHelp.POLICY_NEVER: "preemptionPolicy Never: the pod may not preempt",
    CannotHelp.NOT_ELIGIBLE: "the pod may not preempt: a victim on its nominated node is "
    "still terminating",
    CannotHelp.UNRESOLVABLE: "unresolvable: evicting pods cannot fix it",
    CannotHelp.NO_LOWER_PRIORITY_PODS: "no lower-priority pods to preempt",
    CannotHelp.DOES_NOT_FIT: "does not fit even with every lower-priority pod gone",
}


def cannot_help(
    *,
    outcome: Outcome,
    eligible: bool,
    ineligible_reason: str | None,
    can_help: bool,
    filter_code: str,
    preemption: StatusRecord | None,
) -> CannotHelp | None:
    """Why preemption cannot make room on a node that failed a filter; None where it can."""
    if can_help:
        return None
    if outcome == Outcome.FITS:
        return CannotHelp.NOT_ATTEMPTED
    if not eligible:
        if ineligible_reason == NOT_ELIGIBLE_NEVER:
            return CannotHelp.POLICY_NEVER
        return CannotHelp.NOT_ELIGIBLE
    if filter_code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE.label:
        return CannotHelp.UNRESOLVABLE
    if preemption is not None and preemption.reasons == [ERR_NO_VICTIMS]:
        return CannotHelp.NO_LOWER_PRIORITY_PODS
    return CannotHelp.DOES_NOT_FIT


def requested_after(
    before: Mapping[str, int], victims: list[Mapping[str, int]], pod: Mapping[str, int]
) -> dict[str, int]:
    """A node's requested totals once the victims are gone and the pod is bound."""
    after = dict(before)
    for requests in victims:
        for k, q in requests.items():
            after[k] = after.get(k, 0) - q
    for k, q in pod.items():
        after[k] = after.get(k, 0) + q
    return after


class InputEffect(enum.StrEnum):
    # The engine did not use the field: the answer is for the pod without it.
    IGNORED = "ignored"
    # The engine used the field, and it changes the answer.
    USED = "used"


class Struct(msgspec.Struct, kw_only=True, omit_defaults=False):
    pass


class StatusRecord(Struct):
    """fwk.Status: code (as kube-scheduler names it), the plugin, the reason strings."""

    code: str
    plugin: str | None = None
    reasons: list[str] = msgspec.field(default_factory=list)


class AttachmentCount(Struct):
    """NodeVolumeLimits on one node: a CSI driver's volumes in use against its limit."""

    driver: str
    in_use: int
    limit: int
    adding: int  # the pod's volumes of that driver not already on the node
    sentence: str  # "this node has 25 of 25 attachments of ebs.csi.aws.com in use"


class VolumePin(Struct):
    """A bound claim of the pod whose volume lives in one zone (or on one node)."""

    claim: str
    volume: str
    kind: str  # "zone" | "node"
    values: list[str]
    sentence: str  # "pinned to eu-west-1a by its volume data-kafka-0"


class NodeVerdict(Struct):
    """A node the pod does not pass as the cluster stands, and what preemption made of it."""

    node: str
    filter: StatusRecord
    # The dry run's status where it failed; None where it was not run or succeeded.
    preemption: StatusRecord | None = None
    preemption_can_help: bool = False
    # Why not, when preemption cannot help (None for a candidate node).
    cannot_help: CannotHelp | None = None
    # does-not-fit: each resource the pod still lacks with every lower-priority pod gone,
    # as [what the pod requests, what the node then has free] (pods: [1, free slots]).
    shortfall: dict[str, list[int]] = msgspec.field(default_factory=dict)
    # Where NodeVolumeLimits rejected the node: the attach counts that decided.
    attachments: list[AttachmentCount] = msgspec.field(default_factory=list)


class CandidateRecord(Struct):
    node: str
    victims: list[str]
    violating_victims: list[str]
    pdb_violations: int
    highest_victim_priority: int
    priority_sum: int
    victim_count: int
    highest_victims_earliest_start: str | None
    eliminated_by: Criterion | None = None


class NodeScores(Struct):
    node: str
    # Plugin name -> weighted score, in the profile's order.
    plugins: dict[str, int]
    total: int


class Scores(Struct):
    """The Score phase over the feasible nodes: per plugin, totals, the top set."""

    plugins: list[str]
    # Highest total first, then by name.
    nodes: list[NodeScores]
    # Every node with the highest total (selectHost picks one of them at random).
    top: list[str]


class NodeResources(Struct):
    """The chosen node before and after: requests against allocatable."""

    node: str
    allocatable: dict[str, int]
    # The running pods' requests now, and once the victims are gone and the pod is bound.
    requested_before: dict[str, int]
    requested_after: dict[str, int]
    pod_count_before: int
    pod_count_after: int
    pod_requests: dict[str, int]


class PDBState(Struct):
    pdb: str
    # status.disruptionsAllowed in the snapshot (None in analyses stored before it was kept).
    disruptions_allowed: int | None = None


class VictimDetail(Struct):
    key: str
    namespace: str
    name: str
    priority: int
    priority_class: str | None = None
    qos_class: str | None = None
    requests: dict[str, int] = msgspec.field(default_factory=dict)
    start_time: str | None = None
    owner: str | None = None
    pdbs: list[PDBState] = msgspec.field(default_factory=list)
    # Evicting it exceeds one of its budgets (filterPodsWithPDBViolation).
    violates_pdb: bool = False
    # Not among the snapshot's pods (only in analyses stored before victims were kept).
    missing: bool = False
    # spec.terminationGracePeriodSeconds: how long it keeps its room once deleted (None in
    # analyses stored before it was kept); already terminating: no deletion is issued.
    grace_seconds: int | None = None
    terminating: bool = False


class PreemptionSampling(Struct):
    """Where the real DefaultPreemption would have looked at fewer nodes."""

    potential_nodes: int
    evaluated_nodes: int
    # minCandidateNodesPercentage/Absolute: the real dry run stops after this many
    # candidates, starting at a random node.
    real_scheduler_would_sample: int
    resources_only_fast_path: bool = False

    @property
    def sampled(self) -> bool:
        return self.real_scheduler_would_sample < self.potential_nodes


class NominationShare(Struct):
    """A node the real scheduler nominates for ``offsets`` of its random offsets."""

    node: str
    share: float
    offsets: int = 0


class Sampling(Struct):
    """What DryRunPreemption's random offset does: the node each offset leads to.
    ``offset`` is set when the analysis was asked as one given offset."""

    potential_nodes: int
    window: int  # the candidates the real dry run stops at
    nominated: list[NominationShare] = msgspec.field(default_factory=list)
    offset: int | None = None

    @property
    def varies(self) -> bool:
        return len(self.nominated) > 1

    def to_contract(self) -> dict[str, Any]:
        return {
            "potential_nodes": self.potential_nodes,
            "window": self.window,
            "nominated": [{"node": n.node, "share": n.share} for n in self.nominated],
        }


class FilterSampling(Struct):
    """Where the real Filter phase would have stopped looking for feasible nodes."""

    nodes_evaluated: int
    feasible_nodes: int
    # numFeasibleNodesToFind (percentageOfNodesToScore): the real scheduler stops after
    # finding this many feasible nodes, starting where its previous cycle stopped.
    nodes_to_find: int

    @property
    def sampled(self) -> bool:
        return self.feasible_nodes > self.nodes_to_find


class InputNotice(Struct):
    """A field of the submitted pod that the answer depends on, or that was dropped."""

    field: str
    value: str
    effect: InputEffect
    why: str


class Explanation(Struct, kw_only=True):
    schema_version: int = SCHEMA_VERSION
    # --- the contract (DESIGN.md), ``to_contract`` gives it back exactly ---
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
    candidates: list[CandidateRecord]
    tied_nodes: list[str]
    rejected_nodes: list[NodeVerdict]
    message: str
    # --- beyond it ---
    num_nodes: int = 0
    host_selection: HostSelection | None = None
    scores: Scores | None = None
    chosen_node: NodeResources | None = None
    victim_details: list[VictimDetail] = msgspec.field(default_factory=list)
    preemption: PreemptionSampling | None = None
    # The contract's "sampling": None where no node had victims to offer.
    sampling: Sampling | None = None
    filter_sampling: FilterSampling | None = None
    pre_filter_message: str | None = None
    warnings: list[str] = msgspec.field(default_factory=list)
    input_notices: list[InputNotice] = msgspec.field(default_factory=list)
    # The what-if's own PriorityClasses (the contract's "hypothetical_classes"); an
    # explanation stored before they existed reads as one without any.
    hypothetical_classes: list[HypotheticalClass] = msgspec.field(default_factory=list)
    # The scheduler profile that answered; one stored before profiles existed was the
    # default profile's.
    scheduler_profile: SchedulerProfileRef = msgspec.field(
        default_factory=lambda: DEFAULT_PROFILE_REF
    )
    # The pod's bound volumes that confine it to a zone or node (VolumeBinding,
    # VolumeZone): why the other zones' nodes were never a choice.
    volume_pins: list[VolumePin] = msgspec.field(default_factory=list)
    # A pod that cannot have its DRA devices: who holds them (None: not such a pod).
    devices: DeviceWait | None = None

    # --- reading it --------------------------------------------------------------

    @property
    def winner(self) -> CandidateRecord | None:
        return next((c for c in self.candidates if c.eliminated_by is None), None)

    @property
    def runner_up(self) -> CandidateRecord | None:
        """The best candidate that lost (the candidates are stored best first)."""
        return next((c for c in self.candidates if c.eliminated_by is not None), None)

    def other_rejected_nodes(self) -> list[NodeVerdict]:
        """The nodes that failed a filter, less the nominated node (preemption made room
        there): the nodes the page and the CLI text count as "other nodes"."""
        chosen = self.node if self.outcome == Outcome.PREEMPTS else None
        return [r for r in self.rejected_nodes if r.node != chosen]

    # --- its JSON forms -----------------------------------------------------------

    def to_contract(self) -> dict[str, Any]:
        """The result contract of DESIGN.md, exactly."""
        return {
            "pod": self.pod,
            "priority": self.priority,
            "priority_class": self.priority_class,
            "preemption_policy": self.preemption_policy,
            "outcome": self.outcome.value,
            "eligible": self.eligible,
            "ineligible_reason": self.ineligible_reason,
            "node": self.node,
            "feasible_nodes": list(self.feasible_nodes),
            "victims": list(self.victims),
            "pdb_violations": self.pdb_violations,
            "candidates": [
                {
                    "node": c.node,
                    "victims": list(c.victims),
                    "violating_victims": list(c.violating_victims),
                    "pdb_violations": c.pdb_violations,
                    "highest_victim_priority": c.highest_victim_priority,
                    "priority_sum": c.priority_sum,
                    "victim_count": c.victim_count,
                    "highest_victims_earliest_start": c.highest_victims_earliest_start,
                    "eliminated_by": c.eliminated_by.value if c.eliminated_by else None,
                }
                for c in self.candidates
            ],
            "tied_nodes": list(self.tied_nodes),
            "rejected_nodes": [
                {
                    "node": r.node,
                    "reasons": list(r.filter.reasons),
                    "preemption_can_help": r.preemption_can_help,
                }
                for r in self.rejected_nodes
            ],
            "message": self.message,
            "sampling": self.sampling.to_contract() if self.sampling else None,
            "hypothetical_classes": [c.to_contract() for c in self.hypothetical_classes],
            "scheduler_profile": self.scheduler_profile.to_dict(),
        }

    def to_json(self) -> dict[str, Any]:
        """What the database column and the API hold (``from_json`` reads it back)."""
        data: dict[str, Any] = msgspec.to_builtins(self)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Explanation:
        """The explanation ``to_json`` stored; ValueError for another schema version."""
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise ValueError(f"explanation schema version {version!r}, expected {SCHEMA_VERSION}")
        try:
            return msgspec.convert(data, cls)
        except msgspec.ValidationError as e:
            raise ValueError(f"stored explanation does not match its schema: {e}") from None
