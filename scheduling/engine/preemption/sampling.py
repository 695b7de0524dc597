"""DryRunPreemption's sampling: where the real dry run starts and where it stops.

kube-scheduler does not dry-run every potential node. GetOffsetAndNumCandidates picks
a random offset in [0, len(potentialNodes)) and a number of candidates,
max(minCandidateNodesPercentage% of the potential nodes, minCandidateNodesAbsolute)
(at most all of them); DryRunPreemption visits potentialNodes[(offset+i) % n] and stops
as soon as it holds that many candidates, at least one of them without a PDB
violation; it keeps at most that many of each kind (two candidateLists of that size),
so violating candidates past the first ones are dropped. The node it nominates is the
best of the candidates it kept.

The answer for every offset follows from one exhaustive dry run: an offset's window
is the run of consecutive candidates (in potential-node order, wrapping around) from
the first candidate at or after it, so offsets between two candidates share one
window; the best of a window is a range minimum over pickOneNodeForPreemption's
lexicographic key (a sparse table answers each in O(1)).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .candidate import Candidate, Criterion, criteria_key

Key = tuple[tuple[int, ...], str]


@dataclass(frozen=True)
class SampledNomination:
    """A node kube-scheduler nominates for ``offsets`` of its ``of`` random offsets."""

    node: str
    offsets: int
    of: int

    @property
    def share(self) -> float:
        return self.offsets / self.of


class _Windows:
    """Where the dry run stops, from each candidate: after the ``want``-th candidate, or
    after the first one without a PDB violation if none came before; never after every
    candidate once. Indices run over the candidates doubled (the run wraps around)."""

    def __init__(self, violating: Sequence[bool], want: int) -> None:
        m = len(violating)
        self.m, self.want = m, want
        doubled = list(violating) * 2
        # clean_before[i]: candidates without a violation among the first i.
        self.clean_before = [0]
        for v in doubled:
            self.clean_before.append(self.clean_before[-1] + (not v))
        # next_clean[i]: the first candidate at or after i without a violation.
        self.next_clean = [2 * m] * (2 * m + 1)
        for i in range(2 * m - 1, -1, -1):
            self.next_clean[i] = i if not doubled[i] else self.next_clean[i + 1]

    def end(self, start: int) -> int:
        last = start + self.m - 1
        if self.clean_before[self.m] == 0:
            # Never a clean one: every node is visited, the first ``want`` are kept.
            return start + min(self.want, self.m) - 1
        if self.want > self.m:
            return last
        end = start + self.want - 1
        if self.clean_before[end + 1] - self.clean_before[start] == 0:
            end = min(self.next_clean[end + 1], last)
        return end


class _RangeBest:
    """The least of any range of a list of integers, in O(1) after an O(m log m) build
    (a sparse table: row k holds the least of each run of 2^k, built by numpy)."""

    def __init__(self, values: list[int]) -> None:
        row = np.asarray(values, dtype=np.int64)
        self.table = [values]
        span = 1
        while 2 * span <= len(values):
            row = np.minimum(row[:-span], row[span:])
            self.table.append(row.tolist())
            span *= 2

    def best(self, lo: int, hi: int) -> int:
        level = (hi - lo + 1).bit_length() - 1
        row = self.table[level]
        return min(row[lo], row[hi - (1 << level) + 1])


def nomination_shares(
    num_potential: int,
    candidates: Sequence[Candidate],
    positions: Sequence[int],
    want: int,
    criteria: Sequence[tuple[Criterion, Callable[[Candidate], int]]],
) -> list[SampledNomination]:
    """The node each of the ``num_potential`` offsets leads to, counted per node, most
    offsets first. ``candidates`` are the exhaustive dry run's, in potential-node order,
    at ``positions`` in that order; ``want`` is the number of candidates the real dry
    run stops at."""
    m = len(candidates)
    if m == 0:
        return []
    # Each candidate's place in pickOneNodeForPreemption's order (its key, then its name:
    # the node this tool takes from a tie), so that windows compare integers.
    keys: list[Key] = [(criteria_key(c, criteria), c.node) for c in candidates]
    by_rank = sorted(range(m), key=keys.__getitem__)
    rank = [0] * m
    for r, i in enumerate(by_rank):
        rank[i] = r
    best = _RangeBest(rank * 2)
    windows = _Windows([c.victims.num_pdb_violations > 0 for c in candidates], want)
    counts: dict[str, int] = {}
    for j in range(m):
        # Offsets after the previous candidate, up to this one, start their window here.
        gap = positions[j] - positions[j - 1] if j else positions[0] - positions[-1] + num_potential
        if m == 1:
            gap = num_potential
        node = candidates[by_rank[best.best(j, windows.end(j))]].node
        counts[node] = counts.get(node, 0) + gap
    return sorted(
        (SampledNomination(node, n, num_potential) for node, n in counts.items()),
        key=lambda s: (-s.offsets, s.node),
    )
