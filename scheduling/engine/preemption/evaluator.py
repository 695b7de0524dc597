"""The generic preemption mechanism (framework/preemption/preemption.go): candidates
from nodes whose status is exactly Unschedulable, a dry run on each, pick one node."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..framework import Code, CycleState, Status
from ..message import fit_error_message
from ..objects import Pod
from ..plugins import names
from ..plugins.registry import POD_DEPENDENT_FILTERS
from ..runtime import Framework
from ..schedule import Diagnosis
from .defaultpreemption import Victims, pod_eligible_to_preempt_others, select_victims_on_node

PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
INT32_OFFSET = 2**31  # MaxInt32 + 1, added per victim by the sum-of-priorities criterion


@dataclass
class Candidate:
    node: str
    victims: Victims
    eliminated_by: str | None = None

    @property
    def highest_priority(self) -> int:
        return self.victims.pods[0].priority

    @property
    def priority_sum(self) -> int:
        return sum(p.priority for p in self.victims.pods)

    @property
    def earliest_start_ns(self) -> int:
        return earliest_pod_start_time(self.victims.pods)[0]

    @property
    def earliest_start(self) -> str | None:
        return earliest_pod_start_time(self.victims.pods)[1]


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
CRITERIA: list[tuple[str, Callable[[Candidate], int]]] = [
    ("pdb_violations", lambda c: -c.victims.num_pdb_violations),
    ("highest_priority", lambda c: -c.highest_priority),
    ("priority_sum", lambda c: -sum(p.priority + INT32_OFFSET for p in c.victims.pods)),
    ("victim_count", lambda c: -len(c.victims.pods)),
    ("start_time", lambda c: c.earliest_start_ns),
]


def pick_one_node_for_preemption(candidates: list[Candidate]) -> tuple[Candidate | None, list[str]]:
    """Apply each criterion to the survivors of the previous one; record what
    eliminated every other node. Returns (winner, nodes still tied at the end, winner included)."""
    if not candidates:
        return None, []
    alive = list(candidates)
    for crit, score in CRITERIA:
        if len(alive) == 1:
            break
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
        c.eliminated_by = "tie"  # the real code takes whichever comes first: any of these
    return alive[0], tied


def rank_candidates(candidates: list[Candidate]) -> list[Candidate]:
    """Best first: the winner, then by how far each got through the criteria."""
    stage = {None: len(CRITERIA) + 1, "tie": len(CRITERIA)}
    for i, (crit, _) in enumerate(CRITERIA):
        stage[crit] = i

    def key(c: Candidate) -> tuple[int, tuple[int, ...], str]:
        return (-stage[c.eliminated_by], tuple(-f(c) for _, f in CRITERIA), c.node)

    return sorted(candidates, key=key)


@dataclass
class PreemptionResult:
    eligible: bool
    ineligible_reason: str | None
    potential_nodes: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    node_statuses: dict[str, Status] = field(default_factory=dict)
    chosen: Candidate | None = None
    tied: list[str] = field(default_factory=list)
    message: str = ""
    fast_path: bool = False
    would_sample: int = 0


def calculate_num_candidates(num_nodes: int, percentage: int, absolute: int) -> int:
    n = num_nodes * percentage // 100
    return min(max(n, absolute), num_nodes)


# Dry runs already done for this pod's template, by node (a simulation's replicas):
# consulted only on the resources-only path, where a node's answer is its own.
DryRunCache = dict[str, tuple[Victims | None, Status]]


def preempt(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    diagnosis: Diagnosis,
    dry_runs: DryRunCache | None = None,
) -> PreemptionResult:
    """Evaluator.Preempt without the API calls; every potential node is dry-run."""
    all_nodes = fw.handle.node_infos
    nominated_status = diagnosis.get(pod.nominated_node_name or "")
    ok, reason = pod_eligible_to_preempt_others(fw, pod, nominated_status)
    if not ok:
        return PreemptionResult(False, reason, message=reason)
    res = PreemptionResult(True, None)
    potential = [ni for ni in all_nodes if diagnosis.get(ni.name).code == Code.UNSCHEDULABLE]
    res.potential_nodes = sorted(ni.name for ni in potential)
    cfg = fw.handle.config
    res.would_sample = calculate_num_candidates(
        len(potential), cfg.min_candidate_nodes_percentage, cfg.min_candidate_nodes_absolute
    )
    present = {p.name for p in fw.filter_plugins}
    active_pod_dependent = {
        n for n in POD_DEPENDENT_FILTERS & present if n not in state.skip_filter_plugins
    }
    res.fast_path = active_pod_dependent <= {names.NODE_RESOURCES_FIT}
    cache = dry_runs if res.fast_path else None
    for ni in potential:
        hit = cache.get(ni.name) if cache is not None else None
        if hit is None:
            state_copy = state if res.fast_path else state.clone()
            hit = select_victims_on_node(fw, state_copy, pod, ni, res.fast_path)
            if cache is not None:
                cache[ni.name] = hit
        victims, status = hit
        if status.is_success() and victims is not None and victims.pods:
            res.candidates.append(Candidate(ni.name, victims))
            continue
        if status.is_success():
            status = Status(Code.ERROR, f'expected at least one victim pod on node "{ni.name}"')
        res.node_statuses[ni.name] = status
    if not res.candidates:
        res.message = fit_error_message(
            len(all_nodes),
            res.node_statuses,
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, PREEMPTION_NOT_HELPFUL),
        )
        return res
    res.chosen, res.tied = pick_one_node_for_preemption(res.candidates)
    res.candidates = rank_candidates(res.candidates)
    return res
