"""Candidates and pickOneNodeForPreemption's criteria, each a small scoring function.

One list (``CRITERIA``) serves the decision, the explanation and the page: the
criterion that eliminated a node is recorded on it as a ``Criterion``, whose
label and wording every renderer reads from here.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ..objects import Pod
from .victims import Victims

INT32_OFFSET = 2**31  # MaxInt32 + 1, added per victim by the sum-of-priorities criterion


class Criterion(enum.StrEnum):
    """Why a candidate node lost: the criterion of pickOneNodeForPreemption that
    eliminated it, or ``TIE`` when it survived them all but was not taken."""

    PDB_VIOLATIONS = "pdb_violations"
    HIGHEST_PRIORITY = "highest_priority"
    PRIORITY_SUM = "priority_sum"
    VICTIM_COUNT = "victim_count"
    START_TIME = "start_time"
    TIE = "tie"

    @property
    def label(self) -> str:
        """The column title (the page and the CLI text use this and nothing else)."""
        return _LABELS[self]

    @property
    def rule(self) -> str:
        """The criterion in one sentence, as pickOneNodeForPreemption's comments put it."""
        return _RULES[self]

    @property
    def win_reason(self) -> str:
        """Why the node that survived this criterion beat the one it eliminated."""
        return _WIN_REASONS[self]


_LABELS = {
    Criterion.PDB_VIOLATIONS: "PDB violations",
    Criterion.HIGHEST_PRIORITY: "Highest victim priority",
    Criterion.PRIORITY_SUM: "Sum of priorities",
    Criterion.VICTIM_COUNT: "Number of victims",
    Criterion.START_TIME: "Start time",
    Criterion.TIE: "Tie",
}
_RULES = {
    Criterion.PDB_VIOLATIONS: "Fewest PodDisruptionBudget violations: the scheduler first "
    "prefers the node where evicting the victims breaks the fewest disruption budgets.",
    Criterion.HIGHEST_PRIORITY: "Lowest highest-priority victim: among those, it prefers the "
    "node whose most important victim is the least important.",
    Criterion.PRIORITY_SUM: "Smallest sum of victim priorities: then the node where the "
    "victims' priorities add up to the least. kube-scheduler adds 2^31 to each priority before "
    "summing, so with negative priorities a node with more victims still counts as the larger sum.",
    Criterion.VICTIM_COUNT: "Fewest victims: then the node where the fewest pods have to go.",
    Criterion.START_TIME: "Latest start of the highest-priority victims: then the node whose "
    "most important victims started most recently, so the longest-running work is kept.",
    Criterion.TIE: "Still tied: kube-scheduler picks one of the remaining nodes at random; this "
    "tool picks the first by name and lists the whole tie set.",
}
_WIN_REASONS = {
    Criterion.PDB_VIOLATIONS: "evicting its victims breaks fewer PodDisruptionBudgets",
    Criterion.HIGHEST_PRIORITY: "its most important victim has a lower priority",
    Criterion.PRIORITY_SUM: "its victims' priorities add up to less",
    Criterion.VICTIM_COUNT: "fewer pods have to go",
    Criterion.START_TIME: "its highest-priority victim started most recently",
    Criterion.TIE: "the two are tied on every criterion and kube-scheduler picks one at random",
}


@dataclass
class Candidate:
    """A node where the pod fits once ``victims`` are gone (preemption.Candidate)."""

    node: str
    victims: Victims
    eliminated_by: Criterion | None = None
    # criteria_key's answer, with the criteria it was for (sampling and ranking both ask).
    keyed: tuple[object, tuple[int, ...]] | None = field(default=None, repr=False, compare=False)

    @property
    def highest_priority(self) -> int:
        return self.victims.pods[0].priority

    @property
    def priority_sum(self) -> int:
        return victim_summary(self.victims).priority_sum

    @property
    def earliest_start_ns(self) -> int:
        return victim_summary(self.victims).earliest_start_ns

    @property
    def earliest_start(self) -> str | None:
        return victim_summary(self.victims).earliest_start


class VictimSummary(NamedTuple):
    priority_sum: int
    offset_priority_sum: int  # the sum pickOneNodeForPreemption compares (2^31 added per pod)
    earliest_start_ns: int
    earliest_start: str | None


def victim_summary(victims: Victims) -> VictimSummary:
    """The criteria's sums and earliest start of one set of victims, computed once."""
    got = victims.summary
    if isinstance(got, VictimSummary):
        return got
    pods = victims.pods
    total = sum([p.priority for p in pods])
    if victims.by_importance:
        # In importance order the first pod has the highest priority and, of the pods
        # of that priority, the earliest start (the first such, as the loop keeps).
        first = pods[0]
        start_ns, start = first.start_ns, first.start_time
    else:
        start_ns, start = earliest_pod_start_time(pods)
    summary = VictimSummary(total, total + INT32_OFFSET * len(pods), start_ns, start)
    victims.summary = summary
    return summary


def earliest_pod_start_time(pods: list[Pod]) -> tuple[int, str | None]:
    """util.GetEarliestPodStartTime: earliest start among the highest-priority victims."""
    first = pods[0]
    best_ns, best, max_prio = first.start_ns, first.start_time, first.priority
    for p in pods:
        if p.priority == max_prio:
            if p.start_ns < best_ns:
                best_ns, best = p.start_ns, p.start_time
        elif p.priority > max_prio:
            max_prio, best_ns, best = p.priority, p.start_ns, p.start_time
    return best_ns, best


# pickOneNodeForPreemption's criteria, in order; each gives a score to maximise.
CRITERIA: list[tuple[Criterion, Callable[[Candidate], int]]] = [
    (Criterion.PDB_VIOLATIONS, lambda c: -c.victims.num_pdb_violations),
    (Criterion.HIGHEST_PRIORITY, lambda c: -c.highest_priority),
    (
        Criterion.PRIORITY_SUM,
        lambda c: -victim_summary(c.victims).offset_priority_sum,
    ),
    (Criterion.VICTIM_COUNT, lambda c: -len(c.victims.pods)),
    (Criterion.START_TIME, lambda c: c.earliest_start_ns),
]


def criteria_key(
    candidate: Candidate,
    criteria: Sequence[tuple[Criterion, Callable[[Candidate], int]]] = CRITERIA,
) -> tuple[int, ...]:
    """The candidate's scores, negated: pickOneNodeForPreemption keeps, criterion after
    criterion, the candidates of the best score, so the ones it ends with are those of
    the least key (compared as tuples), whatever the others are."""
    keyed = candidate.keyed
    if keyed is not None and keyed[0] is criteria:
        return keyed[1]
    if criteria is CRITERIA:
        # The same five numbers as the scores give, read directly (thousands of candidates).
        victims = candidate.victims
        summary = victim_summary(victims)
        key: tuple[int, ...] = (
            victims.num_pdb_violations,
            victims.pods[0].priority,
            summary.offset_priority_sum,
            len(victims.pods),
            -summary.earliest_start_ns,
        )
    else:
        key = tuple(-score(candidate) for _, score in criteria)
    candidate.keyed = (criteria, key)
    return key


def pick_one_node_for_preemption(
    candidates: list[Candidate],
    criteria: Sequence[tuple[Criterion, Callable[[Candidate], int]]] = CRITERIA,
) -> tuple[Candidate | None, list[str]]:
    """Apply each criterion to the survivors of the previous one; record what
    eliminated every other node. Returns (winner, nodes still tied at the end, winner included)."""
    if not candidates:
        return None, []
    alive = list(candidates)
    # When every candidate already holds its criteria_key for these criteria (the
    # sampling computed them), each score is its entry negated: the same numbers without
    # a call per candidate and criterion. Otherwise the scores are asked for as before
    # (a key would compute every criterion where the first may decide).
    keyed = all(c.keyed is not None and c.keyed[0] is criteria for c in alive)
    for place, (crit, score) in enumerate(criteria):
        if len(alive) == 1:
            break
        if keyed:
            scores = {c.node: -criteria_key(c, criteria)[place] for c in alive}
        else:
            scores = {c.node: score(c) for c in alive}
        best = max(scores.values())
        for c in alive:
            if scores[c.node] != best:
                c.eliminated_by = crit
        alive = [c for c in alive if scores[c.node] == best]
    alive.sort(key=lambda c: c.node)
    # Every node pickOneNodeForPreemption could return, the winner included.
    tied = [c.node for c in alive]
    for c in alive[1:]:
        c.eliminated_by = Criterion.TIE  # the real code takes whichever comes first
    return alive[0], tied


def rank_candidates(
    candidates: list[Candidate],
    criteria: Sequence[tuple[Criterion, Callable[[Candidate], int]]] = CRITERIA,
) -> list[Candidate]:
    """Best first: the winner, then by how far each got through the criteria."""
    stage: dict[Criterion | None, int] = {None: len(criteria) + 1, Criterion.TIE: len(criteria)}
    for i, (crit, _) in enumerate(criteria):
        stage[crit] = i

    def key(c: Candidate) -> tuple[int, tuple[int, ...], str]:
        return (-stage[c.eliminated_by], criteria_key(c, criteria), c.node)

    return sorted(candidates, key=key)
