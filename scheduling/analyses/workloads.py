"""A workload what-if's stored run: the workload contract and what the page adds to it.

``WorkloadRun`` is built once from the engine's ``Simulation`` (on the worker) and
stored as JSON; the page, the API and the CLI read it back as the same typed records
the engine returns (``Cycle``, ``PodOutcome``, ``PDBReport``...), so no layer reads the
contract by string keys. Besides the contract (``contract``, exactly
``Simulation.to_dict()``) it keeps what the contract leaves out and the page needs:
the objects the workload was made of, each victim's owner, class and PDBs, the
per-owner replicas before/after (the cascade) and each touched node before/after.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from scheduling.constants import WorkloadOutcome
from scheduling.engine import HypotheticalClass
from scheduling.engine.objects import PDB, Pod
from scheduling.engine.simulate import (
    ChoicePoint,
    Cycle,
    CycleResult,
    Nomination,
    OwnerReplicas,
    PDBReport,
    PodOutcome,
    Recreated,
    RunEvent,
    Simulation,
    StopReason,
    Termination,
    Timeline,
)
from scheduling.engine.workload import Workload, WorkloadObject

# 2: a run that kept time carries timeline, terminations and the times of its records
# (simulate(timeline=True)); a version-1 run reads as one that kept none.
RUN_SCHEMA_VERSION = 2


@dataclass(frozen=True)
class VictimInfo:
    """A preempted pod: who owned it, its class, the PDBs that cover it, when it went."""

    pod: str
    namespace: str
    owner: str  # "ReplicaSet/blue-6ldlh", or "" for a bare pod
    priority: int
    priority_class: str
    node: str
    cycle: int
    preemptor: str
    pdbs: tuple[str, ...]


@dataclass(frozen=True)
class NodeChange:
    """A node the run bound to or preempted on: requests before the run and at its end."""

    node: str
    cpu_allocatable: int
    memory_allocatable: int
    cpu_before: int
    memory_before: int
    cpu_after: int
    memory_after: int
    pods_before: int
    bound: tuple[str, ...]
    evicted: tuple[str, ...]
    # DRA devices on the node, and how many claims held before the run and at its end
    # (0, 0, 0 for a node without any, or a run stored before they were counted).
    devices: int = 0
    devices_before: int = 0
    devices_after: int = 0

    @property
    def pods_after(self) -> int:
        return self.pods_before + len(self.bound) - len(self.evicted)


def _device_fields(counts: tuple[int, int, int] | None) -> dict[str, int]:
    if counts is None:
        return {}
    total, before, after = counts
    return {"devices": total, "devices_before": before, "devices_after": after}


@dataclass(frozen=True)
class BoundClaim:
    """A claim the run bound where its first pod landed (WaitForFirstConsumer, the
    provisioner assumed to succeed): "namespace/name" and the node."""

    claim: str
    node: str


NOT_CREATED_TEXT = (
    "not created: its StatefulSet (OrderedReady) creates it only once the pod before it runs"
)


@dataclass
class WorkloadRun:
    contract: dict[str, Any]
    objects: list[WorkloadObject]
    victims: list[VictimInfo]
    nodes: list[NodeChange]
    owners: list[OwnerReplicas]
    recreate_victims: bool
    # The typed records of the contract, rebuilt from it.
    pods: list[PodOutcome] = field(default_factory=list)
    cycles: list[Cycle] = field(default_factory=list)
    events: list[RunEvent] = field(default_factory=list)
    pdb_report: list[PDBReport] = field(default_factory=list)
    choice_points: list[ChoicePoint] = field(default_factory=list)
    recreated: list[Recreated] = field(default_factory=list)
    stop_reason: StopReason = StopReason.QUEUE_EMPTY
    # A run that kept time (simulate(timeline=True)); None for one that did not.
    timeline: Timeline | None = None
    terminations: list[Termination] = field(default_factory=list)
    nominations: list[Nomination] = field(default_factory=list)
    # The what-if's own PriorityClasses; a run stored before they existed had none.
    hypothetical_classes: list[HypotheticalClass] = field(default_factory=list)
    # What the run assumed where nothing offline can say, and the claims it bound; a
    # run that bound none (or stored before volumes counted) has neither.
    assumptions: list[str] = field(default_factory=list)
    bound_claims: list[BoundClaim] = field(default_factory=list)

    def __post_init__(self) -> None:
        c = self.contract
        c.setdefault("hypothetical_classes", [])
        self.hypothetical_classes = [
            HypotheticalClass.from_contract(h) for h in c["hypothetical_classes"]
        ]
        self.pods = [PodOutcome.from_dict(p, c["final_queue"]) for p in c["pods"]]
        self.cycles = [Cycle.from_dict(y) for y in c["cycles"]]
        self.events = [RunEvent.from_dict(e) for e in c["events"]]
        # The contract reports every budget of the snapshot; the pages and reports
        # speak of those the run took pods from.
        self.pdb_report = [
            PDBReport.from_dict(r) for r in c["pdb_report"] if r["deleted_matching_victims"]
        ]
        self.choice_points = [ChoicePoint.from_dict(p) for p in c["choice_points"]]
        self.recreated = [Recreated.from_dict(r) for r in c.get("recreated", [])]
        self.stop_reason = StopReason(c["stop_reason"])
        self.timeline = Timeline.from_dict(c["timeline"]) if c.get("timeline") else None
        self.terminations = [Termination.from_dict(t) for t in c.get("terminations", [])]
        self.nominations = [Nomination.from_dict(n) for n in c.get("nominations", [])]
        self.assumptions = [str(a) for a in c.get("assumptions", [])]
        self.bound_claims = [
            BoundClaim(claim, node) for claim, node in sorted(c.get("bound_claims", {}).items())
        ]

    # --- building and storing -------------------------------------------------------

    @classmethod
    def from_simulation(cls, sim: Simulation, workload: Workload) -> WorkloadRun:
        base = sim.base
        victims: list[VictimInfo] = []
        evicted_by_node: dict[str, list[Pod]] = {}
        popped = {y.cycle: y.pod for y in sim.cycles}
        # A PDB selects pods of its own namespace only.
        pdbs_by_namespace: dict[str, list[PDB]] = {}
        for b in base.pdbs:
            pdbs_by_namespace.setdefault(b.namespace, []).append(b)
        for cycle, node, pods, _ in sim.preemptions:
            preemptor = popped.get(cycle, "")
            for v in pods:
                evicted_by_node.setdefault(node, []).append(v)
                victims.append(
                    VictimInfo(
                        pod=v.key,
                        namespace=v.namespace,
                        owner=v.owner or "",
                        priority=v.priority,
                        priority_class=v.priority_class_name or "",
                        node=node,
                        cycle=cycle,
                        preemptor=preemptor,
                        pdbs=tuple(
                            f"{b.namespace}/{b.name}"
                            for b in pdbs_by_namespace.get(v.namespace, ())
                            if b.matches(v)
                        ),
                    )
                )
        pending = {p.key: p for p in sim.pending}
        bound_by_node: dict[str, list[Pod]] = {}
        for outcome in sim.pods:
            if outcome.bound and outcome.node:
                bound_by_node.setdefault(outcome.node, []).append(pending[outcome.pod])
        nodes = []
        for name in sorted(set(evicted_by_node) | set(bound_by_node)):
            ni = base.node_info_by_name[name]
            bound, evicted = bound_by_node.get(name, []), evicted_by_node.get(name, [])
            # "bound" holds the pods running here at the end; a victim that was itself
            # bound earlier in the run is in neither list, so only pods that ran here
            # before the run are taken away.
            base_keys = {p.key for p in ni.pods}
            gone = [v for v in evicted if v.key in base_keys]

            def total(pods: list[Pod], resource: str) -> int:
                return sum(p.requests.get(resource, 0) for p in pods)

            cpu0, mem0 = total(ni.pods, "cpu"), total(ni.pods, "memory")
            nodes.append(
                NodeChange(
                    node=name,
                    cpu_allocatable=ni.node.allocatable.get("cpu", 0),
                    memory_allocatable=ni.node.allocatable.get("memory", 0),
                    cpu_before=cpu0,
                    memory_before=mem0,
                    cpu_after=cpu0 + total(bound, "cpu") - total(gone, "cpu"),
                    memory_after=mem0 + total(bound, "memory") - total(gone, "memory"),
                    pods_before=len(ni.pods),
                    bound=tuple(p.key for p in bound),
                    evicted=tuple(v.key for v in gone),
                    **_device_fields(sim.device_counts.get(name)),
                )
            )
        return cls(
            # JSON-ready as it is: host_selection is a StrEnum, which json writes as its value.
            contract=sim.to_dict(),
            objects=list(workload.objects),
            victims=victims,
            nodes=nodes,
            owners=list(sim.owners),
            recreate_victims=sim.recreate_victims,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": RUN_SCHEMA_VERSION,
            "contract": self.contract,
            "objects": [asdict(o) for o in self.objects],
            "victims": [asdict(v) for v in self.victims],
            "nodes": [asdict(n) for n in self.nodes],
            "owners": [asdict(o) for o in self.owners],
            "recreate_victims": self.recreate_victims,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WorkloadRun:
        return cls(
            contract=dict(data["contract"]),
            objects=[
                WorkloadObject(**{**o, "pod_keys": tuple(o["pod_keys"])}) for o in data["objects"]
            ],
            victims=[VictimInfo(**{**v, "pdbs": tuple(v["pdbs"])}) for v in data["victims"]],
            nodes=[
                NodeChange(**{**n, "bound": tuple(n["bound"]), "evicted": tuple(n["evicted"])})
                for n in data["nodes"]
            ],
            owners=[OwnerReplicas(**o) for o in data["owners"]],
            recreate_victims=bool(data.get("recreate_victims")),
        )

    # --- what the page and the report ask ------------------------------------------

    @property
    def submitted(self) -> list[PodOutcome]:
        """The workload's own pods (recreated victims are not part of what was asked)."""
        own = {k for o in self.objects for k in o.pod_keys}
        return [p for p in self.pods if p.pod in own]

    @property
    def bound_count(self) -> int:
        return sum(1 for p in self.submitted if p.bound)

    @property
    def outcome(self) -> WorkloadOutcome:
        """The workload's one word: whether all, some or none of its replicas run."""
        return WorkloadOutcome.of(self.bound_count, len(self.submitted))

    @property
    def result(self) -> dict[str, Any]:
        """The answer the API and ``whatif --format json`` give: the workload's outcome,
        then the workload contract as the engine wrote it."""
        return {"outcome": self.outcome.value, **self.contract}

    @property
    def exceeded_pdbs(self) -> list[PDBReport]:
        return [r for r in self.pdb_report if r.exceeded]

    def left_pending(self) -> list[tuple[PodOutcome, str]]:
        """Each pod left pending and why, in submission order: the FailedScheduling text
        of its last cycle, or why it never had one."""
        failed = self.failed_cycles_by_pod
        out = []
        for p in self.pods:
            if p.bound:
                continue
            if not p.created:
                why = NOT_CREATED_TEXT
            elif p.pod in failed:
                why = failed[p.pod].message
            else:
                why = "never tried"
            out.append((p, why))
        return out

    @property
    def failed_cycles_by_pod(self) -> dict[str, Cycle]:
        """Each pod's last failed cycle (the FailedScheduling text it was left with)."""
        out: dict[str, Cycle] = {}
        for y in self.cycles:
            if y.result is not CycleResult.BOUND:
                out[y.pod] = y
        return out
