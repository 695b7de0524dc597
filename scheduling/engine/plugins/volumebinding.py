"""VolumeBinding: the pod's claims must be bound to volumes its node can reach, or be
bindable there (pkg/scheduler/framework/plugins/volumebinding).

PreFilter sorts the claims: bound ones (``spec.volumeName`` and the PV controller's
``pv.kubernetes.io/bind-completed``), unbound WaitForFirstConsumer ones (matched or
provisioned per node by the Filter), and unbound Immediate ones, which reject the pod
outright. Every failure is
UnschedulableAndUnresolvable: evicting pods never changes where a volume lives.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cluster import NodeInfo
from ..framework import SUCCESS, Code, CycleState, Handle, PreFilterResult, Status
from ..objects import Node, Pod
from ..volumes.objects import (
    NOT_SUPPORTED_PROVISIONER,
    VOLUME_AVAILABLE,
    PersistentVolume,
    PersistentVolumeClaim,
)
from ..volumes.podvolumes import VolumeSource
from ..volumes.storage import Storage
from . import names

ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = (
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
STATE_KEY = names.VOLUME_BINDING


class PodVolumeClaims:
    """The pod's claims as PreFilter sorted them, and the volumes of each class the
    WaitForFirstConsumer ones may be matched with."""

    __slots__ = ("bound", "delay_binding", "volumes_by_class")

    def __init__(
        self,
        bound: list[PersistentVolumeClaim],
        delay_binding: list[PersistentVolumeClaim],
        volumes_by_class: dict[str, list[PersistentVolume]],
    ) -> None:
        self.bound = bound
        self.delay_binding = delay_binding
        self.volumes_by_class = volumes_by_class


def pod_claims_status(storage: Storage, pod: Pod) -> Status | None:
    """podHasPVCs' errors: a claim missing, lost, being deleted or not the pod's own."""
    for v in pod.volumes:
        if v.claim is None:
            continue
        claim = storage.claim(pod.namespace, v.claim)
        ephemeral = v.source is VolumeSource.EPHEMERAL
        if claim is None:
            if ephemeral:
                msg = (
                    "waiting for ephemeral volume controller to create the "
                    f'persistentvolumeclaim "{v.claim}"'
                )
            else:
                msg = f'persistentvolumeclaim "{v.claim}" not found'
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg)
        if claim.phase == "Lost":
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                f'persistentvolumeclaim "{claim.name}" bound to non-existent persistentvolume '
                f'"{claim.volume_name}"',
            )
        if claim.deleting:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                f'persistentvolumeclaim "{claim.name}" is being deleted',
            )
        if ephemeral and claim.owner_uid != pod.uid:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                f"PVC {claim.key} was not created for pod {pod.key} (pod is not owner)",
            )
    return None


def is_delay_binding(storage: Storage, claim: PersistentVolumeClaim) -> bool:
    """IsDelayBindingMode: the claim's class exists and waits for the first consumer."""
    if not claim.storage_class:
        return False
    sc = storage.classes.get(claim.storage_class)
    return sc is not None and sc.wait_for_first_consumer


def pv_matches_node(pv: PersistentVolume, node: Node) -> bool:
    """CheckNodeAffinity: the volume's required node affinity selects the node's labels
    (a node known by its labels alone: a matchFields term matches nothing)."""
    if pv.node_affinity is None:
        return True
    return pv.node_affinity.matches(node.labels, "")


def find_matching_volume(
    claim: PersistentVolumeClaim,
    volumes: Sequence[PersistentVolume],
    node: Node,
    excluded: set[str],
) -> PersistentVolume | None:
    """FindMatchingVolume on the scheduler's path: the volume pre-bound to the claim if
    it suits the node, else the smallest Available one of the claim's class that does."""
    smallest: PersistentVolume | None = None
    requested = claim.request or 0
    for pv in volumes:
        if pv.name in excluded:
            continue
        if pv.claim_ref is not None and not pv.bound_to(claim):
            continue
        if pv.capacity < requested:
            continue
        if pv.volume_mode != claim.volume_mode:
            continue
        if pv.deleting:
            continue
        affinity_ok = pv_matches_node(pv, node)
        if pv.bound_to(claim):
            return pv if affinity_ok else None
        if pv.phase != VOLUME_AVAILABLE:
            continue
        if claim.selector is not None and not claim.selector.matches(pv.labels):
            continue
        if pv.storage_class != claim.storage_class:
            continue
        if not affinity_ok:
            continue
        if not claim.access_modes <= pv.access_modes:
            continue
        if smallest is None or smallest.capacity > pv.capacity:
            smallest = pv
    return smallest


class BindingState:
    """stateData: the sorted claims (shared by every node; nothing changes them)."""

    __slots__ = ("claims",)

    def __init__(self, claims: PodVolumeClaims | None) -> None:
        self.claims = claims


class VolumeBinding:
    name = names.VOLUME_BINDING

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        storage = self.handle.cluster.storage
        if not storage.collected or not any(v.claim is not None for v in pod.volumes):
            state.write(STATE_KEY, BindingState(None))
            return None, Status(Code.SKIP)
        problem = pod_claims_status(storage, pod)
        if problem is not None:
            return None, problem
        bound: list[PersistentVolumeClaim] = []
        delay: list[PersistentVolumeClaim] = []
        for v in pod.volumes:
            if v.claim is None:
                continue
            claim = storage.claim(pod.namespace, v.claim)
            assert claim is not None  # pod_claims_status looked
            if claim.bound:
                bound.append(claim)
            elif is_delay_binding(storage, claim) and not claim.volume_name:
                delay.append(claim)
            else:
                # Immediate claims are bound by the PV controller before scheduling (a
                # claim naming a volume without bind-completed is not bound yet either).
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_UNBOUND_IMMEDIATE)
        by_class = {
            c.storage_class: list(storage.volumes_by_class.get(c.storage_class, ())) for c in delay
        }
        # v1.35 no longer narrows the nodes to a bound local volume's hostnames: every
        # node is filtered (and a full one stays a potential preemption node).
        state.write(STATE_KEY, BindingState(PodVolumeClaims(bound, delay, by_class)))
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s: BindingState = state.read(STATE_KEY)
        if s.claims is None:
            return SUCCESS
        reasons = find_pod_volumes(self.handle.cluster.storage, s.claims, node_info.node)
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)
        return SUCCESS


def find_pod_volumes(storage: Storage, claims: PodVolumeClaims, node: Node) -> list[str]:
    """FindPodVolumes: the reasons the node cannot hold the pod's volumes (none: it can)."""
    bound_ok = unbound_ok = enough_space = pvs_found = True
    for claim in claims.bound:
        pv = storage.volumes.get(claim.volume_name)
        if pv is None:
            pvs_found = False
            break
        if not pv_matches_node(pv, node):
            bound_ok = False
            break
    if claims.delay_binding:
        to_match: list[PersistentVolumeClaim] = []
        to_provision: list[PersistentVolumeClaim] = []
        for claim in claims.delay_binding:
            if claim.selected_node is not None:
                if claim.selected_node != node.name:
                    unbound_ok = False  # provisioning was started for another node
                    return _reasons(bound_ok, unbound_ok, enough_space, pvs_found)
                to_provision.append(claim)
            else:
                to_match.append(claim)
        if to_match:
            # findMatchingVolumes: the smallest claims first, each volume used once.
            chosen: set[str] = set()
            for claim in sorted(to_match, key=lambda c: c.request or 0):
                pv = find_matching_volume(
                    claim, claims.volumes_by_class.get(claim.storage_class, ()), node, chosen
                )
                if pv is None:
                    to_provision.append(claim)
                    unbound_ok = False
                    continue
                chosen.add(pv.name)
        if to_provision:
            unbound_ok, enough_space = check_volume_provisions(storage, to_provision, node)
    return _reasons(bound_ok, unbound_ok, enough_space, pvs_found)


def _reasons(bound_ok: bool, unbound_ok: bool, enough_space: bool, pvs_found: bool) -> list[str]:
    reasons = []
    if not bound_ok:
        reasons.append(ERR_REASON_NODE_CONFLICT)
    if not unbound_ok:
        reasons.append(ERR_REASON_BIND_CONFLICT)
    if not enough_space:
        reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
    if not pvs_found:
        reasons.append(ERR_REASON_PV_NOT_EXIST)
    return reasons


def check_volume_provisions(
    storage: Storage, claims: list[PersistentVolumeClaim], node: Node
) -> tuple[bool, bool]:
    """checkVolumeProvisions: (provisioning possible, enough capacity) on the node."""
    for claim in claims:
        sc = storage.classes.get(claim.storage_class)
        if sc is None:
            return False, False  # the real code errors: the class is gone
        if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
            return False, True
        if not sc.topology_allows(node.labels):
            return False, True
        if not has_enough_capacity(storage, sc.provisioner, claim, node):
            return True, False
    return True, True


def has_enough_capacity(
    storage: Storage, provisioner: str, claim: PersistentVolumeClaim, node: Node
) -> bool:
    """hasEnoughCapacity: only for CSI drivers that publish CSIStorageCapacity."""
    if claim.request is None:
        return True
    driver = storage.csi_drivers.get(provisioner)
    if driver is None or not driver.storage_capacity:
        return True
    for cap in storage.capacities:
        if (
            cap.storage_class == claim.storage_class
            and cap.sufficient(claim.request)
            and cap.node_topology is not None
            and cap.node_topology.matches(node.labels)
        ):
            return True
    return False
