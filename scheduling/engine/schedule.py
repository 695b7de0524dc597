"""schedulePod: PreFilter, Filter over every node (with nominated pods), Score, selectHost."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .cluster import NodeInfo
from .framework import Code, CycleState, Status
from .objects import Pod
from .runtime import Framework


class HostSelection(enum.StrEnum):
    """How schedulePod chose the node of a pod that fits."""

    # evaluateNominatedNode: the pod's nominated node passed every filter; no scoring.
    NOMINATED_NODE = "nominated-node"
    # Exactly one feasible node: taken without scoring.
    SINGLE_FEASIBLE_NODE = "single-feasible-node"
    # selectHost: the highest total score, a tie broken at random.
    SCORED = "scored"


# The names the scheduling loop (simulate/) compares against.
HOST_NOMINATED = HostSelection.NOMINATED_NODE
HOST_SINGLE = HostSelection.SINGLE_FEASIBLE_NODE
HOST_SCORED = HostSelection.SCORED


MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(percentage: int, num_all_nodes: int) -> int:
    """numFeasibleNodesToFind: after how many feasible nodes the real Filter phase stops."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


@dataclass
class Diagnosis:
    """Which status every node got, as the real Diagnosis.NodeToStatus holds it."""

    node_to_status: dict[str, Status] = field(default_factory=dict)
    # Status of nodes not evaluated because PreFilter narrowed the node set.
    absent_status: Status = field(
        default_factory=lambda: Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    )
    pre_filter_msg: str = ""
    # A PreFilter plugin rejected the pod as UnschedulableAndUnresolvable: the plugins
    # after it (DynamicResources among them) never ran their PreFilter.
    pre_filter_aborted: bool = False

    def get(self, node: str) -> Status:
        return self.node_to_status.get(node, self.absent_status)


@dataclass
class ScheduleResult:
    feasible: list[NodeInfo]
    diagnosis: Diagnosis
    host: str | None = None
    host_selection: HostSelection | None = None
    scores: dict[str, dict[str, int]] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    top_nodes: list[str] = field(default_factory=list)


def find_nodes_that_fit(
    fw: Framework, state: CycleState, pod: Pod
) -> tuple[list[NodeInfo], Diagnosis, bool]:
    """findNodesThatFitPod over every node (percentageOfNodesToScore=100).

    Returns (feasible nodes, diagnosis, nominated node passed).
    """
    all_nodes = fw.handle.node_infos
    diagnosis = Diagnosis()
    pre_res, status, narrowed = fw.run_pre_filter(state, pod, all_nodes)
    if not status.is_success():
        diagnosis.pre_filter_msg = status.message()
        diagnosis.pre_filter_aborted = status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        for ni in all_nodes:
            diagnosis.node_to_status[ni.name] = status
        return [], diagnosis, False
    nodes = all_nodes
    if pre_res is not None and pre_res.node_names is not None:
        names = pre_res.node_names
        nodes = [ni for ni in all_nodes if ni.name in names]
        diagnosis.absent_status = Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(narrowed))}]",
        )
    nominated_ok = False
    nominated = pod.nominated_node_name
    if nominated:
        # evaluateNominatedNode runs before the PreFilter result narrows the nodes, and
        # records a failure in the diagnosis: a nominated node outside that result keeps
        # its own filter status instead of the absent-node one.
        nominated_info = fw.handle.node_info(nominated)
        if nominated_info is not None:
            s = fw.run_filter_with_nominated_pods(state, pod, nominated_info)
            if s.is_success():
                nominated_ok = True
            else:
                diagnosis.node_to_status[nominated] = s
    feasible: list[NodeInfo] = []
    # With no pod nominated anywhere, RunFilterPluginsWithNominatedPods adds nothing and
    # runs the filters once on the node as it is: run them directly (the same status).
    run = fw.run_filter_with_nominated_pods if fw.handle.any_nominated_pods() else fw.run_filter
    for ni in nodes:
        s = run(state, pod, ni)
        if s.is_success():
            feasible.append(ni)
        else:
            diagnosis.node_to_status[ni.name] = s
    return feasible, diagnosis, nominated_ok


def schedule_pod(fw: Framework, state: CycleState, pod: Pod) -> ScheduleResult:
    feasible, diagnosis, nominated_ok = find_nodes_that_fit(fw, state, pod)
    result = ScheduleResult(feasible=feasible, diagnosis=diagnosis)
    if not feasible:
        return result
    # Scores are computed for the explanation even when the real code skips them.
    result.scores = fw.run_score(state, pod, feasible)
    result.totals = {n: sum(s.values()) for n, s in result.scores.items()}
    best = max(result.totals.values())
    result.top_nodes = sorted(n for n, t in result.totals.items() if t == best)
    if nominated_ok:
        result.host = pod.nominated_node_name
        result.host_selection = HostSelection.NOMINATED_NODE
    elif len(feasible) == 1:
        result.host = feasible[0].name
        result.host_selection = HostSelection.SINGLE_FEASIBLE_NODE
    else:
        # selectHost picks at random among equal totals; the engine takes the first by name.
        result.host = result.top_nodes[0]
        result.host_selection = HostSelection.SCORED
    return result
