"""In-tree volume sources and the CSI drivers that took them over (csi-translation-lib):
a node whose CSINode lists the in-tree plugin in its migrated-plugins annotation counts
such a volume against the CSI driver's attach limit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

AWS_EBS = "kubernetes.io/aws-ebs"
GCE_PD = "kubernetes.io/gce-pd"
AZURE_DISK = "kubernetes.io/azure-disk"
CINDER = "kubernetes.io/cinder"

# In-tree plugin -> (its volume source field, the CSI driver that replaced it).
_PLUGINS: dict[str, tuple[str, str]] = {
    AWS_EBS: ("awsElasticBlockStore", "ebs.csi.aws.com"),
    GCE_PD: ("gcePersistentDisk", "pd.csi.storage.gke.io"),
    AZURE_DISK: ("azureDisk", "disk.csi.azure.com"),
    CINDER: ("cinder", "cinder.csi.openstack.org"),
}
_BY_FIELD = {field: plugin for plugin, (field, _) in _PLUGINS.items()}


class InTreeSource(NamedTuple):
    """An in-tree volume (of a PV, or inline in a pod) that CSI migration may translate."""

    plugin: str  # kubernetes.io/aws-ebs, ...
    volume_id: str  # the CSI volume handle it translates to

    @property
    def csi_driver(self) -> str:
        return _PLUGINS[self.plugin][1]


def _ebs_volume_id(raw: str) -> str:
    """KubernetesVolumeIDToEBSVolumeID: aws://us-east-1a/vol-123 is vol-123."""
    if raw.startswith("aws://"):
        return raw.rsplit("/", 1)[-1]
    return raw


def in_tree_source(source: Mapping[str, Any], field: str) -> InTreeSource | None:
    """The migratable in-tree source of a PV spec or a pod volume, if it has one."""
    for name, plugin in _BY_FIELD.items():
        raw = source.get(name)
        if not isinstance(raw, Mapping):
            continue
        if plugin == AWS_EBS:
            return InTreeSource(plugin, _ebs_volume_id(str(raw.get("volumeID") or "")))
        if plugin == GCE_PD:
            return InTreeSource(
                plugin, f"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{raw.get('pdName') or ''}"
            )
        if plugin == AZURE_DISK:
            return InTreeSource(plugin, str(raw.get("diskURI") or ""))
        return InTreeSource(plugin, str(raw.get("volumeID") or ""))
    return None


def migration_on(migrated_plugins: frozenset[str] | None, plugin: str) -> bool:
    """isCSIMigrationOn: a known in-tree plugin the node's CSINode lists as migrated."""
    return migrated_plugins is not None and plugin in _PLUGINS and plugin in migrated_plugins


def csi_driver_for(plugin: str) -> str | None:
    """GetCSINameFromInTreeName: the CSI driver of a migratable in-tree plugin."""
    known = _PLUGINS.get(plugin)
    return known[1] if known is not None else None
