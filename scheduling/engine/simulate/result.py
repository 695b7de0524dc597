"""What a simulation returns: typed records of the run and their JSON form (the
workload contract in DESIGN.md), each with ``to_dict`` and, to read a stored run
back, ``from_dict``."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class CycleResult(enum.Enum):
    BOUND = "bound"
    PREEMPTED = "preempted"
    UNSCHEDULABLE = "unschedulable"


class StopReason(enum.Enum):
    QUEUE_EMPTY = "queue-empty"
    NO_PROGRESS_AFTER_FLUSH = "no-progress-after-flush"
    CYCLE_LIMIT = "cycle-limit"


class EventType(enum.Enum):
    BIND = "bind"
    PREEMPT = "preempt"


class NominatedBy(enum.Enum):
    SCHEDULER = "scheduler"
    BINDING = "binding"


@dataclass
class PodOutcome:
    """One pending pod at the end of the run."""

    pod: str
    priority: int
    priority_class: str | None
    preemption_policy: str
    bound: bool
    node: str | None
    nominated_node: str | None
    attempts: int
    queue: str | None  # activeQ | backoffQ | unschedulablePods | notCreated while pending
    recreated_from: str | None = None  # the victim it replaces (recreate_victims)
    # False: its controller never made it (a StatefulSet waiting for an earlier pod).
    created: bool = True
    # A timeline run's seconds since time zero (None: not timed, never created or bound).
    arrived_at: float | None = None
    bound_at: float | None = None
    timed: bool = False
    # Why this scheduler never tries the pod (its schedulerName names no profile).
    not_scheduled: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "pod": self.pod,
            "priority": self.priority,
            "priority_class": self.priority_class,
            "preemption_policy": self.preemption_policy,
            "final": "bound" if self.bound else "pending",
            "node": self.node,
            "nominated_node": self.nominated_node,
            "attempts": self.attempts,
        }
        if self.timed:
            out["arrived_at"] = self.arrived_at
            out["bound_at"] = self.bound_at
        if self.not_scheduled is not None:
            out["not_scheduled"] = self.not_scheduled
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any], final_queue: dict[str, list[str]]) -> PodOutcome:
        """Back from the contract. A pod its controller never made was never tried,
        never bound and is in no queue of ``final_queue``."""
        bound = d["final"] == "bound"
        created = bound or bool(d["attempts"]) or any(d["pod"] in q for q in final_queue.values())
        return cls(
            pod=d["pod"],
            priority=d["priority"],
            priority_class=d["priority_class"],
            preemption_policy=d["preemption_policy"],
            bound=bound,
            node=d["node"],
            nominated_node=d["nominated_node"],
            attempts=d["attempts"],
            queue=None,
            created=created,
            arrived_at=d.get("arrived_at"),
            bound_at=d.get("bound_at"),
            timed="arrived_at" in d,
            not_scheduled=d.get("not_scheduled"),
        )


@dataclass
class Cycle:
    """One scheduling cycle: the pod popped and what became of it."""

    cycle: int
    pod: str
    attempt: int
    result: CycleResult
    node: str | None = None
    host_selection: str | None = None
    top_scored_nodes: list[str] = field(default_factory=list)
    # None: PostFilter returned no result (nomination untouched); "": cleared.
    nominated_node: str | None = None
    tied_nodes: list[str] = field(default_factory=list)
    victims: list[str] = field(default_factory=list)
    pdb_violations: int = 0
    message: str = ""
    after_flush: int = 0  # how many leftover flushes came before this cycle
    at: float | None = None  # a timeline run's seconds since time zero
    # A timeline run's preemption: every victim chosen, those already terminating too
    # (``victims`` are the ones whose deletion this cycle issued).
    chosen_victims: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cycle": self.cycle,
            "pod": self.pod,
            "attempt": self.attempt,
            "result": self.result.value,
        }
        if self.at is not None:
            out["at"] = self.at
        if self.result is CycleResult.BOUND:
            out["node"] = self.node
            out["host_selection"] = self.host_selection
            out["top_scored_nodes"] = list(self.top_scored_nodes)
            return out
        if self.nominated_node is not None:
            out["nominated_node"] = self.nominated_node
        if self.result is CycleResult.PREEMPTED:
            out["tied_nodes"] = list(self.tied_nodes)
            out["victims"] = list(self.victims)
            out["pdb_violations"] = self.pdb_violations
            if self.at is not None:
                out["chosen_victims"] = list(self.chosen_victims)
        out["message"] = self.message
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Cycle:
        """Back from the contract (keys a result does not carry default as in the record)."""
        return cls(
            cycle=d["cycle"],
            pod=d["pod"],
            attempt=d["attempt"],
            result=CycleResult(d["result"]),
            node=d.get("node"),
            host_selection=d.get("host_selection"),
            top_scored_nodes=list(d.get("top_scored_nodes") or []),
            nominated_node=d.get("nominated_node"),
            tied_nodes=list(d.get("tied_nodes") or []),
            victims=list(d.get("victims") or []),
            pdb_violations=d.get("pdb_violations") or 0,
            message=d.get("message") or "",
            at=d.get("at"),
            chosen_victims=list(d.get("chosen_victims") or d.get("victims") or []),
        )


@dataclass
class RunEvent:
    """A bind or a preemption, in the order the API server saw them."""

    seq: int
    cycle: int
    type: EventType
    pod: str
    node: str
    victims: list[str] = field(default_factory=list)
    at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seq": self.seq,
            "cycle": self.cycle,
            "type": self.type.value,
            "pod": self.pod,
            "node": self.node,
        }
        if self.type is EventType.PREEMPT:
            out["victims"] = list(self.victims)
        if self.at is not None:
            out["at"] = self.at
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunEvent:
        return cls(
            d["seq"],
            d["cycle"],
            EventType(d["type"]),
            d["pod"],
            d["node"],
            list(d.get("victims") or []),
            d.get("at"),
        )


@dataclass
class Nomination:
    cycle: int
    pod: str
    from_node: str
    to_node: str
    by: NominatedBy
    at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cycle": self.cycle,
            "pod": self.pod,
            "from": self.from_node,
            "to": self.to_node,
            "by": self.by.value,
        }
        if self.at is not None:
            out["at"] = self.at
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Nomination:
        return cls(d["cycle"], d["pod"], d["from"], d["to"], NominatedBy(d["by"]), d.get("at"))


@dataclass
class Flush:
    after_cycle: int
    moved: list[str]
    at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"after_cycle": self.after_cycle, "moved": list(self.moved)}
        if self.at is not None:
            out["at"] = self.at
        return out


@dataclass
class BudgetOverrun:
    """A preemption that took a PDB's pods beyond its disruptionsAllowed."""

    cycle: int
    node: str
    matching_victims: list[str]
    pdb_violations: int  # what the scheduler counted in that cycle

    def to_dict(self) -> dict[str, Any]:
        return {
            "cycle": self.cycle,
            "node": self.node,
            "matching_victims": list(self.matching_victims),
            "pdb_violations": self.pdb_violations,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BudgetOverrun:
        return cls(d["cycle"], d["node"], list(d["matching_victims"]), d["pdb_violations"])


@dataclass
class PDBReport:
    pdb: str
    disruptions_allowed: int
    deleted_matching_victims: list[str]
    exceeded: bool
    cycles_beyond_budget: list[BudgetOverrun]

    @property
    def overrun(self) -> int:
        """How many deleted pods the budget did not allow."""
        return max(0, len(self.deleted_matching_victims) - self.disruptions_allowed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pdb": self.pdb,
            "disruptions_allowed": self.disruptions_allowed,
            "deleted_matching_victims": list(self.deleted_matching_victims),
            "exceeded": self.exceeded,
            "cycles_beyond_budget": [c.to_dict() for c in self.cycles_beyond_budget],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PDBReport:
        return cls(
            pdb=d["pdb"],
            disruptions_allowed=d["disruptions_allowed"],
            deleted_matching_victims=list(d["deleted_matching_victims"]),
            exceeded=d["exceeded"],
            cycles_beyond_budget=[BudgetOverrun.from_dict(b) for b in d["cycles_beyond_budget"]],
        )


class ChoiceKind(enum.Enum):
    BIND = "bind"
    PREEMPT = "preempt"


@dataclass
class ChoicePoint:
    """Where the real scheduler picks at random among equally good nodes."""

    cycle: int
    pod: str
    kind: ChoiceKind
    options: list[str]
    chosen: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "cycle": self.cycle,
            "pod": self.pod,
            "kind": self.kind.value,
            "options": list(self.options),
            "chosen": self.chosen,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ChoicePoint:
        return cls(d["cycle"], d["pod"], ChoiceKind(d["kind"]), list(d["options"]), d["chosen"])


@dataclass
class Recreated:
    """A victim its controller made again (recreate_victims)."""

    victim: str
    pod: str
    owner: str

    def to_dict(self) -> dict[str, Any]:
        return {"victim": self.victim, "pod": self.pod, "owner": self.owner}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Recreated:
        return cls(d["victim"], d["pod"], d["owner"])


@dataclass
class OwnerReplicas:
    """What is really lost: an owner's running pods before the run and at its end."""

    owner: str
    namespace: str
    before: int
    after: int
    evicted: int
    recreated: int

    @property
    def lost(self) -> int:
        return max(0, self.before - self.after)


@dataclass
class Termination:
    """A pod deleted during a timeline run: by a preemption (``cycle``, ``preemptor``) or
    by someone else (preemptlab.io/delete-at-seconds). It keeps running, and holding
    its room, from ``deleted_at`` until ``gone_at`` (seconds since time zero)."""

    pod: str
    node: str
    cycle: int | None
    preemptor: str | None
    deleted_at: float
    gone_at: float
    grace_seconds: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "node": self.node,
            "cycle": self.cycle,
            "preemptor": self.preemptor,
            "deleted_at": self.deleted_at,
            "gone_at": self.gone_at,
            "grace_seconds": self.grace_seconds,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Termination:
        return cls(
            d["pod"],
            d["node"],
            d.get("cycle"),
            d.get("preemptor"),
            d["deleted_at"],
            d["gone_at"],
            d["grace_seconds"],
        )


@dataclass
class Timeline:
    """A timeline run's clock: time zero as a date, and how long the run lasted."""

    clock_origin: str  # RFC 3339
    duration: float  # seconds from time zero to the last thing that happened

    def to_dict(self) -> dict[str, Any]:
        return {"clock_origin": self.clock_origin, "duration": self.duration}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Timeline:
        return cls(d["clock_origin"], d["duration"])
