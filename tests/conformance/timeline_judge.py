"""How a timeline run is compared with the real loop's (tests/conformance/timeline/
README.md, "How a result is compared"): the outcome as for sequences, and the times
within 0.1 s; cycles and FailedScheduling messages are counted as figures."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The README's tolerance on every time.
TOLERANCE_SECONDS = 0.1


@dataclass
class TimelineVerdict:
    problems: list[str] = field(default_factory=list)
    cycles_agreeing: int = 0
    cycles_total: int = 0
    messages_agreeing: int = 0
    messages_total: int = 0

    @property
    def agrees(self) -> bool:
        return not self.problems


def _key(p: dict[str, Any]) -> str:
    return f"{p['namespace']}/{p['name']}"


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= TOLERANCE_SECONDS


def judge_timeline(expected: dict[str, Any], got: dict[str, Any]) -> TimelineVerdict:
    v = TimelineVerdict()
    mine = {p["pod"]: p for p in got["pods"]}
    for theirs in expected["pods"]:
        key = _key(theirs)
        ours = mine.get(key)
        if ours is None:
            v.problems.append(f"{key}: not in the run")
            continue
        final = "bound" if theirs["final"] == "bound" else "pending"
        if (ours["final"], ours["node"]) != (final, theirs["boundNode"]):
            v.problems.append(
                f"{key}: engine {ours['final']} on {ours['node']}, "
                f"scheduler {final} on {theirs['boundNode']}"
            )
        if not _close(ours["bound_at"], theirs.get("bindSeconds")):
            v.problems.append(
                f"{key}: bound at {ours['bound_at']}, scheduler {theirs.get('bindSeconds')}"
            )
    if sorted(got["deleted_victims"]) != sorted(expected["deletedVictims"]):
        v.problems.append(
            f"deleted victims: engine {sorted(got['deleted_victims'])}, "
            f"scheduler {sorted(expected['deletedVictims'])}"
        )

    def events(evs: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(e["type"], e["pod"], e["node"], tuple(e.get("victims") or ())) for e in evs]

    if events(got["events"]) != events(expected["events"]):
        v.problems.append(f"events: engine {events(got['events'])}")
    ends = {t["pod"]: t for t in got["terminations"]}
    timeline = expected["timeline"]
    for t in timeline["victims"] + timeline["externalDeletions"]:
        ours = ends.get(t["pod"])
        if ours is None:
            v.problems.append(f"{t['pod']}: never deleted by the engine")
        elif not (
            _close(ours["deleted_at"], t["deleteIssuedSeconds"])
            and _close(ours["gone_at"], t["goneSeconds"])
        ):
            v.problems.append(
                f"{t['pod']}: deleted {ours['deleted_at']}, gone {ours['gone_at']}; scheduler "
                f"{t['deleteIssuedSeconds']}, {t['goneSeconds']}"
            )
    v.cycles_total = len(expected["cycles"])
    for theirs, ours in zip(expected["cycles"], got["cycles"], strict=False):
        picked = ours.get("node") or ours.get("nominated_node")
        if (theirs["pod"], theirs["result"], theirs.get("node") or theirs.get("nominatedNode")) == (
            ours["pod"],
            ours["result"],
            picked,
        ):
            v.cycles_agreeing += 1
        if "message" in theirs:
            v.messages_total += 1
            v.messages_agreeing += ours.get("message") == theirs["message"]
    return v
