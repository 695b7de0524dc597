"""The rule where ReadWriteOncePod claims and priority meet."""

from __future__ import annotations

from typing import Any

from ..builders import make_node, make_pod, make_priority_class
from .helpers import findings


def _rwop_claim(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOncePod"], "volumeName": "pv-1"},
    }


def _mounting(builder: Any, claim: str) -> dict[str, Any]:
    pod: dict[str, Any] = builder.obj()
    pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
    return pod


def test_a_pending_pod_whose_rwop_claim_a_lower_priority_pod_holds() -> None:
    objects = [
        make_priority_class("high", 1000),
        make_priority_class("low", 10),
        make_node("n1").obj(),
        _rwop_claim("ledger"),
        _mounting(make_pod("old-writer").node("n1").priority_class("low").priority(10), "ledger"),
        _mounting(make_pod("new-writer").priority_class("high").priority(1000), "ledger"),
    ]
    (f,) = findings(objects, "rwop-held-by-lower-priority")
    assert f.objects == (
        "Pod default/new-writer",
        "Pod default/old-writer",
        "PersistentVolumeClaim default/ledger",
    )
    assert "held by default/old-writer (priority 10) on node n1" in f.message


def test_no_finding_when_the_holder_ranks_higher_or_the_claim_is_shared() -> None:
    shared = _rwop_claim("shared")
    shared["spec"]["accessModes"] = ["ReadWriteOnce"]
    objects = [
        make_priority_class("high", 1000),
        make_node("n1").obj(),
        _rwop_claim("ledger"),
        shared,
        _mounting(make_pod("holder").node("n1").priority_class("high").priority(1000), "ledger"),
        _mounting(make_pod("waiter").priority(5), "ledger"),
        _mounting(make_pod("a").node("n1").priority(1), "shared"),
        _mounting(make_pod("b").priority(900), "shared"),
    ]
    assert findings(objects, "rwop-held-by-lower-priority") == []


def _zonal_claim(name: str, zone: str) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": name,
                "namespace": "default",
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
            },
            "spec": {"accessModes": ["ReadWriteOnce"], "volumeName": f"pv-{name}"},
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": f"pv-{name}", "labels": {"topology.kubernetes.io/zone": zone}},
            "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}},
        },
    ]


def _stateful(name: str, node: str, claim: str) -> dict[str, Any]:
    pod = _mounting(
        make_pod(name).node(node).priority_class("critical").priority(1000).req(cpu="2"),
        claim,
    )
    pod["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "controller": True}
    ]
    return pod


def _zonal_cluster(filler_class: str, filler_priority: int) -> list[dict[str, Any]]:
    # Zone a: a1 holds db-0 (its volume lives in zone a), a2 is full (4 cpu used of 4) by
    # the fillers; zone b is empty.
    return [
        make_priority_class("critical", 1000),
        make_priority_class("batch", 10),
        make_node("a1").capacity(cpu="4", memory="8Gi", pods="110").zone("a").obj(),
        make_node("a2").capacity(cpu="4", memory="8Gi", pods="110").zone("a").obj(),
        make_node("b1").capacity(cpu="4", memory="8Gi", pods="110").zone("b").obj(),
        *_zonal_claim("data-db-0", "a"),
        _stateful("db-0", "a1", "data-db-0"),
        make_pod("filler")
        .node("a2")
        .priority_class(filler_class)
        .priority(filler_priority)
        .req(cpu="4")
        .obj(),
        make_pod("batch-job").node("b1").priority_class("batch").priority(10).req(cpu="1").obj(),
    ]


def test_a_stateful_replica_whose_zone_has_no_room_even_by_preemption() -> None:
    # a2 is full of pods of db-0's own priority: preemption cannot free them, and b1 is
    # in the wrong zone for its volume.
    (f,) = findings(_zonal_cluster("critical", 1000), "stateful-zone-without-room")
    assert f.objects == ("StatefulSet default/db",)
    assert "db-0 (data-db-0 in a)" in f.message


def test_no_finding_when_preemption_makes_room_in_the_zone() -> None:
    # The same, with a2 full of lower-priority pods: db-0 could come back by preempting.
    assert findings(_zonal_cluster("batch", 10), "stateful-zone-without-room") == []
