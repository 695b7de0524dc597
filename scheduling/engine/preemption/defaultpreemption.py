"""DefaultPreemption's policy (plugins/defaultpreemption): eligibility, how many
candidates to look for, SelectVictimsOnNode and the tie-break criteria."""

from __future__ import annotations

from collections.abc import Sequence

from ..cluster import NodeInfo
from ..framework import Code, CycleState, Status
from ..objects import PREEMPT_NEVER, Pod
from ..plugins import names
from ..plugins.registry import POD_DEPENDENT_FILTERS
from ..runtime import Framework
from .candidate import CRITERIA, Criterion
from .interface import ScoreFunc
from .victims import (
    ERR_NO_VICTIMS,
    NOT_ELIGIBLE_NEVER,
    IntegerSelection,
    Victims,
    importance_key,
    is_preemption_allowed,
    select_victims_on_node,
)

__all__ = [
    "ERR_NO_VICTIMS",
    "NOT_ELIGIBLE_NEVER",
    "NOT_ELIGIBLE_TERMINATING",
    "DefaultPreemption",
    "Victims",
    "calculate_num_candidates",
    "importance_key",
    "is_preemption_allowed",
    "pod_eligible_to_preempt_others",
    "select_victims_on_node",
]

NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."


def pod_eligible_to_preempt_others(
    fw: Framework, pod: Pod, nominated_node_status: Status
) -> tuple[bool, str]:
    if pod.preemption_policy == PREEMPT_NEVER:
        return False, NOT_ELIGIBLE_NEVER
    nom = pod.nominated_node_name
    if nom:
        # The nominated node is hopeless anyway: look for another one.
        if nominated_node_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return True, ""
        ni = fw.handle.node_info(nom)
        if ni is not None:
            for p in ni.pods:
                if is_preemption_allowed(p, pod) and p.terminating_by_preemption:
                    return False, NOT_ELIGIBLE_TERMINATING
    return True, ""


def calculate_num_candidates(num_nodes: int, percentage: int, absolute: int) -> int:
    n = num_nodes * percentage // 100
    return min(max(n, absolute), num_nodes)


class DefaultPreemption:
    """The default profile's preemption policy (implements ``interface.Interface``)."""

    name = names.DEFAULT_PREEMPTION

    def __init__(self, fw: Framework) -> None:
        self.fw = fw
        # The dry run's pod and cycle, and how it selects victims there: a dry run asks
        # for every potential node in turn, with the same pod and state.
        self._selecting: tuple[CycleState, Pod, IntegerSelection | None] | None = None
        # DynamicResources' Filter, re-asked on the integer path once victims are found.
        self._dra = next((p for p in fw.filter_plugins if p.name == names.DYNAMIC_RESOURCES), None)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """The real offset is random; the engine starts at the first node (it dry-runs
        every potential node anyway and reports the count the real scheduler stops at)."""
        cfg = self.fw.handle.config
        return 0, calculate_num_candidates(
            num_nodes, cfg.min_candidate_nodes_percentage, cfg.min_candidate_nodes_absolute
        )

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status
    ) -> tuple[bool, str]:
        return pod_eligible_to_preempt_others(self.fw, pod, nominated_node_status)

    def resources_only(self, state: CycleState) -> bool:
        """Whether NodeResourcesFit is the only active filter that reads the node's pods:
        then victims are selected on integers instead of NodeInfo copies."""
        present = {p.name for p in self.fw.filter_plugins}
        active = {n for n in POD_DEPENDENT_FILTERS & present if n not in state.skip_filter_plugins}
        return active <= {names.NODE_RESOURCES_FIT}

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[Victims | None, Status]:
        selecting = self._selecting
        if selecting is None or selecting[0] is not state or selecting[1] is not pod:
            fast = IntegerSelection(self.fw, pod) if self.resources_only(state) else None
            selecting = self._selecting = (state, pod, fast)
        if selecting[2] is not None:
            victims, status = selecting[2].select(node_info)
            if victims is not None:
                # The filters after NodeResourcesFit that read nothing of the node's pods
                # still run once the victims are gone: DynamicResources' answer is the
                # one it gave at Filter (its devices in use are fixed at PreFilter).
                dra = self._dra
                if dra is not None and dra.name not in state.skip_filter_plugins:
                    s = dra.filter(state, pod, node_info)
                    if not s.is_success():
                        return None, Status(s.code, *s.reasons, plugin=dra.name)
            return victims, status
        return select_victims_on_node(self.fw, state.clone(), pod, node_info, False)

    def ordered_score_funcs(self) -> Sequence[tuple[Criterion, ScoreFunc]]:
        return CRITERIA
