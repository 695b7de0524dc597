"""A hand-made snapshot where volumes decide: a Kafka broker whose claim is bound to an
EBS volume in eu-west-1a, two nodes of that zone (names of 40 characters) whose
CSINode allows 2 EBS attachments and already holds 2 each (low-priority pods with
volumes of their own), and a node of eu-west-1b with room but the wrong zone.

Derived by hand: VolumeBinding rejects the eu-west-1b node (the volume's node
affinity names eu-west-1a, unresolvable); NodeVolumeLimits rejects both eu-west-1a
nodes ("node(s) exceed max volume count", 2 of 2 in use), which evicting one
low-priority holder resolves, so the broker preempts one pod there.
"""

from __future__ import annotations

from typing import Any

from tests.engine.builders import as_list, make_node, make_pod, make_priority_class

ZONE = "topology.kubernetes.io/zone"
ZONE_A, ZONE_B = "eu-west-1a", "eu-west-1b"
EBS = "ebs.csi.aws.com"
ATTACH_LIMIT = 2
# Node names of 40 characters, as EKS names its nodes (they must wrap on the page).
NODE_A1 = "ip-10-10-101-117.eu-west-1.compute.local"
NODE_A2 = "ip-10-10-102-118.eu-west-1.compute.local"
NODE_B1 = "ip-10-10-201-119.eu-west-1.compute.local"


def storage_class(binding_mode: str = "WaitForFirstConsumer") -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "gp3"},
        "provisioner": EBS,
        "volumeBindingMode": binding_mode,
    }


def csi_node(node: str, count: int = ATTACH_LIMIT) -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {"name": node},
        "spec": {
            "drivers": [{"name": EBS, "nodeID": f"i-{node[:8]}", "allocatable": {"count": count}}]
        },
    }


def bound_claim(
    claim: str, zone: str, namespace: str = "default", *, affinity: bool = True
) -> list[dict[str, Any]]:
    """A claim bound to an EBS volume labelled with ``zone``, whose node affinity names
    it too (``affinity``; without, only VolumeZone reads its zone)."""
    pv = f"pv-{claim}"
    objects = [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": claim,
                "namespace": namespace,
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
            },
            "spec": {
                "volumeName": pv,
                "storageClassName": "gp3",
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "10Gi"}},
            },
            "status": {"phase": "Bound"},
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": pv, "labels": {ZONE: zone}},
            "spec": {
                "capacity": {"storage": "10Gi"},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "gp3",
                "csi": {"driver": EBS, "volumeHandle": f"vol-{claim}"},
                "claimRef": {"namespace": namespace, "name": claim},
                "nodeAffinity": {
                    "required": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": ZONE, "operator": "In", "values": [zone]}
                                ]
                            }
                        ]
                    }
                },
            },
            "status": {"phase": "Bound"},
        },
    ]
    if not affinity:
        del objects[1]["spec"]["nodeAffinity"]
    return objects


def with_claim(pod: dict[str, Any], claim: str) -> dict[str, Any]:
    pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
    return pod


def pinned_broker_objects() -> list[dict[str, Any]]:
    """The snapshot of the module's docstring (without the pending broker)."""
    items: list[dict[str, Any]] = [
        make_priority_class("low", 100),
        make_priority_class("high", 100000),
        storage_class(),
        *bound_claim("data-kafka-0", ZONE_A),
    ]
    for node, zone in ((NODE_A1, ZONE_A), (NODE_A2, ZONE_A), (NODE_B1, ZONE_B)):
        items.append(make_node(node).capacity(cpu="8", memory="32Gi", pods="110").zone(zone).obj())
        items.append(csi_node(node))
        if zone != ZONE_A:
            continue
        for i in range(ATTACH_LIMIT):
            name = f"batch-{node.split('.')[0]}-{i}"
            claim = f"scratch-{name}"
            items += bound_claim(claim, ZONE_A)
            holder = make_pod(name).priority_class("low").priority(100).req(cpu="1", memory="1Gi")
            items.append(with_claim(holder.node(node).obj(), claim))
    return items


def pinned_broker() -> dict[str, Any]:
    """The pending broker: class high, mounting data-kafka-0 (its volume in eu-west-1a)."""
    pod = make_pod("kafka-0").priority_class("high").req(cpu="1", memory="1Gi").obj()
    return with_claim(pod, "data-kafka-0")


def stored_snapshot(owner: Any, objects: list[dict[str, Any]]) -> Any:
    """The snapshot as uploaded. Until the ingest keeps the storage kinds and the pods'
    volumes, the stored objects are put back as they were given (what that ingest will
    store; the parsed form is made again from them), so that pages are rendered from
    the engine's real answers on them."""
    import zlib

    import orjson

    from clusters.models import ParsedCluster, SnapshotChunk
    from clusters.selectors import snapshot_objects
    from scheduling.running import cluster_cache
    from tests.scheduling.conftest import make_snapshot

    snapshot = make_snapshot(owner, as_list(*objects))
    kept = {o.get("kind") for o in snapshot_objects(snapshot=snapshot)}
    if "PersistentVolume" not in kept:
        SnapshotChunk.objects.filter(snapshot=snapshot).delete()
        SnapshotChunk.objects.create(
            snapshot=snapshot, position=0, data=zlib.compress(orjson.dumps(objects))
        )
        ParsedCluster.objects.filter(snapshot=snapshot).delete()
        cluster_cache.cluster_cache_clear()
    return snapshot
