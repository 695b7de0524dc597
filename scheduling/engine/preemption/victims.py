"""SelectVictimsOnNode: remove every lower-priority pod, check the pod fits, then
reprieve as many as possible (PDB-violating ones first, most important first).

The algorithm is written once (``select_victims``) over a ``VictimSimulation``: what
the node looks like as pods leave and come back. Two simulations exist: the general
one (a NodeInfo copy, every filter with the nominated pods, the PreFilter
extensions), and the resources-only one (integer bookkeeping), which gives the same
answer whenever NodeResourcesFit is the only filter that reads the node's pods.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from ..cluster import Cluster, NodeInfo
from ..framework import SUCCESS, Code, CycleState, Status
from ..gosort import slice_sort
from ..objects import Pod
from ..plugins import names
from ..plugins.noderesources import fit_requests, fits_request

if TYPE_CHECKING:
    from ..runtime import Framework

ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
# pdqsort_func's maxInsertion: up to this many elements sort.Slice is an insertion sort.
GO_INSERTION_SORT_MAX = 12
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."


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
    """

    __slots__ = ("_amounts", "has_equal", "neg_priorities", "pdbs", "pods")

    def __init__(self, cluster: Cluster, pods: Sequence[Pod]) -> None:
        self.pods = sorted(pods, key=importance_key)
        self.neg_priorities = [-p.priority for p in self.pods]
        self.has_equal = len({importance_key(p) for p in self.pods}) < len(self.pods)
        self.pdbs = [cluster.pdbs_for_pod(p) for p in self.pods]
        self._amounts: dict[tuple[str, ...], tuple[list[list[int]], list[list[int]]]] = {}

    def lower_than(self, priority: int) -> int:
        """Where the pods of priority below ``priority`` begin."""
        return bisect_right(self.neg_priorities, -priority)

    def amounts(self, keys: tuple[str, ...]) -> tuple[list[list[int]], list[list[int]]]:
        """Each pod's requests of ``keys``, and their sums from each position to the end."""
        got = self._amounts.get(keys)
        if got is None:
            each = [[p.requests.get(k, 0) for k in keys] for p in self.pods]
            suffix = [[0] * len(keys)]
            for amounts in reversed(each):
                suffix.append([a + b for a, b in zip(suffix[-1], amounts, strict=True)])
            suffix.reverse()
            got = self._amounts[keys] = (each, suffix)
        return got


class Victims:
    """extenderv1.Victims: the pods to evict and how many of them break a budget."""

    __slots__ = ("num_pdb_violations", "pods", "summary", "violating")

    def __init__(self, pods: list[Pod], num_pdb_violations: int, violating: list[Pod]) -> None:
        self.pods = pods
        self.num_pdb_violations = num_pdb_violations
        self.violating = violating
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
        # Only on the way out: NodeResourcesFit's own reasons for the node as it is now.
        probe = self.node_info.clone()
        probe.pods = [None] * self.count  # type: ignore[list-item]
        probe.requested = self.used
        reasons = fits_request(self.requests, probe)
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


def select_victims_in_integers(
    fw: Framework, pod: Pod, node_info: NodeInfo
) -> tuple[Victims | None, Status]:
    """select_victims over a ResourcesOnlySimulation, inlined: only the resources the
    pod requests and the pod count, as local integers. The same steps in the same order
    (remove every potential victim, check, reprieve the violating then the others,
    most important first); it is the hot loop of an exhaustive dry run over thousands
    of nodes, where the method calls cost more than the arithmetic."""
    order = node_info.preemption_order
    if order is None:
        order = node_info.preemption_order = ImportanceOrder(fw.handle.cluster, node_info.pods)
    start = order.lower_than(pod.priority)
    if start == len(order.pods):
        return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_VICTIMS)
    wanted = fit_requests(pod)
    keys = tuple(k for k, _ in wanted)
    need = [want for _, want in wanted]
    alloc = node_info.node.allocatable
    used = dict(node_info.requested)
    count = len(node_info.pods) - (len(order.pods) - start)
    for np in fw.ge_nominated_pods(pod, node_info.name):
        count += 1
        for k, v in np.requests.items():
            used[k] = used.get(k, 0) + v
    each, suffix = order.amounts(keys)
    free = [alloc.get(k, 0) - used.get(k, 0) + s for k, s in zip(keys, suffix[start], strict=True)]
    room = alloc.get("pods", 0) - 1  # the pod itself takes one
    if (
        count > room
        or any(f < n for f, n in zip(free, need, strict=True))
        or (order.has_equal and len(order.pods) - start > GO_INSERTION_SORT_MAX)
    ):
        # It does not fit even with them all gone (the general path says why), or Go's
        # sort may order equally important victims differently: sort them as Go does.
        potential = [p for p in node_info.pods if is_preemption_allowed(p, pod)]
        return select_victims(
            ResourcesOnlySimulation(fw, pod, node_info), fw.handle.cluster, potential
        )
    potential = order.pods[start:]
    amounts_of = each[start:]
    violates = _pdb_violations(fw.handle.cluster, potential, order.pdbs[start:])
    victims: list[Pod] = []
    violating: list[Pod] = []
    for reprieving_violating in (True, False):
        for p, amounts, v in zip(potential, amounts_of, violates, strict=True):
            if v is not reprieving_violating:
                continue
            count += 1
            fits = count <= room
            for i, a in enumerate(amounts):
                free[i] -= a
                if free[i] < need[i]:
                    fits = False
            if not fits:
                count -= 1
                for i, a in enumerate(amounts):
                    free[i] += a
                victims.append(p)
                if reprieving_violating:
                    violating.append(p)
    if any(violates) and not all(violates):
        # Each group was reprieved in importance order; the victims are listed in it too.
        sort_by_importance(victims)
    return Victims(victims, len(violating), violating), Status()


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
