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
