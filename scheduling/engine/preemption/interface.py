"""The preemption policy protocol: framework/preemption's ``Interface``.

The generic evaluator (``evaluator.Evaluator``) owns the mechanism: which nodes to
dry-run, the dry run itself, picking one node. A policy decides the parts that
differ between preemption plugins; ``defaultpreemption.DefaultPreemption`` is the
default profile's. ``CandidatesToVictimsMap`` and the extender calls are left out:
nothing offline consumes them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..cluster import NodeInfo
    from ..framework import CycleState, Status
    from ..objects import Pod
    from .candidate import Candidate, Criterion
    from .victims import Victims

# One criterion of pickOneNodeForPreemption: a score to maximise over the candidates.
ScoreFunc = Callable[["Candidate"], int]


class Interface(Protocol):
    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """Where the dry run starts among the potential nodes, and how many candidates
        it looks for before it stops."""
        ...

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status
    ) -> tuple[bool, str]:
        """Whether the pod may preempt at all, and kube-scheduler's reason if not."""
        ...

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[Victims | None, Status]:
        """The fewest pods of the node whose eviction lets the pod fit there. ``state``
        and ``node_info`` are the caller's: the policy copies what it changes."""
        ...

    def ordered_score_funcs(self) -> Sequence[tuple[Criterion, ScoreFunc]]:
        """pickOneNodeForPreemption's criteria, applied in order to the survivors."""
        ...
