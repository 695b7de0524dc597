"""DefaultPreemption's policy: eligibility, importance order, PDB split, SelectVictimsOnNode."""

from __future__ import annotations

from collections.abc import Sequence

from ..cluster import Cluster, NodeInfo
from ..framework import Code, CycleState, Status
from ..objects import PREEMPT_NEVER, Pod
from ..plugins import names
from ..plugins.noderesources import fit_requests, fits_request
from ..runtime import Framework

ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."


def importance_key(pod: Pod) -> tuple[int, int]:
    """Sort key for util.MoreImportantPod: higher priority first, then earlier start."""
    return (-pod.priority, pod.start_ns)


def is_preemption_allowed(victim: Pod, preemptor: Pod) -> bool:
    return victim.priority < preemptor.priority


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


def filter_pods_with_pdb_violation(
    cluster: Cluster, pods: Sequence[Pod]
) -> tuple[list[Pod], list[Pod]]:
    """filterPodsWithPDBViolation: budgets decrement per matched pod (unless already in
    disruptedPods); a pod is violating once a matched budget goes below zero."""
    allowed: dict[int, int] = {}
    pdbs = cluster.pdbs
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = False
        for i in cluster.pdbs_for_pod(pod):
            pdb = pdbs[i]
            if pod.name in pdb.disrupted_pods:
                continue
            left = allowed.get(i, pdb.disruptions_allowed) - 1
            allowed[i] = left
            if left < 0:
                violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


class Victims:
    __slots__ = ("num_pdb_violations", "pods", "violating")

    def __init__(self, pods: list[Pod], num_pdb_violations: int, violating: list[Pod]) -> None:
        self.pods = pods
        self.num_pdb_violations = num_pdb_violations
        self.violating = violating


def select_victims_on_node(
    fw: Framework, state: CycleState, pod: Pod, node_info: NodeInfo, fast: bool
) -> tuple[Victims | None, Status]:
    """SelectVictimsOnNode: remove every lower-priority pod, check the pod fits, then
    reprieve as many as possible (PDB-violating ones first, most important first)."""
    potential = [p for p in node_info.pods if is_preemption_allowed(p, pod)]
    if not potential:
        return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_VICTIMS)
    if fast:
        return _select_victims_resources_only(fw, pod, node_info, potential)
    ni = node_info.clone()
    for p in potential:
        ni.remove_pod(p)
        s = fw.run_remove_pod(state, pod, p, ni)
        if not s.is_success():
            return None, s
    status = fw.run_filter_with_nominated_pods(state, pod, ni)
    if not status.is_success():
        return None, status
    potential.sort(key=importance_key)
    violating, non_violating = filter_pods_with_pdb_violation(fw.handle.cluster, potential)
    victims: list[Pod] = []
    violating_victims: list[Pod] = []
    for group in (violating, non_violating):
        for p in group:
            ni.add_pod(p)
            s = fw.run_add_pod(state, pod, p, ni)
            if not s.is_success():
                return None, s
            if not fw.run_filter_with_nominated_pods(state, pod, ni).is_success():
                ni.remove_pod(p)
                s = fw.run_remove_pod(state, pod, p, ni)
                if not s.is_success():
                    return None, s
                victims.append(p)
                if group is violating:
                    violating_victims.append(p)
    if violating and non_violating:
        victims.sort(key=importance_key)
    return Victims(victims, len(violating_victims), violating_victims), Status()


def _select_victims_resources_only(
    fw: Framework, pod: Pod, node_info: NodeInfo, potential: list[Pod]
) -> tuple[Victims | None, Status]:
    """The same algorithm when NodeResourcesFit is the only filter that depends on the
    node's pods: plain integer bookkeeping instead of NodeInfo copies."""
    requests = fit_requests(pod)
    alloc = node_info.node.allocatable
    used = dict(node_info.requested)
    count = len(node_info.pods)
    for np in fw.ge_nominated_pods(pod, node_info.name):
        count += 1
        for k, v in np.requests.items():
            used[k] = used.get(k, 0) + v
    for p in potential:
        count -= 1
        for k, v in p.requests.items():
            used[k] -= v
    max_pods = alloc.get("pods", 0)

    def fits() -> bool:
        if count + 1 > max_pods:
            return False
        return all(want <= alloc.get(k, 0) - used.get(k, 0) for k, want in requests)

    if not fits():
        probe = node_info.clone()
        probe.pods = [None] * count  # type: ignore[list-item]
        probe.requested = used
        reasons = fits_request(requests, probe)
        code = (
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE
            if any(r.unresolvable for r in reasons)
            else Code.UNSCHEDULABLE
        )
        return None, Status(code, *(r.reason for r in reasons), plugin=names.NODE_RESOURCES_FIT)
    potential.sort(key=importance_key)
    violating, non_violating = filter_pods_with_pdb_violation(fw.handle.cluster, potential)
    victims: list[Pod] = []
    violating_victims: list[Pod] = []
    for group in (violating, non_violating):
        for p in group:
            count += 1
            preq = p.requests
            for k, v in preq.items():
                used[k] = used.get(k, 0) + v
            if not fits():
                count -= 1
                for k, v in preq.items():
                    used[k] -= v
                victims.append(p)
                if group is violating:
                    violating_victims.append(p)
    if violating and non_violating:
        victims.sort(key=importance_key)
    return Victims(victims, len(violating_victims), violating_victims), Status()
