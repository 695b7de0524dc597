"""The rules about who shares nodes with whom: grace periods, DaemonSets, pod affinity."""

from __future__ import annotations

from typing import Any

import yaml

from ..builders import make_node, make_pod, make_priority_class
from .helpers import deployment_pod, findings, owned, replica


def _classes() -> list[dict[str, Any]]:
    return [
        make_priority_class("low", 10, global_default=True),
        make_priority_class("high", 1000),
        make_node("n1").obj(),
        make_node("n2").obj(),
    ]


def test_long_grace_on_nodes_shared_with_a_higher_tier() -> None:
    objects = [
        *_classes(),
        deployment_pod(replica("etl", 0).node("n1").priority_class("low").grace(600), "etl"),
        deployment_pod(replica("etl", 1).node("n2").priority_class("low").grace(600), "etl"),
        make_pod("web").node("n1").priority_class("high").obj(),
    ]
    (f,) = findings(objects, "long-grace-low-priority")
    assert f.objects == ("Deployment default/etl",)
    # Only n1 holds a higher pod; the replica alone on n2 delays no one.
    assert f.message == (
        "Deployment default/etl (priority 10) has terminationGracePeriodSeconds 600 on 1 node "
        "shared with pods up to priority 1000: a preemptor waits up to 600 s for each of its pods to go"
    )
    patch = yaml.safe_load(f.fix)
    assert patch["kind"] == "Deployment"
    assert patch["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 30


def test_no_long_grace_finding_at_the_threshold_alone_or_below_system_pods() -> None:
    objects = [
        *_classes(),
        # 60 s is the threshold itself: not above it.
        make_pod("at-threshold").node("n1").priority_class("low").grace(60).obj(),
        make_pod("web").node("n1").priority_class("high").obj(),
        # On n2 the only higher pod is a system one: not a preemptor the pod waits on.
        make_pod("slow").node("n2").priority_class("low").grace(900).obj(),
        make_pod("proxy", "kube-system").node("n2").priority_class("system-node-critical").obj(),
    ]
    assert findings(objects, "long-grace-low-priority") == []


def _agent(node: str, cls: str) -> dict[str, Any]:
    pod = make_pod(f"agent-{node}", "monitoring").node(node).priority_class(cls).obj()
    return owned(pod, "DaemonSet", "agent")


def test_a_daemonset_below_the_pods_it_shares_nodes_with() -> None:
    objects = [
        *_classes(),
        _agent("n1", "low"),
        _agent("n2", "low"),
        make_pod("web").node("n1").priority_class("high").obj(),
        make_pod("batch").node("n2").priority_class("low").obj(),
    ]
    (f,) = findings(objects, "daemonset-below-neighbours")
    assert f.objects == ("DaemonSet monitoring/agent",)
    assert (
        f.message
        == "DaemonSet monitoring/agent (priority 10) runs below pods of priority up to 1000 on 1 of its 2 nodes"
    )
    pc, patch = yaml.safe_load_all(f.fix)
    assert (pc["kind"], pc["value"]) == ("PriorityClass", 1001)
    assert patch["spec"]["template"]["spec"]["priorityClassName"] == pc["metadata"]["name"]


def test_a_daemonset_at_or_above_its_neighbours_is_fine() -> None:
    objects = [
        *_classes(),
        _agent("n1", "high"),
        make_pod("web").node("n1").priority_class("high").obj(),
        # Another DaemonSet above it does not count: both are placed with the node.
        owned(
            make_pod("proxy-n1", "kube-system")
            .node("n1")
            .priority_class("system-node-critical")
            .obj(),
            "DaemonSet",
            "proxy",
        ),
    ]
    assert findings(objects, "daemonset-below-neighbours") == []


def _needs_cache(priority_class: str) -> dict[str, Any]:
    term = {
        "topologyKey": "kubernetes.io/hostname",
        "labelSelector": {"matchLabels": {"app": "cache"}},
    }
    return deployment_pod(
        replica("web", 0)
        .node("n1")
        .priority_class(priority_class)
        .pod_affinity("podAffinity", term),
        "web",
    )


def test_required_affinity_to_lower_priority_pods_only() -> None:
    objects = [
        *_classes(),
        owned(
            make_pod("cache-0").node("n1").priority_class("low").label("app", "cache").obj(),
            "StatefulSet",
            "cache",
        ),
        _needs_cache("high"),
    ]
    (f,) = findings(objects, "affinity-to-lower-priority")
    assert f.objects == ("Deployment default/web", "StatefulSet default/cache")
    assert (
        "requires pod affinity to app=cache, matched only by pods of lower priority (up to 10)"
        in f.message
    )
    term = yaml.safe_load(f.fix)["spec"]["template"]["spec"]["affinity"]["podAffinity"]
    preferred = term["preferredDuringSchedulingIgnoredDuringExecution"][0]
    assert preferred["podAffinityTerm"]["labelSelector"] == {"matchLabels": {"app": "cache"}}


def test_affinity_is_fine_when_a_match_is_as_high_or_nothing_matches() -> None:
    equal = [
        *_classes(),
        make_pod("cache-0").node("n1").priority_class("low").label("app", "cache").obj(),
        make_pod("cache-1").node("n2").priority_class("high").label("app", "cache").obj(),
        _needs_cache("high"),
    ]
    assert findings(equal, "affinity-to-lower-priority") == []
    # A cache in another namespace is out of the term's reach: nothing matches at all,
    # which is not this rule's concern.
    other_ns = [
        *_classes(),
        make_pod("cache-0", "infra").node("n1").priority_class("low").label("app", "cache").obj(),
        _needs_cache("high"),
    ]
    assert findings(other_ns, "affinity-to-lower-priority") == []
