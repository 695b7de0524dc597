"""The typed answer of advise(): the advice contract (DESIGN.md, "Advice contract").

``Advice.as_contract()`` is exactly ``{"advice": [...]}``; each ``AdviceItem.to_dict()``
exactly one item of it. ``Advice.to_dict()`` adds what the contract leaves out and a page
needs (the notes, what the search cost and whether it stopped early); ``Advice.from_dict``
reads either form back as these records, so no layer reads the advice by string keys.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class AdviceKind(enum.StrEnum):
    """The kinds of single change, in the order a search tries them."""

    SMALLER_REQUEST = "smaller-request"
    ADD_NODES = "add-nodes"
    FEWER_REPLICAS = "fewer-replicas"
    WAIT_INSTEAD = "wait-instead"
    PROTECT = "protect"
    RELAX = "relax"
    # A pod waiting for DRA devices: fewer of them, or another class as a fallback.
    FEWER_DEVICES = "fewer-devices"
    FIRST_AVAILABLE = "first-available"


# --- changes: machine-applicable ---------------------------------------------------


@dataclass(frozen=True)
class ObjectPatch:
    """An RFC 6902 JSON Patch of the ``object``-th submitted object (0 for a lone pod)."""

    object: int
    patch: tuple[Mapping[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"object": self.object, "patch": [dict(op) for op in self.patch]}


@dataclass(frozen=True)
class AddNodes:
    """``add_nodes`` more nodes copied from ``like`` (labels, taints, allocatable)."""

    add_nodes: int
    like: str

    def to_dict(self) -> dict[str, Any]:
        return {"add_nodes": self.add_nodes, "like": self.like}


@dataclass(frozen=True)
class CreateObjects:
    """Objects to create beside the cluster's (PodDisruptionBudget manifests), or to
    apply in place of the cluster's of the same name (ResourceClaim and
    ResourceClaimTemplate manifests)."""

    create: tuple[Mapping[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"create": [dict(m) for m in self.create]}


Change = ObjectPatch | AddNodes | CreateObjects


def change_from_dict(raw: Mapping[str, Any]) -> Change:
    if "patch" in raw:
        return ObjectPatch(int(raw["object"]), tuple(raw["patch"]))
    if "add_nodes" in raw:
        return AddNodes(int(raw["add_nodes"]), str(raw["like"]))
    return CreateObjects(tuple(raw["create"]))


# --- what a change does -------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """The engine's answer to one run of the question.

    ``outcome``: a pod's ("fits" | "preempts" | "unschedulable") or a workload's
    ("all-run" | "some-run" | "none-run"); ``node``: the pod's node (bound or nominated),
    for a workload the node its first replica ran on; ``victims`` the evicted pods and
    ``pdbs_exceeded`` the budgets they exceed ("namespace/name"); ``pending``: the
    submitted pods left pending (a workload's; a lone pod's own key when it waits)."""

    outcome: str
    node: str | None
    victims: tuple[str, ...]
    pdbs_exceeded: tuple[str, ...]
    pending: tuple[str, ...] = ()

    @property
    def hurts(self) -> bool:
        """Evicts, exceeds a budget or leaves replicas pending: advice is wanted."""
        return bool(self.victims or self.pdbs_exceeded or self.pending)

    @property
    def evicts(self) -> bool:
        return bool(self.victims)


@dataclass(frozen=True)
class StepLess:
    """What one step less of the change does (10m more cpu, one node fewer, one replica
    more...): it still evicts, which is what makes the change minimal. ``change`` is
    None where the step less is no change at all (the question as asked)."""

    change: Change | None
    outcome: str
    victims: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "change": None if self.change is None else self.change.to_dict(),
            "outcome": self.outcome,
            "victims": list(self.victims),
        }


@dataclass(frozen=True)
class Proof:
    """The engine runs the search made for this item, their seconds, and the run of one
    step less: 10m more cpu, 16Mi more memory, one node fewer, one replica more, a
    budget allowing one disruption more; for wait-instead and relax (no step), and for
    a change one step from what was asked, the question as asked (``change`` None)."""

    runs: int
    seconds: float
    one_step_less: StepLess | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "seconds": round(self.seconds, 3),
            "one_step_less": None if self.one_step_less is None else self.one_step_less.to_dict(),
        }


@dataclass(frozen=True)
class AdviceItem:
    """One single change, applied to the question and answered again by the engine."""

    kind: AdviceKind
    change: Change
    outcome: str
    node: str | None
    victims: tuple[str, ...]
    pdbs_exceeded: tuple[str, ...]
    proof: Proof
    # In words, beyond the contract: what the change is and what it then does.
    summary: str = ""
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Exactly one item of the advice contract."""
        return {
            "kind": self.kind.value,
            "change": self.change.to_dict(),
            "outcome": self.outcome,
            "node": self.node,
            "victims": list(self.victims),
            "pdbs_exceeded": list(self.pdbs_exceeded),
            "proof": self.proof.to_dict(),
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any], summary: str = "", detail: str = "") -> AdviceItem:
        proof = raw["proof"]
        less = proof.get("one_step_less")
        return cls(
            kind=AdviceKind(raw["kind"]),
            change=change_from_dict(raw["change"]),
            outcome=raw["outcome"],
            node=raw["node"],
            victims=tuple(raw["victims"]),
            pdbs_exceeded=tuple(raw["pdbs_exceeded"]),
            proof=Proof(
                runs=int(proof["runs"]),
                seconds=float(proof["seconds"]),
                one_step_less=None
                if less is None
                else StepLess(
                    change=None if less["change"] is None else change_from_dict(less["change"]),
                    outcome=less["outcome"],
                    victims=tuple(less["victims"]),
                ),
            ),
            summary=summary,
            detail=detail,
        )


class Achieves(enum.StrEnum):
    """What a change achieves, the groups the advice is shown in (best first)."""

    EVERYTHING_RUNS = "everything runs"
    EVICTS_NO_ONE = "evicts no one"
    WAITS_INSTEAD = "the pod waits instead"
    FEWER_EVICTIONS = "fewer evictions"


# The outcomes in which nothing asked stays pending.
RUNS_OUTCOMES = ("fits", "all-run")


def achieves(item: AdviceItem) -> Achieves:
    """Everything runs unevicting; or no one is evicted but pods stay pending (waiting
    for room when the change is a class that does not preempt); else fewer evictions."""
    if item.victims or item.pdbs_exceeded:
        return Achieves.FEWER_EVICTIONS
    if item.outcome in RUNS_OUTCOMES:
        return Achieves.EVERYTHING_RUNS
    if item.kind == AdviceKind.WAIT_INSTEAD:
        return Achieves.WAITS_INSTEAD
    return Achieves.EVICTS_NO_ONE


@dataclass(frozen=True)
class Note:
    """A finding that is no change: "no budget would protect app X: every candidate node
    violates one", or why a kind was not searched."""

    kind: AdviceKind
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "text": self.text}


@dataclass(frozen=True)
class KindSearch:
    """What the search of one kind cost: engine runs, seconds, and whether it stopped
    before its end (``stopped``: "" | "runs" (its 20 re-runs) | "budget" (the advice's
    time) )."""

    kind: AdviceKind
    runs: int
    seconds: float
    stopped: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "runs": self.runs,
            "seconds": round(self.seconds, 3),
            "stopped": self.stopped,
        }


@dataclass(frozen=True)
class Advice:
    """The advice for one question: the proven changes most useful first (empty when
    nothing needs avoiding), the question's own answer, notes, and the searches."""

    items: tuple[AdviceItem, ...]
    baseline: Answer
    notes: tuple[Note, ...] = ()
    searches: tuple[KindSearch, ...] = ()
    seconds: float = 0.0

    @property
    def runs(self) -> int:
        """Engine runs in all (the question's own run included)."""
        return 1 + sum(s.runs for s in self.searches)

    @property
    def stopped_early(self) -> bool:
        return any(s.stopped for s in self.searches)

    def groups(self) -> list[tuple[Achieves, list[AdviceItem]]]:
        """The items by what they achieve, in Achieves' order, each group most useful first."""
        return [(a, got) for a in Achieves if (got := [i for i in self.items if achieves(i) == a])]

    def headline(self) -> tuple[str, list[AdviceItem]]:
        """The lead that matches the answer as asked, and the items it names: "to run
        every replica" where it leaves pods pending, "to evict no one" where it evicts
        (changes after which some pods wait are named only when nothing runs them all).
        ("", []) when no item achieves what the lead promises."""
        by = dict(self.groups())
        everything = by.get(Achieves.EVERYTHING_RUNS, [])
        if self.baseline.victims or self.baseline.pdbs_exceeded:
            if everything:
                return "To run everything without evicting anyone", everything
            if Achieves.EVICTS_NO_ONE in by:
                return "To evict no one (some pods then stay pending)", by[Achieves.EVICTS_NO_ONE]
            return "", []
        if self.baseline.pending and everything:
            return "To run every pod", everything
        return "", []

    def as_contract(self) -> dict[str, Any]:
        """Exactly the advice contract: ``{"advice": [...]}``."""
        return {"advice": [item.to_dict() for item in self.items]}

    def to_dict(self) -> dict[str, Any]:
        """The contract, then what it leaves out (``from_dict`` reads it back)."""
        return {
            **self.as_contract(),
            "summaries": [item.summary for item in self.items],
            "details": [item.detail for item in self.items],
            "baseline": {
                "outcome": self.baseline.outcome,
                "node": self.baseline.node,
                "victims": list(self.baseline.victims),
                "pdbs_exceeded": list(self.baseline.pdbs_exceeded),
                "pending": list(self.baseline.pending),
            },
            "notes": [n.to_dict() for n in self.notes],
            "search": {
                "runs": self.runs,
                "seconds": round(self.seconds, 3),
                "stopped_early": self.stopped_early,
                "kinds": [s.to_dict() for s in self.searches],
            },
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Advice:
        items: Sequence[Mapping[str, Any]] = raw["advice"]
        summaries = raw.get("summaries") or [""] * len(items)
        details = raw.get("details") or [""] * len(items)
        base = raw.get("baseline") or {}
        search = raw.get("search") or {}
        return cls(
            items=tuple(
                AdviceItem.from_dict(item, summaries[i], details[i]) for i, item in enumerate(items)
            ),
            baseline=Answer(
                outcome=base.get("outcome", ""),
                node=base.get("node"),
                victims=tuple(base.get("victims", ())),
                pdbs_exceeded=tuple(base.get("pdbs_exceeded", ())),
                pending=tuple(base.get("pending", ())),
            ),
            notes=tuple(Note(AdviceKind(n["kind"]), n["text"]) for n in raw.get("notes", ())),
            searches=tuple(
                KindSearch(AdviceKind(s["kind"]), int(s["runs"]), float(s["seconds"]), s["stopped"])
                for s in search.get("kinds", ())
            ),
            seconds=float(search.get("seconds", 0.0)),
        )


__all__ = [
    "Achieves",
    "AddNodes",
    "Advice",
    "AdviceItem",
    "AdviceKind",
    "Answer",
    "Change",
    "CreateObjects",
    "KindSearch",
    "Note",
    "ObjectPatch",
    "Proof",
    "StepLess",
    "achieves",
    "change_from_dict",
]
