"""Uploads with every storage and every DRA kind: kept (each field kube-scheduler reads),
scrubbed (no secret reference, no opaque driver parameters), refused with file, object
and field when malformed, and browsable (the Volumes and Devices tabs, paginated)."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

from clusters import models, selectors, services
from clusters.constants import DRA_KINDS, STORAGE_KINDS
from clusters.ingest import reading
from clusters.ingest.scrub import KEPT_VOLUME_SOURCES
from tests.clusters.builders import dump, make_node, make_pod
from tests.storage_dra_dump import NAMESPACE, SECRET, storage_dra_dump


def _text(body: bytes) -> str:
    """A page's text as read: names rendered with their break points (name_breaks) whole."""
    return re.sub(r"<wbr>|</?span[^>]*>", "", body.decode())


def _ingest(owner: Any, data: bytes, name: str = "snap.json") -> Any:
    return services.snapshot_create(
        owner=owner, name="", files=[services.UploadedFile(name=name, data=data)]
    )


@pytest.fixture
def full(owner: Any) -> Any:
    snapshot = _ingest(owner, orjson.dumps(storage_dra_dump()))
    assert snapshot.is_ready, snapshot.error
    return snapshot


def _kinds(objects: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for o in objects:
        out[o["kind"]] = out.get(o["kind"], 0) + 1
    return out


def test_every_storage_and_dra_kind_is_kept_not_skipped(full: Any) -> None:
    sent = _kinds(storage_dra_dump()["items"])
    kept = _kinds(selectors.snapshot_objects(snapshot=full))
    for kind in STORAGE_KINDS | DRA_KINDS:
        assert kept[kind] == sent[kind], kind
    assert not set(full.skipped) & (STORAGE_KINDS | DRA_KINDS)
    # What the scheduler reads survives the projection: a PV's zone affinity and CSI
    # source, a claim's allocation, a pod's claims and their statuses.
    stored = {
        (o["kind"], o["metadata"]["name"]): o for o in selectors.snapshot_objects(snapshot=full)
    }
    originals = {(o["kind"], o["metadata"]["name"]): o for o in storage_dra_dump()["items"]}
    for key, original in originals.items():
        if key[0] == "PersistentVolume":
            assert stored[key]["spec"]["nodeAffinity"] == original["spec"]["nodeAffinity"]
            assert (
                stored[key]["spec"]["csi"]["volumeHandle"]
                == original["spec"]["csi"]["volumeHandle"]
            )
        if key[0] == "ResourceClaim":
            assert stored[key]["status"]["reservedFor"] == original["status"]["reservedFor"]
            assert (
                stored[key]["status"]["allocation"]["devices"]["results"]
                == (original["status"]["allocation"]["devices"]["results"])
            )
            assert stored[key]["metadata"]["finalizers"] == original["metadata"]["finalizers"]
        if key[0] == "Pod" and original["spec"].get("resourceClaims"):
            assert stored[key]["spec"]["resourceClaims"] == original["spec"]["resourceClaims"]
            assert (
                stored[key]["status"]["resourceClaimStatuses"]
                == (original["status"]["resourceClaimStatuses"])
            )
        if key[0] == "Pod" and key[1].startswith("kafka-"):
            assert stored[key]["spec"]["volumes"][0] == original["spec"]["volumes"][0]


def test_no_secret_reference_is_stored(full: Any) -> None:
    stored = orjson.dumps(selectors.snapshot_objects(snapshot=full)).decode()
    assert SECRET not in stored
    assert "nodePublishSecretRef" not in stored and "secret-name" not in stored
    assert "licenseKey" not in stored
    # Counted on the snapshot: 6 PVs (2 refs and 1 annotation each), 3 class parameters,
    # the opaque parameters of the class, the template and the claim's allocation, and
    # the driver's data on the claim's device.
    assert full.scrubbed["secretRefs"] == 6 * 3 + 3
    assert full.scrubbed["opaqueParameters"] == 4
    # The class keeps what is not secret-shaped, and the opaque config its driver.
    objects = selectors.snapshot_objects(snapshot=full)
    (sc,) = [o for o in objects if o["kind"] == "StorageClass"]
    assert sc["parameters"] == {"type": "gp3", "encrypted": "true"}
    (dc,) = [o for o in objects if o["kind"] == "DeviceClass"]
    assert dc["spec"]["config"] == [{"opaque": {"driver": "gpu.nvidia.com"}}]


def test_the_fast_path_keeps_and_scrubs_the_same(
    owner: Any, full: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = orjson.dumps(storage_dra_dump())
    assert len(data) >= reading.FAST_PATH_BYTES  # `full` took the fast path
    monkeypatch.setattr(reading, "FAST_PATH_BYTES", len(data) + 1)
    slow = _ingest(owner, data)
    assert slow.is_ready, slow.error
    assert slow.scrubbed == full.scrubbed
    assert selectors.snapshot_objects(snapshot=slow) == selectors.snapshot_objects(snapshot=full)


def test_the_kept_volume_sources_are_the_scrubbers(owner: Any) -> None:
    kept = {f.encode_name for f in reading.msgspec.structs.fields(reading._Volume)}
    assert kept - {"name"} == KEPT_VOLUME_SOURCES


def _pvc(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data-db-0", "namespace": "db"},
        "spec": spec,
    }


def _slice(devices: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "node-a-gpu"},
        "spec": {
            "driver": "gpu.nvidia.com",
            "nodeName": "node-a",
            "pool": {"name": "node-a"},
            "devices": devices,
        },
    }


@pytest.mark.parametrize(
    ("bad", "where"),
    [
        (
            _pvc(accessModes=["ReadWriteOnce", 7]),
            "items[2] PersistentVolumeClaim db/data-db-0: spec.accessModes[1]",
        ),
        (
            _pvc(resources={"requests": {"storage": "ten gigs"}}),
            "items[2] PersistentVolumeClaim db/data-db-0: spec.resources.requests.storage",
        ),
        (
            _slice([{"name": "gpu-0"}, {"name": "gpu-1", "attributes": {"index": {"string": 1}}}]),
            "items[2] ResourceSlice node-a-gpu: spec.devices[1].attributes.index.string",
        ),
        (
            _slice([{"name": "gpu-0", "capacity": {"memory": {"value": "lots"}}}]),
            "items[2] ResourceSlice node-a-gpu: spec.devices[0].capacity.memory.value",
        ),
    ],
)
def test_a_malformed_object_names_file_object_and_field(
    owner: Any, bad: dict[str, Any], where: str
) -> None:
    with pytest.raises(services.SnapshotRejected) as e:
        _ingest(owner, dump([make_node(), make_pod(), bad]), name="cluster.json")
    assert f"cluster.json: {where}" in str(e.value)


def test_the_volumes_tab_lists_claims_with_volume_zone_class_mode_and_pods(
    owner_client: Any, full: Any
) -> None:
    body = _text(owner_client.get(f"/snapshots/{full.pk}/volumes/").content)
    assert "Volumes (7)" in body and "Devices (24)" in body
    claim = models.VolumeClaim.objects.get(snapshot=full, name="data-kafka-0")
    assert claim.bound and claim.storage_class == "gp3-csi" and claim.access_modes == ["RWO"]
    assert claim.binding_mode == "WaitForFirstConsumer"
    assert claim.where.startswith("zone us-east-")
    (pod,) = claim.pods
    assert pod[0] == "kafka-0"
    pending = models.VolumeClaim.objects.get(snapshot=full, name="data-kafka-6")
    assert not pending.bound and pending.where == "not bound yet" and pending.pods == []
    assert "data-kafka-6" in body and "kafka-0" in body
    filtered = _text(
        owner_client.get(
            f"/snapshots/{full.pk}/volumes/", {"q": "kafka-6", "namespace": NAMESPACE}
        ).content
    )
    assert "data-kafka-6" in filtered and "data-kafka-0" not in filtered


def test_attach_counts_per_node_against_the_csinode_limit(owner_client: Any, full: Any) -> None:
    rows = list(models.NodeAttachments.objects.filter(snapshot=full))
    # Six bound EBS volumes over three workers, each also held by a VolumeAttachment:
    # counted once. The limit is each CSINode's allocatable count.
    assert [(r.in_use, r.limit) for r in rows] == [(2, 25)] * 3
    body = _text(owner_client.get(f"/snapshots/{full.pk}/volumes/attachments/").content)
    assert rows[0].node in body and "ebs.csi.aws.com" in body


def test_the_devices_tab_lists_each_device_and_who_holds_it(owner_client: Any, full: Any) -> None:
    held = models.Device.objects.filter(snapshot=full).exclude(claim="")
    assert sorted(d.name for d in held) == ["gpu-0", "gpu-1"]
    assert {tuple(d.pods) for d in held} == {("llm-infer-7d9f8c6b5-x2x9q",)}
    body = _text(owner_client.get(f"/snapshots/{full.pk}/devices/", {"held": "held"}).content)
    assert "llm-infer-7d9f8c6b5-x2x9q" in body and "NVIDIA A100-SXM4-80GB" in body
    assert body.count("<tr>") == 1 + 2  # the head and the two held devices
    free = _text(owner_client.get(f"/snapshots/{full.pk}/devices/", {"held": "free"}).content)
    assert "22 in all" in free


def test_long_lists_are_paginated(owner: Any, owner_client: Any) -> None:
    claims = [
        {
            **_pvc(accessModes=["ReadWriteOncePod"]),
            "metadata": {"name": f"c-{i:03d}", "namespace": "db"},
        }
        for i in range(60)
    ]
    snapshot = _ingest(owner, dump([make_node(), make_pod(), *claims]))
    assert snapshot.volume_claim_count == 60
    first = _text(owner_client.get(f"/snapshots/{snapshot.pk}/volumes/").content)
    assert "c-049" in first and "c-050" not in first and "Page 1 of 2" in first
    second = _text(owner_client.get(f"/snapshots/{snapshot.pk}/volumes/", {"page": 2}).content)
    assert "c-050" in second and "RWOP" in second


def test_a_stranger_gets_404(stranger_client: Any, full: Any) -> None:
    for path in ("volumes/", "volumes/attachments/", "devices/"):
        assert stranger_client.get(f"/snapshots/{full.pk}/{path}").status_code == 404
