"""DryRunPreemption and SelectCandidate for a template's replicas, kept up to date
node by node.

On the resources-only path a node's dry run is its own (ReplicaCache keeps it until
the node changes), and so is its standing in pickOneNodeForPreemption: the nodes it
ends with are those of the least criteria key (candidate.criteria_key). Each cycle of
an exhaustive dry run still visited every potential node (1,661 of 5,000 on the
benchmark cluster) to list the candidates and pick one. This index keeps, per
potential node, the key of its candidate or the status of a node that is none, and
each cycle dry-runs only the potential nodes changed since the last one; the answer
is the evaluator's (Evaluator.preempt with ranked=False and no sampling).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence

from ..cluster import NodeInfo
from ..framework import Code, CycleState, Status
from ..message import fit_error_message
from ..objects import Pod
from ..preemption.candidate import Candidate, criteria_key
from ..preemption.defaultpreemption import DefaultPreemption, Victims
from ..preemption.evaluator import PREEMPTION_NOT_HELPFUL, DryRunCache, PreemptionResult
from ..runtime import Framework
from ..schedule import Diagnosis


class DryRunIndex:
    """The potential nodes (status exactly Unschedulable) and what their dry runs said."""

    def __init__(self) -> None:
        self.potential: set[int] = set()
        self.names: list[str] = []  # the potential nodes' names, sorted
        self.undecided: set[int] = set()  # potential, not dry-run since they changed
        self.keys: dict[int, tuple[int, ...]] = {}
        self.victims: dict[int, Victims] = {}
        self.failed: dict[str, Status] = {}  # potential nodes that are no candidate

    def update(self, i: int, name: str, status: Status | None) -> None:
        """Node ``i`` has a new filter status: its dry run, if any, no longer holds."""
        if i in self.potential:
            self.potential.discard(i)
            self.undecided.discard(i)
            self.keys.pop(i, None)
            self.victims.pop(i, None)
            self.failed.pop(name, None)
            del self.names[bisect_left(self.names, name)]
        if status is not None and status.code == Code.UNSCHEDULABLE:
            self.potential.add(i)
            self.undecided.add(i)
            insort(self.names, name)

    def preempt(
        self,
        fw: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        infos: Sequence[NodeInfo],
        dry_runs: DryRunCache,
    ) -> PreemptionResult | None:
        """Evaluator.preempt's answer as a simulation's cycle reads it; None where this
        index does not apply (a real offset is configured, or victims are not selected
        on integers): the caller then runs the evaluator."""
        policy = DefaultPreemption(fw)
        if fw.handle.config.preemption_offset is not None or not policy.resources_only(state):
            return None
        nominated_status = diagnosis.get(pod.nominated_node_name or "")
        ok, reason = policy.pod_eligible_to_preempt_others(pod, nominated_status)
        if not ok:
            return PreemptionResult(False, reason, message=reason)
        criteria = policy.ordered_score_funcs()
        for i in self.undecided:
            ni = infos[i]
            hit = dry_runs.get(ni.name)
            if hit is None:
                hit = dry_runs[ni.name] = policy.select_victims_on_node(state, pod, ni)
            victims, status = hit
            if status.is_success() and victims is not None and victims.pods:
                self.keys[i] = criteria_key(Candidate(ni.name, victims), criteria)
                self.victims[i] = victims
                continue
            if status.is_success():
                status = Status(Code.ERROR, f'expected at least one victim pod on node "{ni.name}"')
            self.failed[ni.name] = status
        self.undecided.clear()
        res = PreemptionResult(True, None, fast_path=True)
        res.potential_nodes = list(self.names)
        res.node_statuses = dict(self.failed)
        res.would_sample = policy.get_offset_and_num_candidates(len(self.names))[1]
        if not self.keys:
            res.message = fit_error_message(
                len(infos),
                res.node_statuses,
                Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, PREEMPTION_NOT_HELPFUL),
            )
            return res
        best = min(self.keys.values())
        # The tie is broken by name, as pick_one_node_for_preemption does.
        tied = sorted((infos[i].name, i) for i, key in self.keys.items() if key == best)
        name, i = tied[0]
        res.chosen, res.tied = Candidate(name, self.victims[i]), [n for n, _ in tied]
        return res
