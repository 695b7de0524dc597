"""NodeVolumeLimits (CSILimits): a node may attach at most its CSINode's
``allocatable.count`` volumes of each CSI driver
(pkg/scheduler/framework/plugins/nodevolumelimits/csi.go).

A node's volumes are those of its pods (a volume used by several pods counts once)
and those its VolumeAttachments hold: evicting a pod frees its slot only when no
VolumeAttachment still names the volume. A claim not yet bound counts against its
StorageClass's provisioner; an in-tree volume counts against the CSI driver that took
it over where the node's CSINode lists the plugin as migrated.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cluster import NodeInfo
from ..framework import SUCCESS, Code, CycleState, Handle, PreFilterResult, Status, unschedulable
from ..objects import Pod
from ..volumes.objects import CSINode, PersistentVolumeClaim
from ..volumes.podvolumes import VolumeSource
from ..volumes.storage import Storage
from ..volumes.translation import csi_driver_for, migration_on
from . import names

ERR_REASON_MAX_VOLUME_COUNT = "node(s) exceed max volume count"
# What stands for an unbound claim's volume handle: the claim, under a prefix no real
# handle has (the real plugin uses a random one).
_UNBOUND_PREFIX = "preemptlab-unbound-"

# "driver/handle" -> driver: the volumes a pod (or the node) holds.
Attachable = dict[str, str]


class LookupError_(Exception):
    """A claim the pending pod needs that cannot be used (missing, or not the pod's)."""

    def __init__(self, status: Status) -> None:
        self.status = status


def _claim_driver(
    storage: Storage, csi_node: CSINode | None, claim: PersistentVolumeClaim
) -> tuple[str, str]:
    """getCSIDriverInfo: (driver, volume handle) of a claim, ("", "") when not counted."""
    if claim.volume_name:
        pv = storage.volumes.get(claim.volume_name)
        if pv is not None:
            if pv.csi_driver:
                return pv.csi_driver, pv.csi_handle
            src = pv.in_tree
            if src is None or not migration_on(
                csi_node.migrated_plugins if csi_node else None, src.plugin
            ):
                return "", ""
            return src.csi_driver, src.volume_id
    # getCSIDriverInfoFromSC: an unbound claim counts against its class's provisioner.
    if not claim.storage_class:
        return "", ""
    sc = storage.classes.get(claim.storage_class)
    if sc is None or not sc.provisioner:
        return "", ""
    provisioner = sc.provisioner
    csi = csi_driver_for(provisioner)
    if csi is not None:
        # An in-tree provisioner counts against its CSI driver, where migrated.
        if not migration_on(csi_node.migrated_plugins if csi_node else None, provisioner):
            return "", ""
        provisioner = csi
    return provisioner, f"{_UNBOUND_PREFIX}{claim.key}"


def attachable_volumes(
    storage: Storage, csi_node: CSINode | None, pod: Pod, new_pod: bool, out: Attachable
) -> None:
    """filterAttachableVolumes: the pod's CSI volumes into ``out``. For the pending pod
    (``new_pod``) a missing or foreign claim raises; another pod's is not counted."""
    for v in pod.volumes:
        if v.claim is None:
            src = v.in_tree
            if src is not None and migration_on(
                csi_node.migrated_plugins if csi_node else None, src.plugin
            ):
                out[f"{src.csi_driver}/{src.volume_id}"] = src.csi_driver
            continue
        claim = storage.claim(pod.namespace, v.claim)
        if claim is None:
            if new_pod:
                raise LookupError_(
                    Status(
                        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                        f"looking up PVC {pod.namespace}/{v.claim}: "
                        f'persistentvolumeclaim "{v.claim}" not found',
                    )
                )
            continue
        if v.source is VolumeSource.EPHEMERAL and claim.owner_uid != pod.uid:
            raise LookupError_(
                Status(
                    Code.ERROR,
                    f"PVC {claim.key} was not created for pod {pod.key} (pod is not owner)",
                )
            )
        driver, handle = _claim_driver(storage, csi_node, claim)
        if driver and handle:
            out[f"{driver}/{handle}"] = driver


def node_attachments(storage: Storage, node_name: str) -> Attachable:
    """getNodeVolumeAttachmentInfo: the CSI volumes the node's VolumeAttachments hold."""
    out: Attachable = {}
    for va in storage.attachments.get(node_name, ()):
        if not va.attacher or not va.pv_name:
            continue
        pv = storage.volumes.get(va.pv_name)
        if pv is None or not pv.csi_driver:
            continue
        out[f"{va.attacher}/{pv.csi_handle}"] = va.attacher
    return out


class VolumeCount:
    """What NodeVolumeLimits found on one node for the pod: per driver, the limit, the
    volumes in use and the new ones the pod would add (for the explanation)."""

    __slots__ = ("driver", "in_use", "limit", "new")

    def __init__(self, driver: str, limit: int, in_use: int, new: int) -> None:
        self.driver = driver
        self.limit = limit
        self.in_use = in_use
        self.new = new

    @property
    def exceeded(self) -> bool:
        return self.in_use + self.new > self.limit


# A node pod's CSI volumes by (the storage, the node, the pod's uid): victim selection
# asks for the same pods' volumes once per pod it puts back.
VolumeMemo = dict[tuple[int, str, str], Attachable]


def volume_counts(
    storage: Storage, pod: Pod, node_info: NodeInfo, memo: VolumeMemo | None = None
) -> list[VolumeCount]:
    """The Filter's arithmetic: one VolumeCount per driver the pod adds volumes of and the
    node limits (raises LookupError_ where the real Filter returns a status)."""
    csi_node = storage.csi_nodes.get(node_info.name)
    new: Attachable = {}
    attachable_volumes(storage, csi_node, pod, True, new)
    if not new or csi_node is None or not csi_node.limits:
        return []
    attached: Attachable = {}
    for existing in node_info.pods:
        if not existing.volumes:
            continue
        if memo is None:
            # Raises (Error) for an ephemeral claim its pod does not own, as the real one.
            attachable_volumes(storage, csi_node, existing, False, attached)
            continue
        key = (id(storage), node_info.name, existing.uid)
        own = memo.get(key)
        if own is None:
            own = {}
            attachable_volumes(storage, csi_node, existing, False, own)
            memo[key] = own
        attached.update(own)
    for unique, driver in node_attachments(storage, node_info.name).items():
        attached.setdefault(unique, driver)
    in_use: dict[str, int] = {}
    for unique, driver in attached.items():
        new.pop(unique, None)  # a volume already on the node is not counted twice
        in_use[driver] = in_use.get(driver, 0) + 1
    adding: dict[str, int] = {}
    for driver in new.values():
        adding[driver] = adding.get(driver, 0) + 1
    return [
        VolumeCount(driver, csi_node.limits[driver], in_use.get(driver, 0), n)
        for driver, n in adding.items()
        if driver in csi_node.limits
    ]


class NodeVolumeLimits:
    name = names.NODE_VOLUME_LIMITS

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        # Kept for the plugin's life (one what-if, or one run whose storage objects only
        # change by replacement, each Storage kept by the run): pods never change.
        self._memo: VolumeMemo = {}

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        # Any claim, ephemeral volume or migratable inline volume: the Filter looks (not
        # on a snapshot without storage objects: no CSINode, no limit).
        if self.handle.cluster.storage.collected and any(
            v.claim is not None or v.in_tree is not None for v in pod.volumes
        ):
            return None, SUCCESS
        return None, Status(Code.SKIP)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            counts = volume_counts(self.handle.cluster.storage, pod, node_info, self._memo)
        except LookupError_ as e:
            return e.status
        if any(c.exceeded for c in counts):
            return unschedulable(ERR_REASON_MAX_VOLUME_COUNT)
        return SUCCESS
