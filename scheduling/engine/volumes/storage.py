"""The storage listers of a snapshot: each kind by the key kube-scheduler looks it up by."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from .objects import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
)

# kind -> its parser; load_cluster reads these kinds into a Storage.
STORAGE_KINDS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "PersistentVolumeClaim": PersistentVolumeClaim.from_dict,
    "PersistentVolume": PersistentVolume.from_dict,
    "StorageClass": StorageClass.from_dict,
    "CSINode": CSINode.from_dict,
    "CSIDriver": CSIDriver.from_dict,
    "VolumeAttachment": VolumeAttachment.from_dict,
    "CSIStorageCapacity": CSIStorageCapacity.from_dict,
}
# Said when pods mount claims but the snapshot holds no storage object at all.
NO_STORAGE_WARNING = (
    "pods mount PersistentVolumeClaims but the snapshot holds no storage objects: their "
    "volumes were not checked (zones, attach limits, ReadWriteOncePod); take it with "
    "`kubectl get nodes,pods,pdb,priorityclasses,pvc,pv,storageclasses,csinodes,csidrivers,"
    "volumeattachments,csistoragecapacities -A -o json`"
)
# The namespaced ones (an error names the object as namespace/name).
NAMESPACED_STORAGE_KINDS = frozenset({"PersistentVolumeClaim", "CSIStorageCapacity"})


class Storage:
    """Claims by "namespace/name", volumes, classes, CSINodes and CSIDrivers by name,
    VolumeAttachments by node, and PVs by class (pvCache.ListPVs)."""

    def __init__(self, objects: list[Any] | None = None) -> None:
        self.claims: dict[str, PersistentVolumeClaim] = {}
        self.volumes: dict[str, PersistentVolume] = {}
        self.classes: dict[str, StorageClass] = {}
        self.csi_nodes: dict[str, CSINode] = {}
        self.csi_drivers: dict[str, CSIDriver] = {}
        self.attachments: dict[str, list[VolumeAttachment]] = defaultdict(list)
        self.capacities: list[CSIStorageCapacity] = []
        self.volumes_by_class: dict[str, list[PersistentVolume]] = defaultdict(list)
        for obj in objects or ():
            self.add(obj)

    def add(self, obj: Any) -> None:
        if isinstance(obj, PersistentVolumeClaim):
            self.claims[obj.key] = obj
        elif isinstance(obj, PersistentVolume):
            self.volumes[obj.name] = obj
            self.volumes_by_class[obj.storage_class].append(obj)
        elif isinstance(obj, StorageClass):
            self.classes[obj.name] = obj
        elif isinstance(obj, CSINode):
            self.csi_nodes[obj.name] = obj
        elif isinstance(obj, CSIDriver):
            self.csi_drivers[obj.name] = obj
        elif isinstance(obj, VolumeAttachment):
            self.attachments[obj.node_name].append(obj)
        elif isinstance(obj, CSIStorageCapacity):
            self.capacities.append(obj)
        else:
            raise TypeError(f"not a storage object: {obj!r}")

    def __bool__(self) -> bool:
        return bool(
            self.claims
            or self.volumes
            or self.classes
            or self.csi_nodes
            or self.csi_drivers
            or self.attachments
            or self.capacities
        )

    @property
    def collected(self) -> bool:
        """Whether the snapshot holds any storage object. One without any (a dump taken
        without the storage kinds: a real cluster has at least a StorageClass) says
        nothing of its claims, so the plugins do not look them up (see NO_STORAGE_WARNING)."""
        return bool(self)

    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        return self.claims.get(f"{namespace}/{name}")

    def with_claims(self, claims: list[PersistentVolumeClaim]) -> Storage:
        """A copy holding these claims too (or instead of those of the same key): a
        rollout's new claims, this Storage unchanged."""
        view = Storage.__new__(Storage)
        view.__dict__.update(self.__dict__)
        view.claims = dict(self.claims)
        for c in claims:
            view.claims[c.key] = c
        return view


EMPTY_STORAGE = Storage()
