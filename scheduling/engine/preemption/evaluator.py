"""The generic preemption mechanism (framework/preemption/preemption.go): candidates
from nodes whose status is exactly Unschedulable, a dry run on each, pick one node.

``Evaluator`` keeps Go's method names (find_candidates, dry_run_preemption,
select_candidate) so a scheduling loop can call each step on a cluster and a pod;
the policy (``interface.Interface``) is DefaultPreemption unless one is given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..cluster import Cluster, NodeInfo
from ..config import EngineConfig
from ..framework import Code, CycleState, Handle, Status
from ..message import fit_error_message, post_filter_message
from ..objects import Pod
from ..plugins.dynamicresources import PostFilterAnswer
from ..runtime import Framework
from ..schedule import Diagnosis
from .candidate import (
    CRITERIA,
    INT32_OFFSET,
    Candidate,
    Criterion,
    earliest_pod_start_time,
    pick_one_node_for_preemption,
    rank_candidates,
)
from .defaultpreemption import DefaultPreemption, Victims, calculate_num_candidates
from .interface import Interface
from .sampling import SampledNomination, nomination_shares

__all__ = [
    "CRITERIA",
    "INT32_OFFSET",
    "PREEMPTION_DISABLED",
    "PREEMPTION_NOT_HELPFUL",
    "Candidate",
    "Criterion",
    "DryRunCache",
    "Evaluator",
    "PreemptionResult",
    "calculate_num_candidates",
    "earliest_pod_start_time",
    "pick_one_node_for_preemption",
    "post_filter",
    "post_filter_suffix",
    "preempt",
    "rank_candidates",
]

PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
PREEMPTION_DISABLED = (
    "preemption is disabled in this profile: its PostFilter runs no DefaultPreemption"
)


@dataclass
class PreemptionResult:
    """What Preempt decided, with every step kept for the explanation."""

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
    # Per node, the real scheduler's random offsets that nominate it (exhaustive runs).
    sampling: list[SampledNomination] = field(default_factory=list)
    offset: int | None = None  # the offset given (EngineConfig.preemption_offset)
    # DynamicResources' PostFilter, which runs first (None: the profile has none).
    dynamic_resources: PostFilterAnswer | None = None
    # A PostFilter plugin before DefaultPreemption returned Error (its message is
    # ``message``): preemption never ran and no nomination is made or cleared.
    post_filter_error: bool = False


# Dry runs already done for this pod's template, by node (a simulation's replicas):
# consulted only on the resources-only path, where a node's answer is its own.
DryRunCache = dict[str, tuple[Victims | None, Status]]


class Evaluator:
    """preemption.Evaluator without the API calls, the extenders and async preemption."""

    def __init__(
        self,
        fw: Framework,
        policy: Interface | None = None,
        *,
        dry_runs: DryRunCache | None = None,
        shares: bool = False,
        ranked: bool = True,
    ) -> None:
        self.fw = fw
        # Work out where each of the real scheduler's random offsets leads (a single
        # what-if shows it; a simulation's cycles do not need it).
        self.shares = shares
        # Every candidate ranked best first (the tie-break table of a single what-if); a
        # simulation's cycle reads only the chosen node and its tie set.
        self.ranked = ranked
        self.policy: Interface = policy if policy is not None else DefaultPreemption(fw)
        self.dry_runs = dry_runs

    def resources_only(self, state: CycleState) -> bool:
        """Whether the default policy selects victims on integers for this cycle."""
        policy = self.policy
        return isinstance(policy, DefaultPreemption) and policy.resources_only(state)

    @classmethod
    def for_cluster(cls, cluster: Cluster, config: EngineConfig | None = None) -> Evaluator:
        """An evaluator over the default profile on ``cluster`` (never mutated)."""
        return cls(Framework(Handle(cluster, config or EngineConfig())))

    def find_candidates(
        self, state: CycleState, pod: Pod, diagnosis: Diagnosis
    ) -> tuple[list[Candidate], dict[str, Status], list[NodeInfo]]:
        """findCandidates: (candidates, dry-run status of every other potential node
        visited, the potential nodes: those whose filter status is exactly Unschedulable).
        Every potential node is dry-run unless the config gives the real offset."""
        potential = [
            ni
            for ni in self.fw.handle.node_infos
            if diagnosis.get(ni.name).code == Code.UNSCHEDULABLE
        ]
        if not potential:
            return [], {}, []
        offset = self.fw.handle.config.preemption_offset
        if offset is None:
            candidates, statuses = self.dry_run_preemption(state, pod, potential)
        else:
            want = self.policy.get_offset_and_num_candidates(len(potential))[1]
            candidates, statuses = self.dry_run_preemption(
                state, pod, potential, offset % len(potential), want
            )
        return candidates, statuses, potential

    def dry_run_preemption(
        self,
        state: CycleState,
        pod: Pod,
        potential_nodes: Sequence[NodeInfo],
        offset: int = 0,
        num_candidates: int | None = None,
    ) -> tuple[list[Candidate], dict[str, Status]]:
        """DryRunPreemption from ``potential_nodes[offset]`` on, wrapping around; with
        ``num_candidates`` it stops as the real one does, once it holds that many
        candidates, one of them without a PDB violation (without: every node)."""
        candidates: list[Candidate] = []
        statuses: dict[str, Status] = {}
        cache = self.dry_runs if self.dry_runs is not None and self.resources_only(state) else None
        n = len(potential_nodes)
        clean: list[Candidate] = []
        violating: list[Candidate] = []
        for i in range(n):
            ni = potential_nodes[(offset + i) % n]
            hit = cache.get(ni.name) if cache is not None else None
            if hit is None:
                hit = self.policy.select_victims_on_node(state, pod, ni)
                if cache is not None:
                    cache[ni.name] = hit
            victims, status = hit
            if status.is_success() and victims is not None and victims.pods:
                if num_candidates is None:
                    candidates.append(Candidate(ni.name, victims))
                    continue
                # Two candidateLists of num_candidates items each: a candidate beyond
                # that, of its kind, is dropped.
                kept = clean if victims.num_pdb_violations == 0 else violating
                if len(kept) < num_candidates:
                    kept.append(Candidate(ni.name, victims))
                if clean and len(clean) + len(violating) >= num_candidates:
                    break
                continue
            if status.is_success():
                status = Status(Code.ERROR, f'expected at least one victim pod on node "{ni.name}"')
            statuses[ni.name] = status
        if num_candidates is not None:
            candidates = clean + violating
        return candidates, statuses

    def select_candidate(self, candidates: list[Candidate]) -> tuple[Candidate | None, list[str]]:
        """SelectCandidate: pickOneNodeForPreemption over the policy's criteria.
        Returns (the chosen candidate, every node still tied with it, itself included);
        each other candidate records the criterion that eliminated it."""
        return pick_one_node_for_preemption(candidates, self.policy.ordered_score_funcs())

    def preempt(self, state: CycleState, pod: Pod, diagnosis: Diagnosis) -> PreemptionResult:
        """Evaluator.Preempt: eligibility, candidates, one node; nothing is deleted."""
        nominated_status = diagnosis.get(pod.nominated_node_name or "")
        ok, reason = self.policy.pod_eligible_to_preempt_others(pod, nominated_status)
        if not ok:
            return PreemptionResult(False, reason, message=reason)
        res = PreemptionResult(True, None)
        policy = self.policy
        res.fast_path = self.resources_only(state)
        candidates, res.node_statuses, potential = self.find_candidates(state, pod, diagnosis)
        res.potential_nodes = sorted(ni.name for ni in potential)
        res.would_sample = policy.get_offset_and_num_candidates(len(potential))[1]
        offset = self.fw.handle.config.preemption_offset
        if offset is None and self.shares:
            where = {ni.name: i for i, ni in enumerate(potential)}
            res.sampling = nomination_shares(
                len(potential),
                candidates,
                [where[c.node] for c in candidates],
                res.would_sample,
                policy.ordered_score_funcs(),
            )
        res.offset = None if offset is None or not potential else offset % len(potential)
        if not candidates:
            res.message = fit_error_message(
                len(self.fw.handle.node_infos),
                res.node_statuses,
                Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, PREEMPTION_NOT_HELPFUL),
            )
            return res
        res.chosen, res.tied = self.select_candidate(candidates)
        if self.ranked:
            res.candidates = rank_candidates(candidates, policy.ordered_score_funcs())
        return res


def preempt(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    diagnosis: Diagnosis,
    dry_runs: DryRunCache | None = None,
) -> PreemptionResult:
    """Preempt with the default policy, as a simulation's cycle does: the candidates are
    not ranked (``candidates`` stays empty; ``chosen`` and ``tied`` are the answer)."""
    return Evaluator(fw, dry_runs=dry_runs, ranked=False).preempt(state, pod, diagnosis)


def post_filter(
    fw: Framework,
    run: Callable[[], PreemptionResult],
    state: CycleState | None = None,
    pod: Pod | None = None,
) -> PreemptionResult:
    """RunPostFilterPlugins' answer: DefaultPreemption's (``run``) when the profile
    has it (without it no nomination is made or changed), and DynamicResources'
    PostFilter with the cycle's ``state``. The latter is the first PostFilter plugin
    and its words come first, but kube-scheduler v1.35's answers show it deallocating
    claims that only the preemption dry run found unavailable: it is asked here once
    the dry run has recorded them in the shared state. Its one Error, when its
    PreFilter never ran (an earlier PreFilter plugin rejected the pod outright, so
    the cycle state holds nothing of it), does not depend on the dry run: it is asked
    for first, and ends RunPostFilterPlugins before DefaultPreemption runs."""
    if state is not None and pod is not None:
        first = fw.run_dynamic_resources_post_filter(state, pod)
        if first is not None and first.error:
            return PreemptionResult(
                True, None, message=first.message, dynamic_resources=first, post_filter_error=True
            )
    res = PreemptionResult(False, PREEMPTION_DISABLED) if not fw.preemption else run()
    if state is not None and pod is not None:
        res.dynamic_resources = fw.run_dynamic_resources_post_filter(state, pod)
    return res


def post_filter_suffix(fw: Framework, pre: PreemptionResult) -> str:
    """The PostFilter plugins' messages FitError.Error() ends with (none when a node
    was nominated)."""
    if pre.chosen is not None:
        return ""
    if pre.post_filter_error:
        return pre.message
    dra = pre.dynamic_resources
    return post_filter_message(
        pre.message if fw.preemption else None,
        fw.dynamic_resources_post_filter,
        dra.message if dra is not None else None,
    )
