"""A StatefulSet rollout with volumeClaimTemplates on a three-zone cluster, derived by
hand: each replica mounts ``data-kafka-<ordinal>``; a claim that exists and is bound
pins its replica to its volume's zone (even where that zone must preempt); a new one
under a WaitForFirstConsumer class is bound where the first pod using it lands, and
pins every later pod using it."""

from __future__ import annotations

from typing import Any

from scheduling.engine import load_cluster, simulate
from scheduling.engine.volumes.binding import ASSUME_PROVISIONED
from scheduling.engine.workload import admit, expand_workload

from .builders import as_list, make_node, make_pod, make_priority_class

ZONE = "topology.kubernetes.io/zone"
ZONES = {"a": "eu-west-1a", "b": "eu-west-1b", "c": "eu-west-1c"}


def _class() -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "gp3"},
        "provisioner": "ebs.csi.aws.com",
        "volumeBindingMode": "WaitForFirstConsumer",
    }


def _bound(claim: str, zone: str) -> list[dict[str, Any]]:
    pv = f"pv-{claim}"
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": claim,
                "namespace": "default",
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
            "metadata": {"name": pv},
            "spec": {
                "capacity": {"storage": "10Gi"},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "gp3",
                "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": f"vol-{claim}"},
                "claimRef": {"namespace": "default", "name": claim},
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


def _kafka(replicas: int = 3) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "kafka", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "serviceName": "kafka",
            "selector": {"matchLabels": {"app": "kafka"}},
            "template": {
                "metadata": {"labels": {"app": "kafka"}},
                "spec": {
                    "priorityClassName": "high",
                    "containers": [
                        {
                            "name": "kafka",
                            "image": "kafka:3",
                            "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
                            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                        }
                    ],
                },
            },
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {
                        "storageClassName": "gp3",
                        "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "10Gi"}},
                    },
                }
            ],
        },
    }


def _nodes(full_zone: str | None = None) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for short, zone in ZONES.items():
        for i in (1, 2):
            name = f"node-{short}{i}"
            items.append(
                make_node(name).capacity(cpu="4", memory="16Gi", pods="110").zone(zone).obj()
            )
            if short == full_zone:
                # Four 1-cpu pods of low priority fill the node.
                for j in range(4):
                    items.append(
                        make_pod(f"batch-{name}-{j}")
                        .priority_class("low")
                        .priority(100)
                        .req(cpu="1", memory="1Gi")
                        .node(name)
                        .obj()
                    )
    return items


def _classes() -> list[dict[str, Any]]:
    return [make_priority_class("high", 100000), make_priority_class("low", 100)]


def _run(items: list[dict[str, Any]], workload: list[dict[str, Any]]) -> dict[str, Any]:
    cluster = load_cluster(as_list(*items))
    w = expand_workload(workload)
    admit(w, cluster.resolver)
    return simulate(cluster, w.pods).to_dict()


def _zone_of(node: str) -> str:
    return ZONES[node[len("node-")]]


def test_each_replica_runs_in_its_claims_zone() -> None:
    # data-kafka-0's volume is in zone c, data-kafka-1's in zone a; data-kafka-2 does not
    # exist: the controller creates it under gp3 (WaitForFirstConsumer), and a reader
    # pinned to zone b by its nodeSelector mounts it first (it is queued while kafka-1
    # and kafka-2 wait for their predecessors), so the claim is bound in zone b.
    reader = make_pod("reader").priority_class("high").req(cpu="1", memory="1Gi").obj()
    reader["spec"]["nodeSelector"] = {ZONE: ZONES["b"]}
    reader["spec"]["volumes"] = [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-kafka-2"}}
    ]
    items = [
        *_nodes(),
        *_classes(),
        _class(),
        *_bound("data-kafka-0", ZONES["c"]),
        *_bound("data-kafka-1", ZONES["a"]),
    ]
    got = _run(items, [_kafka(), reader])
    nodes = {p["pod"]: p["node"] for p in got["pods"]}
    assert all(nodes.values()), nodes
    assert _zone_of(nodes["default/kafka-0"]) == ZONES["c"]
    assert _zone_of(nodes["default/kafka-1"]) == ZONES["a"]
    assert _zone_of(nodes["default/reader"]) == ZONES["b"]
    # Bound where the reader landed, the claim pins kafka-2 to zone b from then on.
    assert got["bound_claims"] == {"default/data-kafka-2": nodes["default/reader"]}
    assert _zone_of(nodes["default/kafka-2"]) == ZONES["b"]
    assert got["assumptions"] == [ASSUME_PROVISIONED]


def test_a_bound_claim_makes_its_replica_preempt_in_its_zone() -> None:
    # Zone c is full of low-priority pods and zones a and b are empty: without its
    # volume kafka-0 would just fit elsewhere; with data-kafka-0 in zone c it preempts
    # one pod there (VolumeBinding rejects every other node as unresolvable).
    items = [*_nodes(full_zone="c"), *_classes(), _class(), *_bound("data-kafka-0", ZONES["c"])]
    got = _run(items, [_kafka(replicas=1)])
    first = got["cycles"][0]
    assert first["result"] == "preempted"
    assert _zone_of(first["nominated_node"]) == ZONES["c"]
    assert len(first["victims"]) == 1
    assert _zone_of(got["pods"][0]["node"]) == ZONES["c"]
    assert "assumptions" not in got  # nothing was provisioned


def test_claims_of_a_statefulset_without_templates_are_untouched() -> None:
    sts = _kafka(replicas=2)
    del sts["spec"]["volumeClaimTemplates"]
    w = expand_workload([sts])
    assert all("volumes" not in p["spec"] for p in w.pods)


def test_a_cycle_is_explained_with_the_claims_as_they_stood() -> None:
    # kafka-2's claim was created at submission and bound when the reader landed: the
    # cycle that placed kafka-2 is explained on that storage, pinned to zone b.
    reader = make_pod("reader").priority_class("high").req(cpu="1", memory="1Gi").obj()
    reader["spec"]["nodeSelector"] = {ZONE: ZONES["b"]}
    reader["spec"]["volumes"] = [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-kafka-2"}}
    ]
    items = [
        *_nodes(),
        *_classes(),
        _class(),
        *_bound("data-kafka-0", ZONES["c"]),
        *_bound("data-kafka-1", ZONES["a"]),
    ]
    cluster = load_cluster(as_list(*items))
    w = expand_workload([_kafka(), reader])
    admit(w, cluster.resolver)
    sim = simulate(cluster, w.pods)
    cycle = next(c for c in sim.cycles if c.pod == "default/kafka-2")
    explained = sim.explain(cycle.cycle).to_dict()
    assert explained["outcome"] == "fits"
    assert {_zone_of(n) for n in explained["feasible_nodes"]} == {ZONES["b"]}
