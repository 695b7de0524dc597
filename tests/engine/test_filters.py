"""Each Filter plugin's status code and reason text, through analyze()."""

from __future__ import annotations

from typing import Any

from scheduling.engine import analyze

from .builders import as_list, make_node, make_pod


def _reasons(*items: dict[str, Any], pod: dict[str, Any]) -> dict[str, list[str]]:
    result = analyze(as_list(*items), pod).to_dict()
    return {r["node"]: r["reasons"] for r in result["rejected_nodes"]}


def test_node_unschedulable_unless_tolerated() -> None:
    node = make_node("n1").unschedulable().obj()
    assert _reasons(node, pod=make_pod("p").obj()) == {"n1": ["node(s) were unschedulable"]}
    tolerant = (
        make_pod("p")
        .toleration("node.kubernetes.io/unschedulable", operator="Exists", effect="NoSchedule")
        .obj()
    )
    assert analyze(as_list(node), tolerant).outcome == "fits"


def test_taints() -> None:
    node = make_node("n1").taint("gpu", "true", "NoSchedule").obj()
    assert _reasons(node, pod=make_pod("p").obj()) == {"n1": ["node(s) had untolerated taint(s)"]}
    assert (
        analyze(as_list(node), make_pod("p").toleration("gpu", "true", "NoSchedule").obj()).outcome
        == "fits"
    )
    soft = make_node("n2").taint("gpu", "true", "PreferNoSchedule").obj()
    assert analyze(as_list(soft), make_pod("p").obj()).outcome == "fits"


def test_node_selector_and_affinity() -> None:
    a = make_node("a").zone("z1").obj()
    b = make_node("b").zone("z2").obj()
    pod = make_pod("p").node_affinity_in("topology.kubernetes.io/zone", "z2").obj()
    result = analyze(as_list(a, b), pod)
    assert result.feasible_nodes == ["b"]
    assert {r.node: r.status.reasons for r in result.rejected_nodes} == {
        "a": ["node(s) didn't match Pod's node affinity/selector"]
    }
    assert (
        analyze(
            as_list(a, b),
            make_pod("p").node_selector(**{"topology.kubernetes.io/zone": "z1"}).obj(),
        ).node
        == "a"
    )


def test_host_ports_conflict_on_same_protocol_only() -> None:
    node = make_node("n1").obj()
    user = make_pod("user").priority(0).node("n1").host_port(9100).obj()
    assert _reasons(node, user, pod=make_pod("p").host_port(9100).obj()) == {
        "n1": ["node(s) didn't have free ports for the requested pod ports"]
    }
    assert (
        analyze(as_list(node, user), make_pod("p").host_port(9100, "UDP").obj()).outcome == "fits"
    )


def test_resources_fit_reasons_in_scheduler_order_and_codes() -> None:
    node = make_node("n1").capacity(cpu="2", memory="1Gi", pods="1").obj()
    running = (
        make_pod("r").priority(0).req(cpu="1").node("n1").start_time("2025-06-02T08:00:00Z").obj()
    )
    pod = make_pod("p").priority(0).req(cpu="3", memory="512Mi").obj()
    result = analyze(as_list(node, running), pod)
    (rej,) = result.rejected_nodes
    assert rej.status.reasons == ["Too many pods", "Insufficient cpu"]
    # 3 cpu exceeds the node's 2 allocatable outright: preemption cannot help.
    assert rej.status.code.label == "UnschedulableAndUnresolvable"


def test_extended_resource_missing_on_node() -> None:
    node = make_node("n1").obj()
    assert _reasons(node, pod=make_pod("p").req(gpu="1").obj()) == {
        "n1": ["Insufficient nvidia.com/gpu"]
    }


def test_nominated_pods_of_higher_priority_take_their_room() -> None:
    node = make_node("n1").capacity(cpu="2").obj()
    nominated = make_pod("nom").priority(100).req(cpu="2").nominated("n1").obj()
    pending = make_pod("p").priority(10).req(cpu="1").obj()
    assert _reasons(node, nominated, pod=pending) == {"n1": ["Insufficient cpu"]}
    lower = make_pod("nom").priority(1).req(cpu="2").nominated("n1").obj()
    assert analyze(as_list(node, lower), pending).outcome == "fits"


def test_fit_message_histogram_sorted_as_strings() -> None:
    nodes = [make_node(f"n{i:02d}").capacity(cpu="1").obj() for i in range(10)]
    nodes.append(make_node("tainted").taint("x").obj())
    result = analyze(
        as_list(*nodes), make_pod("p").priority(0).req(cpu="2").preemption_policy("Never").obj()
    )
    assert result.message == (
        "0/11 nodes are available: 1 node(s) had untolerated taint(s), 10 Insufficient cpu. "
        "no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never."
    )


def test_scoring_prefers_least_allocated_and_reports_ties() -> None:
    busy = make_node("busy").capacity(cpu="4").obj()
    idle = make_node("idle").capacity(cpu="4").obj()
    load = (
        make_pod("load")
        .priority(0)
        .req(cpu="3")
        .node("busy")
        .start_time("2025-06-02T08:00:00Z")
        .obj()
    )
    result = analyze(as_list(busy, idle, load), make_pod("p").req(cpu="1").obj())
    assert result.node == "idle"
    tie = analyze(
        as_list(make_node("a").obj(), make_node("b").obj()), make_pod("p").req(cpu="1").obj()
    )
    assert tie.node == "a" and tie.top_scored_nodes == ["a", "b"]
