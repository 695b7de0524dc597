"""The Volumes and Devices tabs' rows, computed once at ingest from the kept objects:
each claim with its class, volume, where that volume lives and the pods that use it;
each node's CSI attachments against its CSINode's limit; each device of a
ResourceSlice with the claim it is allocated to and the pods that claim is reserved for.

What a row says is for reading; the engine's volume plugins and DynamicResources
decide scheduling from the objects themselves.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from clusters import models
from clusters.constants import (
    KIND_CSI_NODE,
    KIND_POD,
    KIND_PV,
    KIND_PVC,
    KIND_RESOURCE_CLAIM,
    KIND_RESOURCE_SLICE,
    KIND_STORAGE_CLASS,
    KIND_VOLUME_ATTACHMENT,
    PDB_MATCHED_NAMES,
)

# What the PV controller writes once it has bound a claim: without it a claim with a
# volumeName is still unbound to the volume plugins.
BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
LEGACY_CLASS = "volume.beta.kubernetes.io/storage-class"
HOSTNAME = "kubernetes.io/hostname"
# The zone labels VolumeZone reads (GA and legacy); a CSI driver's own zone key (for
# example topology.ebs.csi.aws.com/zone) in a PV's node affinity ends the same way.
ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
ACCESS_MODE_SHORT = {
    "ReadWriteOnce": "RWO",
    "ReadOnlyMany": "ROX",
    "ReadWriteMany": "RWX",
    "ReadWriteOncePod": "RWOP",
}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _meta(obj: dict[str, Any]) -> tuple[str, str]:
    meta = _dict(obj.get("metadata"))
    return str(meta.get("namespace") or "default"), str(meta.get("name") or "")


@dataclass
class StorageObjects:
    """The objects the Volumes and Devices tabs read, by kind, in upload order."""

    by_kind: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, objects: Iterable[dict[str, Any]]) -> StorageObjects:
        found = cls()
        wanted = {
            KIND_POD,
            KIND_PVC,
            KIND_PV,
            KIND_STORAGE_CLASS,
            KIND_CSI_NODE,
            KIND_VOLUME_ATTACHMENT,
            KIND_RESOURCE_SLICE,
            KIND_RESOURCE_CLAIM,
        }
        for obj in objects:
            kind = obj.get("kind")
            if kind in wanted and (kind != KIND_POD or _uses_volumes_or_claims(obj)):
                found.by_kind[str(kind)].append(obj)
        return found

    def __getitem__(self, kind: str) -> list[dict[str, Any]]:
        return self.by_kind.get(kind, [])


def _uses_volumes_or_claims(pod: dict[str, Any]) -> bool:
    spec = _dict(pod.get("spec"))
    return bool(spec.get("volumes") or spec.get("resourceClaims"))


def _running(pod: dict[str, Any]) -> bool:
    return _dict(pod.get("status")).get("phase") not in ("Succeeded", "Failed")


def claims_of_pod(pod: dict[str, Any]) -> list[str]:
    """The names of the claims a pod's volumes use: persistentVolumeClaim.claimName, and
    ``<pod>-<volume>`` for a generic ephemeral volume (what its controller names it)."""
    _, pod_name = _meta(pod)
    names = []
    for volume in _list(_dict(pod.get("spec")).get("volumes")):
        volume = _dict(volume)
        claim = _dict(volume.get("persistentVolumeClaim")).get("claimName")
        if isinstance(claim, str) and claim:
            names.append(claim)
        elif volume.get("ephemeral") is not None and isinstance(volume.get("name"), str):
            names.append(f"{pod_name}-{volume['name']}")
    return names


def volume_where(pv: dict[str, Any]) -> str:
    """Where a PersistentVolume can be used, as the volume plugins would restrict it:
    its zone labels, else the zones or node its node affinity requires, else anywhere."""
    labels = _dict(_dict(pv.get("metadata")).get("labels"))
    for key in ZONE_LABELS:
        if isinstance(labels.get(key), str) and labels[key]:
            return "zone " + ", ".join(labels[key].split("__"))  # a__b: either zone
    zones: list[str] = []
    nodes: list[str] = []
    required = _dict(_dict(_dict(pv.get("spec")).get("nodeAffinity")).get("required"))
    for term in _list(required.get("nodeSelectorTerms")):
        for expr in _list(_dict(term).get("matchExpressions")):
            expr = _dict(expr)
            key, values = str(expr.get("key") or ""), [str(v) for v in _list(expr.get("values"))]
            if expr.get("operator") != "In":
                continue
            if key.endswith("/zone"):
                zones += values
            elif key == HOSTNAME:
                nodes += values
    if zones:
        return "zone " + ", ".join(dict.fromkeys(zones))
    if nodes:
        return "node " + ", ".join(dict.fromkeys(nodes))
    return "any node"


def _class_of(pvc: dict[str, Any]) -> str:
    spec = _dict(pvc.get("spec"))
    found = spec.get("storageClassName")
    if found is None:
        found = _dict(_dict(pvc.get("metadata")).get("annotations")).get(LEGACY_CLASS)
    return found if isinstance(found, str) else ""


def _modes(modes: Any) -> list[str]:
    return [ACCESS_MODE_SHORT.get(str(m), str(m)) for m in _list(modes)]


def claim_rows(found: StorageObjects, snapshot: models.Snapshot) -> Iterator[dict[str, Any]]:
    volumes = {_meta(pv)[1]: pv for pv in found[KIND_PV]}
    classes = {_meta(sc)[1]: sc for sc in found[KIND_STORAGE_CLASS]}
    users: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for pod in found[KIND_POD]:
        if not _running(pod):
            continue
        namespace, name = _meta(pod)
        node = str(_dict(pod.get("spec")).get("nodeName") or "")
        for claim in claims_of_pod(pod):
            users[(namespace, claim)].append((name, node))
    for pvc in found[KIND_PVC]:
        namespace, name = _meta(pvc)
        spec = _dict(pvc.get("spec"))
        annotations = _dict(_dict(pvc.get("metadata")).get("annotations"))
        volume_name = spec.get("volumeName") if isinstance(spec.get("volumeName"), str) else ""
        pv = volumes.get(volume_name) if volume_name else None
        class_name = _class_of(pvc)
        storage_class = classes.get(class_name)
        if pv is not None:
            where = volume_where(pv)
        elif isinstance(annotations.get(SELECTED_NODE), str):
            where = f"node {annotations[SELECTED_NODE]} (selected, not provisioned yet)"
        elif volume_name:
            where = f"volume {volume_name} is not in the snapshot"
        else:
            where = "not bound yet"
        using = sorted(users.get((namespace, name), ()))
        requested = _dict(_dict(spec.get("resources")).get("requests")).get("storage")
        yield dict(
            snapshot_id=snapshot.pk,
            namespace=namespace,
            name=name,
            phase=str(_dict(pvc.get("status")).get("phase") or ""),
            storage_class=class_name,
            binding_mode=str(_dict(storage_class).get("volumeBindingMode") or "")
            if storage_class is not None
            else "",
            access_modes=_modes(spec.get("accessModes")),
            requested="" if requested is None else str(requested),
            volume_name=volume_name,
            bound=bool(volume_name) and BIND_COMPLETED in annotations,
            where=where,
            driver=str(_dict(_dict(pv.get("spec")).get("csi")).get("driver") or "")
            if pv is not None
            else "",
            pods=[list(pair) for pair in using[:PDB_MATCHED_NAMES]],
            pod_count=len(using),
        )


def attachment_rows(found: StorageObjects, snapshot: models.Snapshot) -> Iterator[dict[str, Any]]:
    """Per node and CSI driver: the volumes in use (the node's running pods' bound CSI
    volumes and the node's VolumeAttachments, each volume once) and the CSINode's limit."""
    volumes = {_meta(pv)[1]: pv for pv in found[KIND_PV]}
    bound_to = {
        _meta(pvc): str(_dict(pvc.get("spec")).get("volumeName") or "") for pvc in found[KIND_PVC]
    }
    in_use: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pod in found[KIND_POD]:
        node = _dict(pod.get("spec")).get("nodeName")
        if not isinstance(node, str) or not node or not _running(pod):
            continue
        namespace, _ = _meta(pod)
        for claim in claims_of_pod(pod):
            pv = volumes.get(bound_to.get((namespace, claim), ""))
            csi = _dict(_dict(pv.get("spec")).get("csi")) if pv is not None else {}
            if isinstance(csi.get("driver"), str):
                in_use[(node, csi["driver"])].add(
                    str(csi.get("volumeHandle") or _meta(pv or {})[1])
                )
    for attachment in found[KIND_VOLUME_ATTACHMENT]:
        spec = _dict(attachment.get("spec"))
        node, driver = spec.get("nodeName"), spec.get("attacher")
        pv = volumes.get(str(_dict(spec.get("source")).get("persistentVolumeName") or ""))
        if isinstance(node, str) and isinstance(driver, str) and pv is not None:
            csi = _dict(_dict(pv.get("spec")).get("csi"))
            in_use[(node, driver)].add(str(csi.get("volumeHandle") or _meta(pv)[1]))
    limits: dict[tuple[str, str], int | None] = {}
    for csi_node in found[KIND_CSI_NODE]:
        _, node = _meta(csi_node)
        for driver in _list(_dict(csi_node.get("spec")).get("drivers")):
            driver = _dict(driver)
            count = _dict(driver.get("allocatable")).get("count")
            limits[(node, str(driver.get("name") or ""))] = (
                count if isinstance(count, int) else None
            )
    for node, driver in sorted(set(limits) | set(in_use)):
        yield dict(
            snapshot_id=snapshot.pk,
            node=node,
            driver=driver,
            in_use=len(in_use.get((node, driver), ())),
            limit=limits.get((node, driver)),
        )


def attribute_text(value: Any) -> str:
    """A device attribute's typed value ({"string": "gpu"}, {"int": 0}, {"version":
    "1.4.2"}, {"bool": true}) as text."""
    value = _dict(value)
    for key in ("string", "version", "int"):
        if key in value:
            return str(value[key])
    if "bool" in value:
        return "true" if value["bool"] else "false"
    return ""


def device_rows(found: StorageObjects, snapshot: models.Snapshot) -> Iterator[dict[str, Any]]:
    holders: dict[tuple[str, str, str], tuple[str, list[str]]] = {}
    for claim in found[KIND_RESOURCE_CLAIM]:
        namespace, name = _meta(claim)
        status = _dict(claim.get("status"))
        pods = sorted(
            str(_dict(r).get("name") or "")
            for r in _list(status.get("reservedFor"))
            if _dict(r).get("resource", "pods") == "pods"
        )
        results = _dict(_dict(status.get("allocation")).get("devices")).get("results")
        for result in _list(results):
            result = _dict(result)
            key = (str(result.get("driver")), str(result.get("pool")), str(result.get("device")))
            holders[key] = (f"{namespace}/{name}", pods)
    for slice_ in found[KIND_RESOURCE_SLICE]:
        spec = _dict(slice_.get("spec"))
        node = spec.get("nodeName") if isinstance(spec.get("nodeName"), str) else ""
        reach = "" if node else ("all nodes" if spec.get("allNodes") else "selected nodes")
        driver = str(spec.get("driver") or "")
        pool = str(_dict(spec.get("pool")).get("name") or "")
        for device in _list(spec.get("devices")):
            device = _dict(device)
            name = str(device.get("name") or "")
            holder, pods = holders.get((driver, pool, name), ("", []))
            yield dict(
                snapshot_id=snapshot.pk,
                node=node,
                reach=reach,
                driver=driver,
                pool=pool,
                name=name,
                attributes=sorted(
                    [str(k), attribute_text(v)] for k, v in _dict(device.get("attributes")).items()
                ),
                capacity=sorted(
                    [str(k), str(_dict(v).get("value", ""))]
                    for k, v in _dict(device.get("capacity")).items()
                ),
                claim=holder,
                pods=pods[:PDB_MATCHED_NAMES],
            )
