"""Simulation: the record of one run of the scheduling loop, and the cluster as it
stood at any cycle of it (to explain that cycle as a single-pod what-if)."""

from __future__ import annotations

import copy
import enum
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..cluster import Cluster, NodeInfo
from ..dra.objects import DraObjects
from ..objects import PREEMPT_LOWER_PRIORITY, Pod
from ..profile.profile_map import DEFAULT_PROFILE_REF, SchedulerProfileRef
from ..profile.types import SchedulerConfiguration
from ..volumes.storage import Storage
from .result import (
    BudgetOverrun,
    ChoicePoint,
    Cycle,
    Flush,
    Nomination,
    OwnerReplicas,
    PDBReport,
    PodOutcome,
    Recreated,
    RunEvent,
    StopReason,
    Termination,
    Timeline,
)
from .state import ClusterState

if TYPE_CHECKING:
    from ..result import Result
    from .queue import QueuedPodInfo, SchedulingQueue


class ActionKind(enum.Enum):
    CYCLE = "cycle"  # a cycle starts (nothing changes)
    BIND = "bind"
    DELETE = "delete"
    NOMINATE = "nominate"
    TERMINATE = "terminate"  # deletion issued: the pod stays, terminating (timeline)


@dataclass
class Action:
    """One change to the cluster, replayed by ``cluster_at``."""

    cycle: int
    kind: ActionKind
    pod: Pod
    node: str | None


# One preemption: (cycle, node, victims, PDB violations the scheduler counted).
Preemption = tuple[int, str, list[Pod], int]


def _outcome(pod: Pod, **how: Any) -> PodOutcome:
    """A pending pod's PodOutcome: who it is, and ``how`` the run left it."""
    return PodOutcome(
        pod=pod.key,
        priority=pod.priority,
        priority_class=pod.priority_class_name,
        preemption_policy=pod.preemption_policy or PREEMPT_LOWER_PRIORITY,
        **how,
    )


def device_counts(before: DraObjects, after: DraObjects) -> dict[str, tuple[int, int, int]]:
    """Per node: its devices, how many claims held before and after (workload answers
    count devices per node)."""
    held_before = before.allocated_devices()
    held_after = after.allocated_devices()
    out: dict[str, tuple[int, int, int]] = {}
    for node, devices in before.local.items():
        ids = [d.id for d in devices]
        out[node] = (
            len(ids),
            sum(1 for i in ids if i in held_before),
            sum(1 for i in ids if i in held_after),
        )
    return out


@dataclass
class Simulation:
    base: Cluster
    recreate_victims: bool
    pending: list[Pod] = field(default_factory=list)
    recreated_from: dict[str, str | None] = field(default_factory=dict)
    queued: dict[str, QueuedPodInfo] = field(default_factory=dict)
    actions: list[Action] = field(default_factory=list)
    cycles: list[Cycle] = field(default_factory=list)
    events: list[RunEvent] = field(default_factory=list)
    deleted_victims: list[str] = field(default_factory=list)
    nominations: list[Nomination] = field(default_factory=list)
    flushes: list[Flush] = field(default_factory=list)
    stop_reason: StopReason = StopReason.QUEUE_EMPTY
    choice_points: list[ChoicePoint] = field(default_factory=list)
    recreated: list[Recreated] = field(default_factory=list)
    preemptions: list[Preemption] = field(default_factory=list)
    cycle_limit: int = 0
    # A timeline run's clock and the pods deleted during it, in the order issued.
    timeline: Timeline | None = None
    terminations: list[Termination] = field(default_factory=list)
    # What the run assumed where nothing offline can say (a provisioner's success), and
    # the claims it bound ("namespace/name" -> node).
    assumptions: list[str] = field(default_factory=list)
    bound_claims: dict[str, str] = field(default_factory=dict)
    # (cycle, the storage from then on): claims created at submission (cycle 0) and
    # bound when their pod bound, for cluster_at.
    storage_changes: list[tuple[int, Storage]] = field(default_factory=list)
    # Filled by finish():
    pods: list[PodOutcome] = field(default_factory=list)
    final_queue: dict[str, list[str]] = field(default_factory=dict)
    pdb_report: list[PDBReport] = field(default_factory=list)
    owners: list[OwnerReplicas] = field(default_factory=list)
    # The scheduler profile(s) that answered, and the pods no profile is named for,
    # each with why it stays pending (kube-scheduler never queues them).
    scheduler_profile: SchedulerProfileRef = DEFAULT_PROFILE_REF
    ignored: list[tuple[Pod, str]] = field(default_factory=list)
    # The configuration the run was given (explain() answers a cycle under it).
    scheduler_config: SchedulerConfiguration | None = None
    # Per node with DRA devices: (devices, allocated before the run, allocated at its end).
    device_counts: dict[str, tuple[int, int, int]] = field(default_factory=dict)

    # Building the summary -------------------------------------------------------
    def finish(self, state: ClusterState, queue: SchedulingQueue, bound: dict[str, Pod]) -> None:
        from .queue import Where

        if state.dra:
            self.device_counts = device_counts(self.base.dra, state.dra)

        for pod in self.pending:
            p = self.queued[pod.key]
            running = bound.get(pod.key)
            self.pods.append(
                _outcome(
                    pod,
                    bound=running is not None,
                    node=running.node_name if running is not None else None,
                    nominated_node=state.nomination_of.get(pod.uid),
                    attempts=p.attempts,
                    queue=None if p.where is Where.DONE else p.where.value,
                    created=p.where is not Where.NOT_CREATED,
                    recreated_from=self.recreated_from.get(pod.key),
                )
            )
        for pod, reason in self.ignored:
            self.pods.append(
                _outcome(
                    pod,
                    bound=False,
                    node=None,
                    nominated_node=pod.nominated_node_name,
                    attempts=0,
                    queue=None,
                    not_scheduled=reason,
                )
            )
        listing = queue.listing()
        self.final_queue = {
            "active": listing[Where.ACTIVE],
            "backoff": listing[Where.BACKOFF],
            "unschedulable": listing[Where.UNSCHEDULABLE],
        }
        self.deleted_victims.sort()
        self.pdb_report = self._pdb_report()
        self.owners = self._owners(state)

    def _pdb_report(self) -> list[PDBReport]:
        """Each budget of the snapshot, those whose pods were preempted first: how far
        past disruptionsAllowed the run went, cycle by cycle, while the scheduler
        (reading a status nobody refreshed) counted violations against the snapshot's
        budget only. A budget no preemption touched is reported within it."""
        pdbs = self.base.pdbs
        taken: dict[int, list[str]] = {}
        overruns: dict[int, list[BudgetOverrun]] = {}
        for cycle, node, victims, violations in self.preemptions:
            matched: dict[int, list[str]] = {}
            for v in victims:
                for i in self.base.pdbs_for_pod(v):
                    if pdbs[i].matches(v):
                        matched.setdefault(i, []).append(v.key)
            for i, keys in matched.items():
                so_far = taken.setdefault(i, [])
                so_far.extend(keys)
                if len(so_far) > pdbs[i].disruptions_allowed:
                    overruns.setdefault(i, []).append(
                        BudgetOverrun(cycle, node, sorted(keys), violations)
                    )
        for i in range(len(pdbs)):
            taken.setdefault(i, [])
        return [
            PDBReport(
                pdb=f"{pdbs[i].namespace}/{pdbs[i].name}",
                disruptions_allowed=pdbs[i].disruptions_allowed,
                deleted_matching_victims=sorted(keys),
                exceeded=len(keys) > pdbs[i].disruptions_allowed,
                cycles_beyond_budget=overruns.get(i, []),
            )
            for i, keys in taken.items()
        ]

    def _owners(self, state: ClusterState) -> list[OwnerReplicas]:
        """Per owner of a victim: running pods before the run and at its end."""
        evicted: Counter[tuple[str, str]] = Counter()
        for _, _, victims, _ in self.preemptions:
            for v in victims:
                if v.owner:
                    evicted[(v.namespace, v.owner)] += 1
        if not evicted:
            return []
        remade: Counter[tuple[str, str]] = Counter()
        for r in self.recreated:
            ns = r.pod.split("/", 1)[0]
            remade[(ns, r.owner)] += 1

        def running(node_infos: Iterable[NodeInfo]) -> Counter[tuple[str, str]]:
            out: Counter[tuple[str, str]] = Counter()
            for ni in node_infos:
                for p in ni.pods:
                    k = (p.namespace, p.owner or "")
                    if k in evicted:
                        out[k] += 1
            return out

        before = running(self.base.node_infos)
        # Only the nodes the run copied differ from the base: count those again rather
        # than every pod of the cluster.
        copied = state.copied_nodes()
        after = before.copy()
        after.subtract(running(self.base.node_info_by_name[n] for n in copied))
        after.update(running(state.node_info_by_name[n] for n in copied))
        return [
            OwnerReplicas(
                owner, ns, before[(ns, owner)], after[(ns, owner)], n, remade[(ns, owner)]
            )
            for (ns, owner), n in sorted(evicted.items())
        ]

    # The contract ------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pods": [p.to_dict() for p in self.pods],
            "cycles": [c.to_dict() for c in self.cycles],
            "events": [e.to_dict() for e in self.events],
            "deleted_victims": list(self.deleted_victims),
            "nominations": [n.to_dict() for n in self.nominations],
            "flushes": [f.to_dict() for f in self.flushes],
            "stop_reason": self.stop_reason.value,
            "final_queue": {k: list(v) for k, v in self.final_queue.items()},
            "pdb_report": [r.to_dict() for r in self.pdb_report],
            "choice_points": [c.to_dict() for c in self.choice_points],
            "hypothetical_classes": [c.to_contract() for c in self.base.hypothetical_classes],
            "scheduler_profile": self.scheduler_profile.to_dict(),
        }
        if self.recreate_victims:
            out["recreated"] = [r.to_dict() for r in self.recreated]
        if self.timeline is not None:
            out["timeline"] = self.timeline.to_dict()
            out["terminations"] = [t.to_dict() for t in self.terminations]
        if self.assumptions:
            out["assumptions"] = list(self.assumptions)
            out["bound_claims"] = dict(self.bound_claims)
        return out

    # One cycle, explained ----------------------------------------------------
    def cluster_at(self, cycle: int) -> tuple[Cluster, Pod]:
        """The cluster as the scheduler saw it when ``cycle`` started, and the pod that
        cycle popped (with the nomination it had then)."""
        state = ClusterState(self.base)
        popped: Pod | None = None
        for a in self.actions:
            if a.cycle > cycle or (a.cycle == cycle and a.kind is not ActionKind.CYCLE):
                break
            if a.kind is ActionKind.CYCLE:
                if a.cycle == cycle:
                    popped = a.pod
            elif a.kind is ActionKind.BIND:
                assert a.node is not None
                state.bind(a.pod, a.node)
            elif a.kind is ActionKind.DELETE:
                state.delete(a.pod)
            elif a.kind is ActionKind.TERMINATE:
                state.replace(a.pod)
            else:
                state.nominate(a.pod, a.node)
        if popped is None:
            raise KeyError(f"no cycle {cycle} in this run")
        for changed_at, storage in self.storage_changes:
            if changed_at < cycle:
                state.storage = storage
        pod = copy.copy(popped)
        pod.node_name = None
        pod.nominated_node_name = state.nomination_of.get(pod.uid)
        return state, pod

    def explain(self, cycle: int) -> Result:
        """The single-pod what-if of that cycle: the same decision, with every node's
        reasons, the scores and the tie-break table."""
        from ..analysis import analyze

        cluster, pod = self.cluster_at(cycle)
        return analyze(cluster, pod, scheduler_config=self.scheduler_config)
