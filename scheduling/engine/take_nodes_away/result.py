"""What taking nodes away answers: typed records and their JSON (DESIGN.md, "Taking
nodes away"; keys beyond the contract are additions the pages read)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..simulate import Simulation
from .request import TakeNodesAway

COMPLETES = "completes"
BLOCKED = "blocked"
STOPPED = "stopped"
# Why the run ended early (``stop_reason``): a bare pod refused the drain, or the
# analysis budget's cycles ran out first.
BARE_POD = "bare-pod"
CYCLE_LIMIT = "cycle-limit"
TIME_LIMIT = "time-limit"  # the caller's deadline


@dataclass(frozen=True)
class Blocked:
    pod: str
    pdb: str  # "namespace/name" (several joined by ", " when more than one selects it)
    message: str  # the eviction API's words
    since: float  # seconds: its first refusal

    def to_dict(self) -> dict[str, Any]:
        return {"pod": self.pod, "pdb": self.pdb, "message": self.message, "since": self.since}


@dataclass
class NodeRecord:
    """One node taken: what became of its pods."""

    node: str
    evicted: list[str] = field(default_factory=list)  # through the eviction API
    deleted: list[str] = field(default_factory=list)  # bare (force), finished, or lost
    left: list[str] = field(default_factory=list)  # DaemonSet, mirror, tolerating for good
    blocked: list[Blocked] = field(default_factory=list)
    stopped_at: str | None = None  # the bare pod that refused the node (no force)
    # Seconds since time zero: its drain began (cordon) and its last pod was gone;
    # None: not reached.
    started_at: float | None = None
    done_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "evicted": list(self.evicted),
            "deleted": list(self.deleted),
            "left": list(self.left),
            "blocked": [b.to_dict() for b in self.blocked],
            "stopped_at": self.stopped_at,
            "started_at": self.started_at,
            "done_at": self.done_at,
        }


@dataclass(frozen=True)
class ReturningPod:
    pod: str
    replaces: str
    owner: str
    node: str | None  # where it runs at the end
    reason: str | None  # kube-scheduler's FailedScheduling message while pending
    created_at: float | None  # None: its controller never made it
    bound_at: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "replaces": self.replaces,
            "owner": self.owner,
            "node": self.node,
            "reason": self.reason,
            "created_at": self.created_at,
            "bound_at": self.bound_at,
        }


@dataclass(frozen=True)
class PreemptionRecord:
    preemptor: str
    node: str
    victims: list[str]
    tied_nodes: list[str]  # the nodes the tie-break chose among (one: no tie)
    cycle: int
    at: float | None
    pdb_violations: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "preemptor": self.preemptor,
            "node": self.node,
            "victims": list(self.victims),
            "tied_nodes": list(self.tied_nodes),
            "tie_break": "by node name" if len(self.tied_nodes) > 1 else None,
            "cycle": self.cycle,
            "at": self.at,
            "pdb_violations": self.pdb_violations,
        }


@dataclass
class NodesTakenAway:
    request: TakeNodesAway
    verdict: str
    sentence: str
    nodes: list[NodeRecord]
    returning: list[ReturningPod]
    preemptions: list[PreemptionRecord]
    pdbs_exceeded: list[str]
    pending: list[str]
    # Seconds from time zero until the last node's pods were gone (None: not reached),
    # and until the run's last event.
    completed_at: float | None
    duration: float
    # None when the run ended by itself; BARE_POD, CYCLE_LIMIT or TIME_LIMIT otherwise.
    stop_reason: str | None
    cycles: int
    cycle_limit: int
    added_nodes: list[str]
    simulation: Simulation

    @property
    def how(self) -> str:
        return self.request.how

    @property
    def moved(self) -> int:
        """Returning pods that run again."""
        return sum(1 for r in self.returning if r.node is not None)

    @property
    def preempted(self) -> list[str]:
        return sorted({v for p in self.preemptions for v in p.victims})

    @property
    def nodes_done(self) -> int:
        return sum(1 for n in self.nodes if n.done_at is not None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "take-nodes-away",
            "how": self.how,
            "verdict": self.verdict,
            "sentence": self.sentence,
            "nodes": [n.to_dict() for n in self.nodes],
            "returning": [r.to_dict() for r in self.returning],
            "preemptions": [p.to_dict() for p in self.preemptions],
            "pdbs_exceeded": list(self.pdbs_exceeded),
            "pending": list(self.pending),
            "request": self.request.to_dict(),
            "added_nodes": list(self.added_nodes),
            "completed_at": self.completed_at,
            "timeline": {
                "clock_origin": self.simulation.timeline.clock_origin
                if self.simulation.timeline
                else None,
                "duration": self.duration,
            },
            "stop_reason": self.stop_reason,
            "cycles": self.cycles,
            "cycle_limit": self.cycle_limit,
            "terminations": [t.to_dict() for t in self.simulation.terminations],
        }
