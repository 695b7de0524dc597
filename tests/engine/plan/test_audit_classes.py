"""The rules about the PriorityClasses themselves, each on a cluster that triggers it
and one that does not."""

from __future__ import annotations

import yaml

from ..builders import make_node, make_pod, make_priority_class
from .helpers import findings


def test_no_global_default_counts_the_pods_left_at_zero() -> None:
    objects = [
        make_priority_class("low", 100),
        make_priority_class("high", 1000),
        make_node("n1").obj(),
        make_pod("bare").node("n1").obj(),
        make_pod("kept").node("n1").priority(7).obj(),
        make_pod("classed").node("n1").priority_class("low").obj(),
    ]
    (f,) = findings(objects, "no-global-default")
    assert f.severity == "warning" and f.objects == ()
    # "bare" and "kept" name no class; only "bare" is at 0.
    assert "here 2 pods name none, 1 of them at priority 0" in f.message
    fix = yaml.safe_load(f.fix)
    # The lowest user class is 100, so the new default sits at 0, below it.
    assert (fix["kind"], fix["value"], fix["globalDefault"]) == ("PriorityClass", 0, True)
    assert f.why.startswith("The PriorityClass planning guide")


def test_no_global_default_says_so_when_every_pod_names_a_class() -> None:
    objects = [
        make_priority_class("low", 100),
        make_node("n1").obj(),
        make_pod("classed").node("n1").priority_class("low").obj(),
    ]
    (f,) = findings(objects, "no-global-default")
    assert "0 pods" not in f.message
    assert f.message.endswith("every pod here names one, but a pod that does not would run at 0")


def test_no_global_default_is_quiet_when_one_exists() -> None:
    objects = [make_priority_class("low", 100, global_default=True), make_pod("bare").obj()]
    assert findings(objects, "no-global-default") == []


def test_a_default_above_another_class_is_named_with_the_lower_ones() -> None:
    objects = [
        make_priority_class("standard", 1000, global_default=True),
        make_priority_class("batch", -100),
        make_priority_class("scavenger", -500),
        make_priority_class("high", 5000),
    ]
    (f,) = findings(objects, "global-default-not-lowest")
    assert f.objects == ("PriorityClass standard", "PriorityClass batch", "PriorityClass scavenger")
    assert "batch (-100) and scavenger (-500) are below it" in f.message
    # The fix recreates the default at the lowest value in use.
    assert yaml.safe_load(f.fix.split("---")[0])["value"] == -500


def test_a_default_that_is_the_lowest_or_tied_is_fine() -> None:
    objects = [
        make_priority_class("batch", -100, global_default=True),
        make_priority_class("also-low", -100),
        make_priority_class("high", 5000),
    ]
    assert findings(objects, "global-default-not-lowest") == []


def test_user_classes_above_a_billion_are_errors_system_ones_are_not() -> None:
    objects = [
        make_priority_class("huge", 1_500_000_000),
        make_priority_class("top", 1_000_000_000),
        # kubectl lists the built-in classes too: they are not user classes.
        make_priority_class("system-cluster-critical", 2_000_000_000),
    ]
    (f,) = findings(objects, "class-in-reserved-range")
    assert f.severity == "error"
    assert f.objects == ("PriorityClass huge",)
    assert yaml.safe_load(f.fix)["value"] == 1_000_000_000


def test_classes_at_or_below_a_billion_are_fine() -> None:
    objects = [make_priority_class("top", 1_000_000_000), make_priority_class("low", -5)]
    assert findings(objects, "class-in-reserved-range") == []


def test_never_preempting_classes_are_noted() -> None:
    objects = [
        make_priority_class("batch-first", 500, policy="Never"),
        make_priority_class("normal", 100, policy="PreemptLowerPriority"),
    ]
    (f,) = findings(objects, "never-preempting-class")
    assert f.severity == "info" and f.objects == ("PriorityClass batch-first",)
    assert yaml.safe_load(f.fix)["preemptionPolicy"] == "PreemptLowerPriority"


def test_preempting_classes_are_not_noted() -> None:
    objects = [make_priority_class("normal", 100), make_priority_class("plain", 5)]
    assert findings(objects, "never-preempting-class") == []


def test_unused_classes_but_not_the_default_or_used_ones() -> None:
    objects = [
        make_priority_class("base", 0, global_default=True),
        make_priority_class("used", 100),
        make_priority_class("idle", 200),
        make_pod("p").priority_class("used").obj(),
    ]
    (f,) = findings(objects, "unused-class")
    assert f.objects == ("PriorityClass idle",)
    assert "kubectl delete priorityclass idle" in f.fix


def test_no_unused_class_when_every_class_has_pods() -> None:
    finished = make_pod("job-1").priority_class("nightly").obj()
    finished["status"]["phase"] = "Succeeded"
    objects = [
        make_priority_class("used", 100),
        make_priority_class("nightly", 50),
        make_pod("p").priority_class("used").obj(),
        # A finished Job pod: its class waits for the next run, it is not unused.
        finished,
    ]
    assert findings(objects, "unused-class") == []


def _tenants(n: int, *quotas: dict[str, object]) -> list[dict[str, object]]:
    objects: list[dict[str, object]] = [
        make_priority_class("low", 10, global_default=True),
        make_priority_class("high", 1000),
        make_priority_class("higher-unused", 5000),
        make_pod("sys", "kube-system").priority_class("high").obj(),
    ]
    for i in range(n):
        objects.append(make_pod(f"app-{i}", f"ns-{i}").priority_class("low").obj())
    objects.append(make_pod("front", "ns-0").priority_class("high").obj())
    objects.extend(quotas)
    return objects


def _quota(namespace: str, operator: str, *values: str) -> dict[str, object]:
    return {
        "kind": "ResourceQuota",
        "metadata": {"name": "q", "namespace": namespace},
        "spec": {
            "hard": {"pods": "5"},
            "scopeSelector": {
                "matchExpressions": [
                    {"scopeName": "PriorityClass", "operator": operator, "values": list(values)}
                ]
            },
        },
    }


def test_high_classes_open_to_namespaces_without_a_scoped_quota() -> None:
    # 9 tenant namespaces plus kube-system: 10, the threshold. The critical tier is "high"
    # (the top value pods use); "higher-unused" is above it, so it is high too.
    objects = _tenants(9, _quota("ns-0", "In", "high"), _quota("ns-1", "NotIn", "high"))
    found = findings(objects, "high-class-without-quota")
    assert [f.objects[0] for f in found] == ["PriorityClass high", "PriorityClass higher-unused"]
    high = found[0]
    # ns-0's quota limits "high"; ns-1's NotIn quota does not; kube-system is left out.
    assert high.objects[1:] == tuple(f"Namespace ns-{i}" for i in range(1, 9))
    assert "in 8 of the 10 namespaces" in high.message
    docs = list(yaml.safe_load_all(high.fix))
    assert docs[0]["kind"] == "AdmissionConfiguration"
    scope = docs[1]["spec"]["scopeSelector"]["matchExpressions"][0]
    assert (scope["operator"], scope["values"]) == ("In", ["high"])


def test_high_class_quota_rule_waits_for_many_namespaces() -> None:
    assert findings(_tenants(8), "high-class-without-quota") == []
