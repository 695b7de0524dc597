"""Each kind of advice, proven again from outside: the change applied to the question
by the tests' own means, answered afresh, and one step less still evicting."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling.engine import analyze, load_cluster
from scheduling.engine.advice import (
    MAX_RUNS_PER_KIND,
    AddNodes,
    Advice,
    AdviceKind,
    CreateObjects,
    ObjectPatch,
    PodQuestion,
    WorkloadQuestion,
    advise,
)
from tests.engine.advice.scenarios import (
    HIGH,
    LOW,
    ask,
    check_one_step_less,
    deployment,
    filler,
    pending,
    two_nodes,
)
from tests.engine.builders import make_node, make_pod


def items(advice: Advice, kind: AdviceKind) -> list[Any]:
    return [i for i in advice.items if i.kind == kind]


def check_proven(
    objects: list[dict[str, Any]], submitted: list[dict[str, Any]], advice: Advice
) -> None:
    assert advice.items
    for item in advice.items:
        outcome, victims = ask(objects, submitted, item.change)
        assert (outcome, victims) == (item.outcome, sorted(item.victims)), item.kind
        check_one_step_less(objects, submitted, item.proof.one_step_less)
        assert item.proof.runs >= 1
    for search in advice.searches:
        assert search.runs <= MAX_RUNS_PER_KIND


def test_a_pod_that_preempts_gets_each_kind_proven() -> None:
    objects = two_nodes()
    pod = pending(cpu="2")
    advice = advise(load_cluster(objects), PodQuestion(pod))
    assert advice.baseline.outcome == "preempts" and advice.baseline.victims
    check_proven(objects, [pod], advice)

    (cpu,) = [i for i in items(advice, AdviceKind.SMALLER_REQUEST) if len(i.change.patch) == 1]
    assert isinstance(cpu.change, ObjectPatch)
    assert cpu.change.to_dict() == {
        "object": 0,
        "patch": [
            {"op": "replace", "path": "/spec/containers/0/resources/requests/cpu", "value": "1"}
        ],
    }
    assert (cpu.outcome, cpu.node, cpu.victims) == ("fits", "node-a", ())
    assert cpu.proof.one_step_less is not None
    assert cpu.proof.one_step_less.change is not None
    assert cpu.proof.one_step_less.change.to_dict()["patch"][0]["value"] == "1010m"

    (nodes,) = items(advice, AdviceKind.ADD_NODES)
    assert nodes.change == AddNodes(1, "node-a")
    assert nodes.outcome == "fits" and not nodes.victims

    # The class that never preempts, then the highest class not above the victims'.
    wait, below = items(advice, AdviceKind.WAIT_INSTEAD)
    assert wait.change.to_dict()["patch"] == [
        {"op": "replace", "path": "/spec/priorityClassName", "value": "high-waiting"}
    ]
    assert wait.outcome == "unschedulable" and not wait.victims
    assert wait.detail.startswith("waits: 0/2 nodes are available")
    assert below.change.to_dict()["patch"][0]["value"] == "low"


def test_protect_names_the_budget_and_the_other_victims() -> None:
    objects = two_nodes()
    pod = pending(cpu="2")
    advice = advise(load_cluster(objects), PodQuestion(pod), kinds=[AdviceKind.PROTECT])
    (protect,) = advice.items
    assert advice.baseline.victims == ("default/red-2",)
    assert isinstance(protect.change, CreateObjects)
    (pdb,) = protect.change.to_dict()["create"]
    assert pdb["spec"] == {"maxUnavailable": 0, "selector": {"matchLabels": {"app": "red"}}}
    assert protect.outcome == "preempts" and protect.node == "node-b"
    assert all("blue" in v for v in protect.victims)
    outcome, victims = ask(objects, [pod], protect.change)
    assert (outcome, victims) == ("preempts", sorted(protect.victims))
    check_one_step_less(objects, [pod], protect.proof.one_step_less)


def test_protect_says_when_no_budget_would() -> None:
    # blue already has a budget at zero: every candidate node then violates one.
    objects = two_nodes(budgets=True)
    pod = pending(cpu="2")
    advice = advise(load_cluster(objects), PodQuestion(pod), kinds=[AdviceKind.PROTECT])
    assert advice.baseline.node == "node-a"
    assert advice.items == ()
    assert any("no budget would protect ReplicaSet default/red-abc" in n.text for n in advice.notes)


def test_relax_a_node_selector_that_forces_the_eviction() -> None:
    objects = two_nodes(zone_b=True)
    pod = pending(cpu="600m")
    pod["spec"]["nodeSelector"] = {"topology.kubernetes.io/zone": "zone-b"}
    advice = advise(load_cluster(objects), PodQuestion(pod), kinds=[AdviceKind.RELAX])
    assert advice.baseline.outcome == "preempts" and advice.baseline.node == "node-b"
    (relax,) = advice.items
    assert relax.summary == "make the nodeSelector a preferred node affinity"
    assert (relax.outcome, relax.node, relax.victims) == ("fits", "node-a", ())
    check_proven(objects, [pod], advice)


def test_a_workload_gets_fewer_replicas_smaller_requests_and_nodes() -> None:
    objects = two_nodes()
    dep = deployment(4, cpu="1")
    advice = advise(load_cluster(objects), WorkloadQuestion([dep]))
    assert advice.baseline.victims
    check_proven(objects, [dep], advice)
    # 1 cpu free on node-a, 500m on node-b.
    (fewer,) = items(advice, AdviceKind.FEWER_REPLICAS)
    assert fewer.change.to_dict() == {
        "object": 0,
        "patch": [{"op": "replace", "path": "/spec/replicas", "value": 1}],
    }
    assert fewer.outcome == "all-run"
    cpu = [i for i in items(advice, AdviceKind.SMALLER_REQUEST) if len(i.change.patch) == 1]
    assert cpu[0].change.to_dict()["patch"][0] == {
        "op": "replace",
        "path": "/spec/template/spec/containers/0/resources/requests/cpu",
        "value": "330m",  # 3 on node-a, 1 on node-b; at 340m only 2 + 1
    }
    (nodes,) = items(advice, AdviceKind.ADD_NODES)
    assert nodes.change == AddNodes(1, "node-a")


def test_nothing_to_avoid_gives_no_advice() -> None:
    objects = two_nodes()
    advice = advise(load_cluster(objects), PodQuestion(pending(cpu="500m")))
    assert advice.baseline.outcome == "fits"
    assert advice.as_contract() == {"advice": []}
    assert advice.runs == 1


def test_the_budget_stops_the_search_and_says_so() -> None:
    objects = two_nodes()
    advice = advise(load_cluster(objects), PodQuestion(pending(cpu="2")), budget_seconds=0.0)
    assert advice.stopped_early
    assert advice.items == ()
    assert all(s.runs == 0 for s in advice.searches)
    assert "budget" in {s.stopped for s in advice.searches}
    assert advice.to_dict()["search"]["stopped_early"] is True


@pytest.mark.parametrize("max_runs", [1, 2, 3])
def test_runs_per_kind_never_pass_the_bound(max_runs: int) -> None:
    objects = two_nodes()
    advice = advise(
        load_cluster(objects),
        WorkloadQuestion([deployment(4, cpu="1")]),
        max_runs_per_kind=max_runs,
    )
    assert all(s.runs <= max_runs for s in advice.searches)
    # One run cannot prove a change and its step less: only kinds without a step (the
    # question as asked is their step less) advise anything.
    if max_runs == 1:
        assert advice.stopped_early
        assert {i.kind for i in advice.items} <= {AdviceKind.WAIT_INSTEAD, AdviceKind.RELAX}
    for item in advice.items:
        assert item.proof.runs <= max_runs


def test_the_contract_shape_and_reading_it_back() -> None:
    objects = two_nodes()
    advice = advise(load_cluster(objects), PodQuestion(pending(cpu="2")))
    contract = advice.as_contract()
    assert list(contract) == ["advice"]
    for raw in contract["advice"]:
        assert list(raw) == [
            "kind",
            "change",
            "outcome",
            "node",
            "victims",
            "pdbs_exceeded",
            "proof",
        ]
        assert list(raw["proof"]) == ["runs", "seconds", "one_step_less"]
        assert list(raw["proof"]["one_step_less"]) == ["change", "outcome", "victims"]
    assert Advice.from_dict(advice.to_dict()).to_dict() == advice.to_dict()
    assert Advice.from_dict(contract).as_contract() == contract


def test_the_cached_cluster_is_not_changed() -> None:
    objects = two_nodes()
    cluster = load_cluster(objects)
    pod = pending(cpu="2")
    before = ([n.name for n in cluster.nodes], len(cluster.pdbs), len(cluster.node_infos))
    advice = advise(cluster, PodQuestion(pod))
    assert {i.kind for i in advice.items} >= {AdviceKind.ADD_NODES, AdviceKind.PROTECT}
    assert ([n.name for n in cluster.nodes], len(cluster.pdbs), len(cluster.node_infos)) == before
    again = advise(cluster, PodQuestion(pod))
    assert [(i.kind, i.change, i.outcome, i.victims) for i in again.items] == [
        (i.kind, i.change, i.outcome, i.victims) for i in advice.items
    ]
    assert analyze(cluster, pod).victims == list(advice.baseline.victims)


def test_relax_a_required_anti_affinity() -> None:
    objects = two_nodes()
    # A web pod of high priority runs on node-a, which alone has the room; the new one
    # may not share a node with it, so it preempts on node-b.
    web = make_pod("web-0").priority(10_000).labels(app="web").req(cpu="100m").node("node-a").obj()
    objects.append(web)
    pod = pending(cpu="900m")
    pod["spec"]["affinity"] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"app": "web"}},
                    "topologyKey": "kubernetes.io/hostname",
                }
            ]
        }
    }
    advice = advise(load_cluster(objects), PodQuestion(pod), kinds=[AdviceKind.RELAX])
    assert advice.baseline.outcome == "preempts" and advice.baseline.node == "node-b"
    (relax,) = advice.items
    assert relax.summary.startswith("make the required pod anti-affinity term 0")
    assert relax.change.to_dict()["patch"] == [
        {
            "op": "remove",
            "path": "/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution",
        },
        {
            "op": "add",
            "path": "/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution",
            "value": [
                {
                    "weight": 100,
                    "podAffinityTerm": pod["spec"]["affinity"]["podAntiAffinity"][
                        "requiredDuringSchedulingIgnoredDuringExecution"
                    ][0],
                }
            ],
        },
    ]
    assert (relax.outcome, relax.node, relax.victims) == ("fits", "node-a", ())
    check_proven(objects, [pod], advice)


def test_add_nodes_copies_a_node_that_could_hold_the_pod() -> None:
    # Three small nodes (the common shape) cannot hold a 3-cpu pod; the one big node can.
    objects: list[dict[str, Any]] = [LOW, HIGH]
    for i in range(3):
        objects.append(make_node(f"small-{i}").capacity(cpu="2").obj())
    objects.append(make_node("big-0").capacity(cpu="8").obj())
    objects += [filler("fill-1", "big-0", "3", "red"), filler("fill-2", "big-0", "3", "red")]
    pod = pending(cpu="3")
    advice = advise(load_cluster(objects), PodQuestion(pod), kinds=[AdviceKind.ADD_NODES])
    (nodes,) = advice.items
    assert nodes.change == AddNodes(1, "big-0")
    check_proven(objects, [pod], advice)
