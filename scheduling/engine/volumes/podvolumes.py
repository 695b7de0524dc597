"""A pod's volumes (spec.volumes) as the volume plugins read them: the claim each one
uses (a PersistentVolumeClaim, or a generic ephemeral volume's ``<pod>-<volume>``), the
inline disks VolumeRestrictions checks for conflicts, and inline in-tree sources that
CSI migration counts against a driver's attach limit."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..errors import InvalidInput
from .translation import InTreeSource, in_tree_source


class VolumeSource(enum.Enum):
    CLAIM = "persistentVolumeClaim"
    EPHEMERAL = "ephemeral"
    OTHER = "other"


class DiskKind(enum.Enum):
    GCE_PD = "gcePersistentDisk"
    AWS_EBS = "awsElasticBlockStore"
    ISCSI = "iscsi"
    RBD = "rbd"


class InlineDisk(NamedTuple):
    """An inline disk VolumeRestrictions compares: its identity and whether read-only.
    ``monitors`` only for rbd (two images are one when they share a monitor)."""

    kind: DiskKind
    identity: tuple[str, ...]
    read_only: bool
    monitors: frozenset[str] = frozenset()

    def conflicts(self, other: InlineDisk) -> bool:
        """isVolumeConflict for one pair of volumes."""
        if self.kind is not other.kind or self.identity != other.identity:
            return False
        if self.kind is DiskKind.AWS_EBS:
            return True  # EBS forbids any two pods mounting one volume
        if self.kind is DiskKind.RBD and not (self.monitors & other.monitors):
            return False
        return not (self.read_only and other.read_only)


class PodVolume(NamedTuple):
    name: str
    source: VolumeSource
    # The claim it uses (CLAIM and EPHEMERAL), in the pod's namespace.
    claim: str | None = None
    disk: InlineDisk | None = None
    in_tree: InTreeSource | None = None


def _inline_disk(vol: Mapping[str, Any]) -> InlineDisk | None:
    for kind in DiskKind:
        raw = vol.get(kind.value)
        if not isinstance(raw, Mapping):
            continue
        ro = raw.get("readOnly") is True
        if kind is DiskKind.GCE_PD:
            return InlineDisk(kind, (str(raw.get("pdName") or ""),), ro)
        if kind is DiskKind.AWS_EBS:
            return InlineDisk(kind, (str(raw.get("volumeID") or ""),), ro)
        if kind is DiskKind.ISCSI:
            return InlineDisk(kind, (str(raw.get("iqn") or ""),), ro)
        monitors = frozenset(str(m) for m in raw.get("monitors") or [])
        pool = str(raw.get("pool") or "rbd")  # the API server's default pool
        return InlineDisk(kind, (pool, str(raw.get("image") or "")), ro, monitors)
    return None


def parse_pod_volumes(raw: Any, pod_name: str) -> tuple[PodVolume, ...]:
    """spec.volumes; ``()`` for a pod without any (most pods)."""
    if not raw:
        return ()
    if not isinstance(raw, list):
        raise InvalidInput("must be a list", field="spec.volumes")
    out: list[PodVolume] = []
    for i, vol in enumerate(raw):
        where = f"spec.volumes[{i}]"
        if not isinstance(vol, Mapping):
            raise InvalidInput("must be an object", field=where)
        name = vol.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidInput("is required", field=f"{where}.name")
        pvc = vol.get("persistentVolumeClaim")
        if pvc is not None:
            if not isinstance(pvc, Mapping):
                raise InvalidInput("must be an object", field=f"{where}.persistentVolumeClaim")
            claim = pvc.get("claimName")
            if not isinstance(claim, str) or not claim:
                raise InvalidInput(
                    "Required value", field=f"{where}.persistentVolumeClaim.claimName"
                )
            out.append(PodVolume(name, VolumeSource.CLAIM, claim=claim))
        elif vol.get("ephemeral") is not None:
            # ephemeral.VolumeClaimName: the claim the ephemeral volume controller makes.
            out.append(PodVolume(name, VolumeSource.EPHEMERAL, claim=f"{pod_name}-{name}"))
        else:
            disk = _inline_disk(vol)
            in_tree = in_tree_source(vol, where)
            if disk is not None or in_tree is not None:
                out.append(PodVolume(name, VolumeSource.OTHER, disk=disk, in_tree=in_tree))
    return tuple(out)
