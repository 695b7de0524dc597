"""VolumeRestrictions: inline disks mounted read-write by another pod of the node, and
ReadWriteOncePod claims already used by a pod anywhere in the cluster
(pkg/scheduler/framework/plugins/volumerestrictions).

PreFilter counts the scheduled pods using the pod's ReadWriteOncePod claims
(``conflicting``); AddPod / RemovePod change that count as nominated pods are added
or victims removed, so only the holder's node can become a preemption candidate.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cluster import NodeInfo
from ..framework import SUCCESS, Code, CycleState, Handle, PreFilterResult, Status, unschedulable
from ..objects import Pod
from ..volumes.objects import READ_WRITE_ONCE_POD
from ..volumes.podvolumes import VolumeSource
from . import names

ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_RWOP_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)
STATE_KEY = "PreFilter" + names.VOLUME_RESTRICTIONS


def claim_not_found(name: str) -> str:
    """The API's NotFound error for a claim, as the listers return it."""
    return f'persistentvolumeclaim "{name}" not found'


class RestrictionsState:
    """preFilterState: the pod's ReadWriteOncePod claims and how many scheduled pods use them."""

    __slots__ = ("conflicting", "rwop_claims")

    def __init__(self, rwop_claims: frozenset[str], conflicting: int) -> None:
        self.rwop_claims = rwop_claims
        self.conflicting = conflicting

    def clone(self) -> RestrictionsState:
        return RestrictionsState(self.rwop_claims, self.conflicting)

    def update_with_pod(self, pod: Pod, multiplier: int) -> None:
        # By claim name alone, as the real conflictingPVCRefCountForPod counts.
        for v in pod.volumes:
            if v.source is VolumeSource.CLAIM and v.claim in self.rwop_claims:
                self.conflicting += multiplier


def pvc_used_by_pods(node_infos: Sequence[NodeInfo], namespace: str, claim: str) -> bool:
    """StorageInfos().IsPVCUsedByPods: a scheduled pod mounts the claim."""
    for ni in node_infos:
        for p in ni.pods:
            if p.volumes and p.namespace == namespace:
                for v in p.volumes:
                    if v.source is VolumeSource.CLAIM and v.claim == claim:
                        return True
    return False


def disk_conflict(pod: Pod, node_info: NodeInfo) -> bool:
    """Not satisfyVolumeConflicts: an inline disk of the pod conflicts with a node pod's."""
    for v in pod.volumes:
        disk = v.disk
        if disk is None:
            continue
        for other in node_info.pods:
            for ov in other.volumes:
                if ov.disk is not None and disk.conflicts(ov.disk):
                    return True
    return False


class VolumeRestrictions:
    name = names.VOLUME_RESTRICTIONS

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not pod.volumes:
            return None, Status(Code.SKIP)
        needs_check = any(v.disk is not None for v in pod.volumes)
        storage = self.handle.cluster.storage
        rwop: set[str] = set()
        for v in pod.volumes:
            if v.source is not VolumeSource.CLAIM or v.claim is None or not storage.collected:
                continue
            claim = storage.claim(pod.namespace, v.claim)
            if claim is None:
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, claim_not_found(v.claim))
            if READ_WRITE_ONCE_POD in claim.access_modes:
                rwop.add(claim.name)
        conflicting = sum(
            1 for c in rwop if pvc_used_by_pods(self.handle.node_infos, pod.namespace, c)
        )
        if not needs_check and conflicting == 0:
            return None, Status(Code.SKIP)
        state.write(STATE_KEY, RestrictionsState(frozenset(rwop), conflicting))
        return None, SUCCESS

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        s: RestrictionsState = state.read(STATE_KEY)
        s.update_with_pod(pod_to_add, 1)
        return SUCCESS

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        s: RestrictionsState = state.read(STATE_KEY)
        s.update_with_pod(pod_to_remove, -1)
        return SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if disk_conflict(pod, node_info):
            return unschedulable(ERR_REASON_DISK_CONFLICT)
        s: RestrictionsState | None = state.get(STATE_KEY)
        if s is not None and s.conflicting > 0:
            return unschedulable(ERR_REASON_RWOP_CONFLICT)
        return SUCCESS
