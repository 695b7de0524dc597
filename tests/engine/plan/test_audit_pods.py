"""The rules about the priorities pods run at: drift, deleted classes, BestEffort at the
top, one crowded value."""

from __future__ import annotations

import yaml

from ..builders import make_node, make_pod, make_priority_class
from .helpers import deployment_pod, findings, owned, replica


def test_pods_admitted_under_an_older_value_of_their_class() -> None:
    objects = [
        make_priority_class("gold", 500),
        make_node("n1").obj(),
        deployment_pod(replica("web", 0).node("n1").priority_class("gold").priority(300), "web"),
        deployment_pod(replica("web", 1).node("n1").priority_class("gold").priority(300), "web"),
        make_pod("fresh").node("n1").priority_class("gold").priority(500).obj(),
    ]
    (f,) = findings(objects, "priority-drift")
    assert f.objects == ("PriorityClass gold", "Deployment default/web")
    assert "2 pods of Deployment default/web run at priority 300" in f.message
    assert "now has value 500" in f.message
    assert "kubectl -n default rollout restart deployment/web" in f.fix


def test_no_drift_when_pods_match_their_class_or_carry_no_priority() -> None:
    objects = [
        make_priority_class("gold", 500),
        make_pod("a").priority_class("gold").priority(500).obj(),
        # Resolved at load from the class: nothing to compare.
        make_pod("b").priority_class("gold").obj(),
    ]
    assert findings(objects, "priority-drift") == []


def test_pods_naming_a_deleted_class_and_the_class_to_recreate() -> None:
    objects = [
        make_node("n1").obj(),
        owned(
            make_pod("old-1").node("n1").priority_class("ghost").priority(700).obj(),
            "StatefulSet",
            "db",
        ),
        owned(
            make_pod("old-2").node("n1").priority_class("ghost").priority(700).obj(),
            "StatefulSet",
            "db",
        ),
        make_pod("stray").node("n1").priority_class("ghost").priority(50).obj(),
    ]
    (f,) = findings(objects, "missing-class")
    assert f.severity == "error"
    assert f.objects == ("PriorityClass ghost", "Pod default/stray", "StatefulSet default/db")
    assert "3 pods of Pod default/stray and StatefulSet default/db name it" in f.message
    # Recreated at the value most of its pods run at.
    fix = yaml.safe_load(f.fix)
    assert (fix["metadata"]["name"], fix["value"]) == ("ghost", 700)


def test_no_missing_class_when_every_class_exists() -> None:
    objects = [make_priority_class("gold", 1), make_pod("a").priority_class("gold").obj()]
    assert findings(objects, "missing-class") == []


def _tiers(*pods: dict[str, object]) -> list[dict[str, object]]:
    return [
        make_priority_class("low", 10, global_default=True),
        make_priority_class("high", 1000),
        make_node("n1").obj(),
        make_pod("filler-low").node("n1").priority_class("low").req(cpu="1").obj(),
        make_pod("filler-high").node("n1").priority_class("high").req(cpu="1").obj(),
        *pods,
    ]


def test_besteffort_pods_in_the_critical_tier_or_the_system_range() -> None:
    objects = _tiers(
        make_pod("be-high").node("n1").priority_class("high").best_effort().obj(),
        make_pod("be-low").node("n1").priority_class("low").best_effort().obj(),
        owned(
            make_pod("agent", "kube-system")
            .node("n1")
            .priority_class("system-node-critical")
            .best_effort()
            .obj(),
            "DaemonSet",
            "agent",
        ),
    )
    found = findings(objects, "besteffort-high-priority")
    assert [f.objects for f in found] == [
        ("DaemonSet kube-system/agent",),
        ("Pod default/be-high",),
    ]
    assert "1 BestEffort pod at priority 1000 (PriorityClass high)" in found[1].message


def test_besteffort_rule_quiet_below_the_critical_tier() -> None:
    objects = _tiers(make_pod("be-low").node("n1").priority_class("low").best_effort().obj())
    assert findings(objects, "besteffort-high-priority") == []


def _crowd(at_five: int, elsewhere: int) -> list[dict[str, object]]:
    objects: list[dict[str, object]] = [
        make_priority_class("std", 5),
        make_priority_class("top", 1000),
    ]
    objects += [make_pod(f"s{i}").priority_class("std").obj() for i in range(at_five)]
    objects += [make_pod(f"t{i}").priority_class("top").obj() for i in range(elsewhere)]
    # System pods are not counted in the share.
    objects += [
        make_pod(f"sys{i}", "kube-system").priority(2_000_000_000).obj() for i in range(500)
    ]
    return objects


def test_one_priority_holding_most_pods_is_a_block() -> None:
    (f,) = findings(_crowd(100, 99), "equal-priority-block")
    assert f.severity == "info" and f.objects == ("PriorityClass std",)
    assert f.message.startswith(
        "100 of the 199 pods below the system range (50%) run at priority 5"
    )


def test_no_block_below_either_threshold() -> None:
    # 99 pods is under the 100-pod floor.
    assert findings(_crowd(99, 10), "equal-priority-block") == []
    # 100 of 201 is under half: only the 101 at the other value make a block.
    assert [f.objects for f in findings(_crowd(100, 101), "equal-priority-block")] == [
        ("PriorityClass top",)
    ]


def test_one_pod_naming_a_deleted_class_is_worded_as_one() -> None:
    objects = [
        make_node("n1").obj(),
        make_pod("legacy-api-0").node("n1").priority_class("ghost").priority(50).obj(),
    ]
    (f,) = findings(objects, "missing-class")
    assert "1 pod of Pod default/legacy-api-0 names it" in f.message
    assert "so it cannot be replaced" in f.message
