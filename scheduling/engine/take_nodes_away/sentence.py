"""The one-line answer of taking nodes away."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ..message import read_fit_error
from ..words import plural

if TYPE_CHECKING:
    from .result import NodesTakenAway


def duration_words(secs: float) -> str:
    """ "4 min 10 s", "45 s", "1 h 2 min"."""
    total = round(secs)
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    parts = []
    if h:
        parts.append(f"{h} h")
    if m:
        parts.append(f"{m} min")
    if s or not parts:
        parts.append(f"{s} s")
    return " ".join(parts)


def main_reason(message: str) -> str:
    """The reason most nodes gave in a FailedScheduling message, leaving out the nodes
    taken away (cordoned, unreachable): "Insufficient memory"."""
    text = read_fit_error(message)
    if text is None:
        return message.strip()
    best: tuple[int, str] | None = None
    for words, count in text.reasons:
        if "unschedulable" in words or "untolerated taint" in words:
            continue
        if best is None or count > best[0]:
            best = (count, words)
    return best[1] if best else text.histogram or message.strip()


def _what(r: NodesTakenAway) -> str:
    n = len(r.nodes)
    if r.how == "lost":
        return f"Losing {plural(n, 'node')}"
    return f"The drain of {plural(n, 'node')}"


def _tail(r: NodesTakenAway) -> str:
    parts = [f"{plural(r.moved, 'pod')} move"]
    preempted = len(r.preempted)
    if preempted:
        parts.append(
            f"{plural(preempted, 'lower-priority pod')} {'is' if preempted == 1 else 'are'} preempted"
        )
    if r.pending:
        reasons = Counter(main_reason(x.reason) for x in r.returning if x.node is None and x.reason)
        why = f" ({reasons.most_common(1)[0][0]})" if reasons else ""
        parts.append(f"{len(r.pending):,} stay pending{why}")
    if r.pdbs_exceeded:
        parts.append(f"preemptions exceed {plural(len(r.pdbs_exceeded), 'PDB')}")
    return ", ".join(parts)


def sentence(r: NodesTakenAway) -> str:
    if r.verdict == "completes":
        when = duration_words(r.completed_at or 0.0)
        return f"{_what(r)} completes in {when}: {_tail(r)}."
    if r.verdict == "blocked":
        first = next(b for n in r.nodes for b in n.blocked)
        count = sum(len(n.blocked) for n in r.nodes)
        more = f" (and {count - 1:,} more evictions refused)" if count > 1 else ""
        if "," in first.pdb:
            return (
                f"{_what(r)} is blocked: {first.pod} is selected by more than one PDB "
                f"({first.pdb}), which the eviction API refuses{more}."
            )
        return (
            f"{_what(r)} is blocked: PDB {first.pdb} allows no disruption of {first.pod}"
            f"{more}; {_tail(r)}."
        )
    if r.stop_reason == "bare-pod":
        node = next(n for n in r.nodes if n.stopped_at)
        return (
            f"{_what(r)} stops at node {node.node}: {node.stopped_at} declares no controller "
            "(use force to delete it; it does not come back)."
        )
    if r.stop_reason == "time-limit":
        return (
            f"{_what(r)} stopped at the analysis's time budget, after "
            f"{plural(r.cycles, 'scheduling cycle')} and {duration_words(r.duration)} on the "
            f"clock: {r.nodes_done:,} of {len(r.nodes):,} nodes done, {_tail(r)}."
        )
    return (
        f"{_what(r)} stopped at the analysis budget of {plural(r.cycle_limit, 'scheduling cycle')}, "
        f"{duration_words(r.duration)} in: {r.nodes_done:,} of {len(r.nodes):,} nodes done, "
        f"{_tail(r)}."
    )
