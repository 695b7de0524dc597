"""The storage objects the volume plugins read (PersistentVolumeClaim, PersistentVolume,
StorageClass, CSINode, CSIDriver, VolumeAttachment, CSIStorageCapacity), a pod's
volumes, and the listers the plugins look them up through (``Storage``)."""

from .objects import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
)
from .podvolumes import PodVolume, VolumeSource, parse_pod_volumes
from .storage import STORAGE_KINDS, Storage

__all__ = [
    "STORAGE_KINDS",
    "CSIDriver",
    "CSINode",
    "CSIStorageCapacity",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "PodVolume",
    "Storage",
    "StorageClass",
    "VolumeAttachment",
    "VolumeSource",
    "parse_pod_volumes",
]
