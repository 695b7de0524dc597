"""SelectVictimsOnNode: remove every lower-priority pod, check the pod fits, then
reprieve as many as possible (PDB-violating ones first, most important first).

The algorithm is written once (``select_victims``) over a ``VictimSimulation``: what
the node looks like as pods leave and come back. Two simulations exist: the general
one (a NodeInfo copy, every filter with the nominated pods, the PreFilter
extensions), and the resources-only one (integer bookkeeping), which gives the same
answer whenever NodeResourcesFit is the only filter that reads the node's pods.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from ..cluster import Cluster, NodeInfo
from ..framework import SUCCESS, Code, CycleState, Status
from ..gosort import slice_sort
from ..objects import PODS, Pod
from ..plugins import names
from ..plugins.noderesources import fit_requests, fits_request_on

if TYPE_CHECKING:
    from ..runtime import Framework

ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
# pdqsort_func's maxInsertion: up to this many elements sort.Slice is an insertion sort.
GO_INSERTION_SORT_MAX = 12
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
# Priority cuts whose LowerPods a node keeps (about 10 MiB each on 5,000 nodes of 30 pods).
LOWER_CUTS_KEPT = 4


def importance_key(pod: Pod) -> tuple[int, int]:
    """Sort key for util.MoreImportantPod: higher priority first, then earlier start."""
    return (-pod.priority, pod.start_ns)


def more_important_pod(a: Pod, b: Pod) -> bool:
    """util.MoreImportantPod: higher priority, then started earlier; two pods of one
    priority started in the same second are equal (neither is more important)."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return a.start_ns < b.start_ns


def sort_by_importance(pods: list[Pod]) -> None:
    """sort.Slice(pods, MoreImportantPod), in place: Go's unstable order for equal pods,
    which decides which of several equally important pods is reprieved first.

    Python's stable sort gives the same order whenever no two pods are equal (a total
    order has one sorted arrangement) and whenever there are at most 12 (Go then sorts
    by insertion, which is stable): the port runs only where it can differ."""
    if len(pods) <= GO_INSERTION_SORT_MAX:
        pods.sort(key=importance_key)
        return
    keys = [(-p.priority, p.start_ns) for p in pods]  # importance_key, inlined: a hot path
    if len(set(keys)) < len(keys):
        slice_sort(pods, more_important_pod)
        return
    order = sorted(range(len(pods)), key=keys.__getitem__)
    pods[:] = [pods[i] for i in order]


def is_preemption_allowed(victim: Pod, preemptor: Pod) -> bool:
    return victim.priority < preemptor.priority


def filter_pods_with_pdb_violation(
    cluster: Cluster, pods: Sequence[Pod]
) -> tuple[list[Pod], list[Pod]]:
    """filterPodsWithPDBViolation: budgets decrement per matched pod (unless already in
    disruptedPods); a pod is violating once a matched budget goes below zero."""
    violates = _pdb_violations(cluster, pods, [cluster.pdbs_for_pod(p) for p in pods])
    violating = [p for p, v in zip(pods, violates, strict=True) if v]
    non_violating = [p for p, v in zip(pods, violates, strict=True) if not v]
    return violating, non_violating


def _pdb_violations(
    cluster: Cluster, pods: Sequence[Pod], matched: Sequence[tuple[int, ...]]
) -> list[bool]:
    """filterPodsWithPDBViolation's verdict for each pod, given the budgets each matches."""
    allowed: dict[int, int] = {}
    pdbs = cluster.pdbs
    out: list[bool] = []
    for pod, indexes in zip(pods, matched, strict=True):
        violated = False
        for i in indexes:
            pdb = pdbs[i]
            if pod.name in pdb.disrupted_pods:
                continue
            left = allowed.get(i, pdb.disruptions_allowed) - 1
            allowed[i] = left
            if left < 0:
                violated = True
        out.append(violated)
    return out


class ImportanceOrder:
    """A node's pods in sort_by_importance's order, with what a dry run reads of each.

    Made once per unchanged node (NodeInfo.preemption_order): a preemptor's potential
    victims, the pods of lower priority, are then a suffix of it, already sorted. The
    suffix is sort.Slice's order whenever Go's cannot differ: no two of the node's pods
    equally important, or at most 12 victims (insertion sort, stable, as this sort is).
    Each suffix asked for is kept too (``lower``), in the order victims are reprieved:
    a cached cluster answers many what-ifs, and most preemptors cut the node's pods at
    the same few priorities.
    """

    __slots__ = ("_lower", "has_equal", "neg_priorities", "pdbs", "pods")

    def __init__(self, cluster: Cluster, pods: Sequence[Pod]) -> None:
        self.pods = sorted(pods, key=importance_key)
        self.neg_priorities = [-p.priority for p in self.pods]
        self.has_equal = len({importance_key(p) for p in self.pods}) < len(self.pods)
        self.pdbs = [cluster.pdbs_for_pod(p) for p in self.pods]
        self._lower: dict[int, LowerPods] = {}

    def lower_than(self, priority: int) -> int:
        """Where the pods of priority below ``priority`` begin."""
        return bisect_right(self.neg_priorities, -priority)

    def lower(self, cluster: Cluster, start: int) -> LowerPods:
        """The pods from ``start`` on (those below one priority) in reprieve order."""
        got = self._lower.get(start)
        if got is None:
            if len(self._lower) >= LOWER_CUTS_KEPT:
                del self._lower[next(iter(self._lower))]  # the cut made first goes
            got = self._lower[start] = LowerPods(cluster, self.pods[start:], self.pdbs[start:])
        return got


class LowerPods:
    """A node's potential victims as SelectVictimsOnNode reprieves them: those whose
    eviction would break a PodDisruptionBudget first (filterPodsWithPDBViolation's
    verdict, which depends on these pods alone), then the others, each group in
    importance order; with each pod's requests as integers (``amounts``)."""

    __slots__ = ("_amounts", "mixed", "num_violating", "pods", "rank")

    def __init__(
        self, cluster: Cluster, pods: Sequence[Pod], matched: Sequence[tuple[int, ...]]
    ) -> None:
        violates = _pdb_violations(cluster, pods, matched)
        rank = [i for i, v in enumerate(violates) if v]
        self.num_violating = len(rank)
        rank.extend(i for i, v in enumerate(violates) if not v)
        self.rank = rank  # each pod's place in importance order
        self.pods = [pods[i] for i in rank]
        # Victims of both groups are listed in importance order again (one sort).
        self.mixed = 0 < self.num_violating < len(pods)
        self._amounts: dict[tuple[str, ...], tuple[list[tuple[int, ...]], list[int]]] = {}

    def amounts(self, keys: tuple[str, ...]) -> tuple[list[tuple[int, ...]], list[int]]:
        """Each pod's requests of ``keys`` in reprieve order, and their totals."""
        got = self._amounts.get(keys)
        if got is None:
            rows = [tuple(p.requests.get(k, 0) for k in keys) for p in self.pods]
            totals = [sum(p.requests.get(k, 0) for p in self.pods) for k in keys]
            got = self._amounts[keys] = (rows, totals)
        return got


class Victims:
    """extenderv1.Victims: the pods to evict and how many of them break a budget."""

    __slots__ = ("by_importance", "num_pdb_violations", "pods", "summary", "violating")

    def __init__(
        self,
        pods: list[Pod],
        num_pdb_violations: int,
        violating: list[Pod],
        by_importance: bool = False,
    ) -> None:
        self.pods = pods
        self.num_pdb_violations = num_pdb_violations
        self.violating = violating
        # True when ``pods`` are known to be in MoreImportantPod's order (priority down,
        # then start time up): the first is then GetEarliestPodStartTime's pod.
        self.by_importance = by_importance
        # What pickOneNodeForPreemption's criteria read of the pods, computed once by
        # candidate.victim_summary (a simulation compares the same victims many times).
        self.summary: object | None = None


class VictimSimulation(Protocol):
    """The node as SelectVictimsOnNode changes it, one pod at a time."""

    def remove(self, pod: Pod) -> Status:
        """Take the pod off the node (a non-success status aborts the selection)."""
        ...

    def add(self, pod: Pod) -> Status:
        """Put the pod back on the node."""
        ...

    def fits(self) -> bool:
        """Whether the pending pod passes the filters on the node as it is now."""
        ...

    def status(self) -> Status:
        """The filter status of the pending pod on the node as it is now."""
        ...


class NodeInfoSimulation:
    """The general case: a NodeInfo copy, the PreFilter extensions, every filter."""

    def __init__(self, fw: Framework, state: CycleState, pod: Pod, node_info: NodeInfo) -> None:
        self.fw = fw
        self.state = state
        self.pod = pod
        self.node_info = node_info.clone()

    def remove(self, pod: Pod) -> Status:
        self.node_info.remove_pod(pod)
        return self.fw.run_remove_pod(self.state, self.pod, pod, self.node_info)

    def add(self, pod: Pod) -> Status:
        self.node_info.add_pod(pod)
        return self.fw.run_add_pod(self.state, self.pod, pod, self.node_info)

    def status(self) -> Status:
        return self.fw.run_filter_with_nominated_pods(self.state, self.pod, self.node_info)

    def fits(self) -> bool:
        return self.status().is_success()


class ResourcesOnlySimulation:
    """When NodeResourcesFit is the only filter reading the node's pods: the node's
    requested totals and pod count (nominated pods of higher or equal priority
    included) as plain integers, no NodeInfo copy."""

    def __init__(self, fw: Framework, pod: Pod, node_info: NodeInfo) -> None:
        self.node_info = node_info
        self.requests = fit_requests(pod)
        self.alloc = node_info.node.allocatable
        self.max_pods = self.alloc.get("pods", 0)
        self.used = dict(node_info.requested)
        self.count = len(node_info.pods)
        for np in fw.ge_nominated_pods(pod, node_info.name):
            self.add(np)

    def remove(self, pod: Pod) -> Status:
        self.count -= 1
        used = self.used
        for k, v in pod.requests.items():
            used[k] -= v
        return SUCCESS

    def add(self, pod: Pod) -> Status:
        self.count += 1
        used = self.used
        for k, v in pod.requests.items():
            used[k] = used.get(k, 0) + v
        return SUCCESS

    def fits(self) -> bool:
        if self.count + 1 > self.max_pods:
            return False
        alloc, used = self.alloc, self.used
        return all(want <= alloc.get(k, 0) - used.get(k, 0) for k, want in self.requests)

    def status(self) -> Status:
        if self.fits():
            return SUCCESS
        return fit_status(self.requests, self.node_info, self.count, self.used)


def fit_status(
    requests: list[tuple[str, int]], node_info: NodeInfo, count: int, used: dict[str, int]
) -> Status:
    """NodeResourcesFit's status for the pod on the node once it holds ``count`` pods
    requesting ``used`` (the pod does not fit there: only on the way out)."""
    reasons = fits_request_on(requests, node_info.node.allocatable, count, used)
    code = (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        if any(r.unresolvable for r in reasons)
        else Code.UNSCHEDULABLE
    )
    return Status(code, *(r.reason for r in reasons), plugin=names.NODE_RESOURCES_FIT)


def select_victims(
    sim: VictimSimulation, cluster: Cluster, potential: list[Pod]
) -> tuple[Victims | None, Status]:
    """The body of SelectVictimsOnNode over ``potential`` (the node's lower-priority pods)."""
    for p in potential:
        s = sim.remove(p)
        if not s.is_success():
            return None, s
    status = sim.status()
    if not status.is_success():
        return None, status
    sort_by_importance(potential)
    violating, non_violating = filter_pods_with_pdb_violation(cluster, potential)
    victims: list[Pod] = []
    violating_victims: list[Pod] = []
    # reprievePod: put each back; if the pod no longer fits, it stays a victim.
    for group in (violating, non_violating):
        for p in group:
            s = sim.add(p)
            if not s.is_success():
                return None, s
            if not sim.fits():
                s = sim.remove(p)
                if not s.is_success():
                    return None, s
                victims.append(p)
                if group is violating:
                    violating_victims.append(p)
    if violating and non_violating:
        # Each group was reprieved in importance order; the victims are listed in it too.
        sort_by_importance(victims)
    return Victims(victims, len(violating_victims), violating_victims), Status()


class IntegerSelection:
    """select_victims over a ResourcesOnlySimulation for one pending pod, inlined: only
    the resources the pod requests and the pod count, as local integers. The same steps
    in the same order (remove every potential victim, check, reprieve the violating then
    the others, most important first); it is the hot loop of an exhaustive dry run over
    thousands of nodes, where method calls cost more than the arithmetic, so what depends
    on the pod alone is worked out once, and what depends on the node's pods is kept on
    the node (``ImportanceOrder``, ``LowerPods``)."""

    __slots__ = ("cluster", "fw", "keys", "need", "pod", "wanted")

    def __init__(self, fw: Framework, pod: Pod) -> None:
        self.fw = fw
        self.cluster = fw.handle.cluster
        self.pod = pod
        self.wanted = fit_requests(pod)
        self.keys = tuple(k for k, _ in self.wanted)
        self.need = [want for _, want in self.wanted]

    def select(self, node_info: NodeInfo) -> tuple[Victims | None, Status]:
        pod = self.pod
        order = node_info.preemption_order
        if order is None:
            order = node_info.preemption_order = ImportanceOrder(self.cluster, node_info.pods)
        start = order.lower_than(pod.priority)
        n = len(order.pods)
        if start == n:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_VICTIMS)
        if order.has_equal and n - start > GO_INSERTION_SORT_MAX:
            # Go's sort may order equally important victims differently: sort them as it does.
            potential = [p for p in node_info.pods if is_preemption_allowed(p, pod)]
            return select_victims(
                ResourcesOnlySimulation(self.fw, pod, node_info), self.cluster, potential
            )
        lower = order.lower(self.cluster, start)
        rows, totals = lower.amounts(self.keys)
        keys = self.keys
        alloc = node_info.node.allocatable
        used = node_info.requested
        count = start  # the pods left once every potential victim is gone
        # No nominated pod anywhere: none of priority >= the pod's on this node either.
        fw = self.fw
        nominated = (
            fw.ge_nominated_pods(pod, node_info.name) if fw.handle.any_nominated_pods() else ()
        )
        if nominated:
            used = dict(used)
            count += len(nominated)
            for np in nominated:
                for k, v in np.requests.items():
                    used[k] = used.get(k, 0) + v
        # What is left of each resource beyond the pod's need with every victim gone, and
        # how many of them the pod count lets back (the pod itself takes one place).
        slack = [
            alloc.get(k, 0) - used.get(k, 0) + total - need
            for k, total, need in zip(keys, totals, self.need, strict=True)
        ]
        room = alloc.get(PODS, 0) - 1 - count
        if room < 0 or min(slack, default=0) < 0:
            # It does not fit even with them all gone: no victims (NodeResourcesFit says why).
            left = {k: used.get(k, 0) - total for k, total in zip(keys, totals, strict=True)}
            return None, fit_status(self.wanted, node_info, count, left)
        lost: list[int] = []  # places in reprieve order of the pods that stay victims
        if len(slack) == 2:
            s0, s1 = slack
            for i, (a0, a1) in enumerate(rows):
                if room and a0 <= s0 and a1 <= s1:
                    room -= 1
                    s0 -= a0
                    s1 -= a1
                else:
                    lost.append(i)
        else:
            for i, row in enumerate(rows):
                if room and all(a <= s for a, s in zip(row, slack, strict=True)):
                    room -= 1
                    slack = [s - a for a, s in zip(row, slack, strict=True)]
                else:
                    lost.append(i)
        pods = lower.pods
        violating = [pods[i] for i in lost[: bisect_left(lost, lower.num_violating)]]
        if not lower.mixed:
            victims = [pods[i] for i in lost]
        elif order.has_equal:
            # Each group was reprieved in importance order; the victims are listed in it too.
            victims = [pods[i] for i in lost]
            sort_by_importance(victims)
        else:
            victims = [pods[i] for i in sorted(lost, key=lower.rank.__getitem__)]
        # Every branch above lists the victims in importance order (a suffix of the
        # node's pods sorted by importance_key, or sorted again by importance).
        return Victims(victims, len(violating), violating, by_importance=True), Status()


def select_victims_in_integers(
    fw: Framework, pod: Pod, node_info: NodeInfo
) -> tuple[Victims | None, Status]:
    """SelectVictimsOnNode on the resources alone (see ``IntegerSelection``)."""
    return IntegerSelection(fw, pod).select(node_info)


def select_victims_on_node(
    fw: Framework, state: CycleState, pod: Pod, node_info: NodeInfo, fast: bool
) -> tuple[Victims | None, Status]:
    """SelectVictimsOnNode on ``node_info`` (left untouched); ``fast`` selects in integers
    (resources only). ``state`` is changed in the general case: pass a copy."""
    if fast:
        return select_victims_in_integers(fw, pod, node_info)
    potential = [p for p in node_info.pods if is_preemption_allowed(p, pod)]
    if not potential:
        return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_VICTIMS)
    return select_victims(
        NodeInfoSimulation(fw, state, pod, node_info), fw.handle.cluster, potential
    )
