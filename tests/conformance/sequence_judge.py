"""How a simulation is compared with the real scheduling loop's answer
(tests/conformance/sequences/README.md, "How a result is compared").

A run agrees when its outcome (every pod's bound node and final nomination, the
deleted victims, the bind/preempt events in order) equals one of the outcomes the
real loop produced, or when it follows the real cycles exactly up to a choice point
and there picks another of that point's options (the real pick is random).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def _event_key(e: dict[str, Any]) -> tuple[Any, ...]:
    return (e["type"], e["pod"], e["node"], tuple(e.get("victims") or ()))


def outcome_of(got: dict[str, Any]) -> dict[str, Any]:
    return {
        "boundNodes": {p["pod"]: p["node"] for p in got["pods"]},
        "nominatedNodeNames": {p["pod"]: p["nominated_node"] for p in got["pods"]},
        "deletedVictims": sorted(got["deleted_victims"]),
        "events": [_event_key(e) for e in got["events"]],
    }


def _expected_outcome(o: dict[str, Any]) -> dict[str, Any]:
    return {
        "boundNodes": dict(o["boundNodes"]),
        "nominatedNodeNames": dict(o["nominatedNodeNames"]),
        "deletedVictims": sorted(o["deletedVictims"]),
        "events": [_event_key(e) for e in o["events"]],
    }


def _cycle_key(c: dict[str, Any]) -> tuple[Any, ...]:
    return (
        c["pod"],
        c["result"],
        c.get("node")
        if c["result"] == "bound"
        else c.get("nominated_node", c.get("nominatedNode")),
        tuple(c.get("victims") or ()),
    )


@dataclass
class Verdict:
    agrees: bool
    how: str  # "outcome" | "choice point" | "" (disagrees)
    problems: list[str] = field(default_factory=list)
    cycles_agreeing: int = 0
    cycles_total: int = 0
    messages_agreeing: int = 0
    messages_total: int = 0
    pdb_agreeing: int = 0
    pdb_total: int = 0


def judge(expected: dict[str, Any], got: dict[str, Any]) -> Verdict:
    ours = outcome_of(got)
    verdict = Verdict(False, "")
    if any(ours == _expected_outcome(o) for o in expected["observedOutcomes"]):
        verdict.agrees, verdict.how = True, "outcome"
    else:
        verdict.problems = _diff_outcome(ours, expected)
        diverged = _first_divergence(expected["cycles"], got["cycles"])
        if diverged is not None:
            i, theirs, mine = diverged
            point = next(
                (c for c in expected["choicePoints"] if c["cycle"] == theirs["cycle"]), None
            )
            picked = mine.get("node") if mine["result"] == "bound" else mine.get("nominated_node")
            if (
                point is not None
                and mine["pod"] == theirs["pod"]
                and mine["result"] == theirs["result"]
                and picked in point["options"]
            ):
                verdict.agrees, verdict.how = True, "choice point"
            else:
                verdict.problems.append(f"cycle {i + 1}: scheduler {theirs} / engine {mine}")
    exp_cycles, got_cycles = expected["cycles"], got["cycles"]
    verdict.cycles_total = len(exp_cycles)
    for theirs, mine in zip(exp_cycles, got_cycles, strict=False):
        if _cycle_key(theirs) == _cycle_key(mine):
            verdict.cycles_agreeing += 1
        if "message" in theirs:
            verdict.messages_total += 1
            verdict.messages_agreeing += mine.get("message") == theirs["message"]
    mine_pdb = {r["pdb"]: r for r in got["pdb_report"]}
    for r in expected["pdbReport"]:
        verdict.pdb_total += 1
        m = mine_pdb.get(f"{r['namespace']}/{r['name']}")
        verdict.pdb_agreeing += (
            m is not None
            and m["exceeded"] == r["exceeded"]
            and sorted(m["deleted_matching_victims"]) == sorted(r["deletedMatchingVictims"])
        )
    return verdict


def _first_divergence(
    exp_cycles: list[dict[str, Any]], got_cycles: list[dict[str, Any]]
) -> tuple[int, dict[str, Any], dict[str, Any]] | None:
    for i, (theirs, mine) in enumerate(zip(exp_cycles, got_cycles, strict=False)):
        if _cycle_key(theirs) != _cycle_key(mine):
            return i, theirs, mine
    return None


def _diff_outcome(ours: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    first = _expected_outcome(expected["observedOutcomes"][0])
    problems = []
    for k in ("boundNodes", "nominatedNodeNames"):
        for pod, v in first[k].items():
            if ours[k].get(pod) != v:
                problems.append(f"{k}[{pod}]: engine {ours[k].get(pod)!r} != scheduler {v!r}")
    if ours["deletedVictims"] != first["deletedVictims"]:
        problems.append(
            f"deletedVictims: engine {ours['deletedVictims']} != scheduler {first['deletedVictims']}"
        )
    return problems


def assert_strictly(scenario: dict[str, Any], got: dict[str, Any], verdict: Verdict) -> None:
    """The strictness of the conformance tests: the run agrees, and with no random
    pick on the way every cycle, attempt and queue agrees too; every FailedScheduling
    message and PDB report agrees."""
    assert verdict.agrees, "\n".join(verdict.problems)
    exp = scenario["expected"]
    assert got["stop_reason"] == exp["stopReason"]
    if not exp["choicePoints"]:
        assert verdict.cycles_agreeing == verdict.cycles_total
        assert [p["attempts"] for p in got["pods"]] == [p["attempts"] for p in exp["pods"]]
        queues = exp["finalQueue"]
        assert got["final_queue"] == {
            "active": sorted(queues["activeQ"]),
            "backoff": sorted(queues["backoffQ"]),
            "unschedulable": sorted(queues["unschedulablePods"]),
        }
    assert verdict.messages_agreeing == verdict.messages_total
    assert verdict.pdb_agreeing == verdict.pdb_total
