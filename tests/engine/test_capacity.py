"""Room per tier: capacity() read against simulate() itself, and small cases counted by hand."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusters.demo import demo_cat3_pod, demo_objects
from scheduling.engine import InvalidInput, load_cluster, simulate
from scheduling.engine.capacity import (
    MAX_LIMIT,
    Capacity,
    Placement,
    RoomByClass,
    capacity,
    capacity_by_class,
    replica_set_of,
)
from scheduling.engine.workload import expand_workload
from tests.engine.builders import make_node, make_pdb, make_pod, make_priority_class
from tests.fixtures.eks_like import eks_like, small_pod


def _classes() -> list[dict[str, Any]]:
    return [
        make_priority_class("low", 100),
        make_priority_class("mid", 1000),
        make_priority_class("high", 10_000),
        make_priority_class("polite", 10_000, policy="Never"),
    ]


def _three_nodes(*, pdb_allowed: int | None = None) -> list[dict[str, Any]]:
    """Three 4-CPU nodes: node-a runs two 1-CPU "low" pods (2 CPU free), node-b three
    (1 free), node-c nothing (4 free)."""
    items = [*_classes()]
    items += [make_node(n).capacity(cpu="4", memory="16Gi", pods="110").obj() for n in "abc"]
    for node, count in (("a", 2), ("b", 3)):
        for i in range(count):
            items.append(
                make_pod(f"{node}-{i}")
                .priority_class("low")
                .priority(100)
                .labels(app=f"app-{node}")
                .node(node)
                .req(cpu="1")
                .start_time(f"2025-06-01T00:0{i}:00Z")
                .obj()
            )
    if pdb_allowed is not None:
        items.append(
            make_pdb("b-pdb", match_labels={"app": "app-b"}, disruptions_allowed=pdb_allowed)
        )
    return items


def _template(klass: str, cpu: str = "1") -> dict[str, Any]:
    return make_pod("web").priority_class(klass).labels(app="web").req(cpu=cpu).obj()


def test_three_nodes_counted_by_hand() -> None:
    # 2 + 1 + 4 CPUs are free: seven 1-CPU replicas fit as the cluster stands; the five
    # "low" pods make room for five more; of 15 asked, three are left.
    answer = capacity(_three_nodes(), _template("high"), limit=15)
    assert (answer.fit_now, answer.fit_by_preempting, answer.unplaced) == (7, 5, 3)
    assert len(answer.victims) == 5
    assert answer.victims_by_class == {"low": 5}
    assert answer.apps_hit == (
        "default/a-0",
        "default/a-1",
        "default/b-0",
        "default/b-1",
        "default/b-2",
    )
    assert answer.stop_reason == "no-progress-after-flush"
    # The seven that fit come first, the ones placed by preempting after them.
    assert [p.placement for p in answer.curve] == [Placement.NOW] * 7 + [Placement.PREEMPTING] * 5
    assert [p.replica for p in answer.curve] == list(range(1, 13))
    assert answer.curve[6].victims_total == 0
    assert answer.curve[-1].victims_total == 5
    # Each 1-CPU replica past the free room costs exactly one 1-CPU victim.
    assert all(len(p.preempted) == 1 for p in answer.curve[7:])


def test_replicas_are_named_as_a_replica_sets() -> None:
    answer = capacity(_three_nodes(), _template("high"), limit=3)
    assert answer.template.pod == "default/web"
    for p in answer.curve:
        ns, name = p.pod.split("/")
        # generateName "web-" plus five characters, as the ReplicaSet controller names them.
        assert ns == "default" and name.startswith("web-") and len(name) == len("web-") + 5


def test_a_template_without_labels_still_makes_a_valid_replica_set() -> None:
    pod = make_pod("bare").priority_class("high").req(cpu="1").obj()
    rs = replica_set_of(pod, 2)
    pods = expand_workload([rs], max_replicas=2).pods
    assert len(pods) == 2
    assert all(p["metadata"]["labels"] == rs["spec"]["selector"]["matchLabels"] for p in pods)


def test_a_class_that_may_not_preempt_gets_only_the_free_room() -> None:
    answer = capacity(_three_nodes(), _template("polite"), limit=10)
    assert (answer.fit_now, answer.fit_by_preempting, answer.unplaced) == (7, 0, 3)
    assert answer.victims == ()
    assert answer.template.preemption_policy == "Never"


def test_a_class_no_higher_than_the_running_pods_preempts_nothing() -> None:
    answer = capacity(_three_nodes(), _template("low"), limit=10)
    assert (answer.fit_now, answer.fit_by_preempting, answer.unplaced) == (7, 0, 3)


def test_a_pdb_taken_past_its_budget_is_counted_once() -> None:
    # The budget of app-b allows 1 disruption; placing all twelve takes all three of its pods.
    answer = capacity(_three_nodes(pdb_allowed=1), _template("high"), limit=12)
    assert answer.placed == 12
    assert answer.pdbs_exceeded == ("default/b-pdb",)
    assert answer.pdb_budgets == {"default/b-pdb": 1}
    assert answer.curve[-1].pdbs_exceeded == 1
    # It is exceeded from the replica whose own victim was the second app-b pod onwards.
    taken = 0
    for p in answer.curve:
        taken += sum(1 for v in p.preempted if v.startswith("default/b-"))
        assert p.pdbs_exceeded == (1 if taken > 1 else 0)


def test_the_demo_placed_by_preempting_every_app_pod() -> None:
    # clusters/demo.py: no node has 1 CPU and 2 GiB free, so no cat-3 replica fits as the
    # cluster stands. Each node's cat-1 and cat-2 pods (1 CPU each) free room for one
    # replica each (node-5's ingress is cluster-service and stays): 3+3+3+3+2 = 14, at the
    # cost of all 8 cat-1 and 6 cat-2 pods, and every app's PDB (1 disruption allowed).
    answer = capacity(demo_objects(), demo_cat3_pod(), limit=20)
    assert (answer.fit_now, answer.fit_by_preempting, answer.unplaced) == (0, 14, 6)
    assert answer.victims_by_class == {"cat-2": 6, "cat-1": 8}
    assert answer.victim_classes == ("cat-2", "cat-1")
    assert len(answer.apps_hit) == 4
    assert answer.pdbs_exceeded == (
        "default/blue-pdb",
        "default/green-pdb",
        "default/purple-pdb",
        "default/red-pdb",
    )
    assert Counter(p.node for p in answer.curve) == {
        "node-1": 3,
        "node-2": 3,
        "node-3": 3,
        "node-4": 3,
        "node-5": 2,
    }


def test_the_demo_by_class_table() -> None:
    # cat-2 may preempt only the 8 cat-1 pods: 2 on node-1, node-2 and node-5 each free
    # room for two replicas, 1 on node-3 and node-4 for one each: 8. cat-1 preempts nobody.
    table = capacity_by_class(demo_objects(), "1", "2Gi", limit=20)
    rows = {r.priority_class: r for r in table.rows}
    assert [r.priority_class for r in table.rows] == ["cluster-service", "cat-3", "cat-2", "cat-1"]
    assert (rows["cat-3"].fit_by_preempting, rows["cat-3"].victims_total) == (14, 14)
    assert (rows["cat-2"].fit_by_preempting, rows["cat-2"].victims_by_class) == (8, {"cat-1": 8})
    assert (rows["cat-1"].fit_now, rows["cat-1"].fit_by_preempting, rows["cat-1"].unplaced) == (
        0,
        0,
        20,
    )
    assert rows["cat-2"].pdbs_exceeded == 2  # blue's and purple's
    assert RoomByClass.from_dict(table.to_dict()) == table


def test_it_refuses_a_limit_out_of_range_and_a_bad_size() -> None:
    for bad in (0, MAX_LIMIT + 1, "10", True):
        with pytest.raises(InvalidInput, match="limit"):
            capacity(_three_nodes(), _template("high"), limit=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="not a quantity"):
        capacity_by_class(_three_nodes(), "two", "1Gi", limit=1)
    with pytest.raises(InvalidInput, match="more than 0"):
        capacity_by_class(_three_nodes(), "1", "0", limit=1)


def test_it_reads_back_what_it_wrote() -> None:
    answer = capacity(_three_nodes(pdb_allowed=0), _template("high"), limit=14)
    assert Capacity.from_dict(answer.to_dict()) == answer


# Against simulate itself --------------------------------------------------------------


@st.composite
def clusters(draw: Any) -> tuple[list[dict[str, Any]], dict[str, Any], int]:
    items = [*_classes()]
    # Small, busy nodes: most templates find some room, then have to preempt for more.
    nodes = draw(st.integers(1, 4))
    for n in range(nodes):
        cpu = draw(st.sampled_from(["2", "4", "4", "8"]))
        items.append(make_node(f"n{n}").capacity(cpu=cpu, memory="16Gi", pods="110").obj())
    for i in range(draw(st.integers(2, 16))):
        klass = draw(st.sampled_from(["low", "low", "mid", "high"]))
        b = (
            make_pod(f"run-{i}", draw(st.sampled_from(["a", "b"])))
            .priority_class(klass)
            .priority({"low": 100, "mid": 1000, "high": 10_000}[klass])
            .labels(app=f"app{i % 3}")
            .node(f"n{draw(st.integers(0, nodes - 1))}")
            .req(cpu=f"{draw(st.integers(1, 20)) * 100}m")
            .start_time(f"2025-06-01T00:{i:02d}:00Z")
        )
        items.append(b.obj())
    for ns in ("a", "b"):
        if draw(st.booleans()):
            items.append(
                make_pdb(
                    f"pdb-{ns}",
                    ns,
                    match_labels={"app": f"app{draw(st.integers(0, 2))}"},
                    disruptions_allowed=draw(st.integers(0, 2)),
                )
            )
    template = (
        make_pod("tpl", draw(st.sampled_from(["a", "b"])))
        .priority_class(draw(st.sampled_from(["mid", "high", "high", "polite"])))
        .labels(app="tpl")
        .req(cpu=f"{draw(st.integers(1, 30)) * 100}m")
        .obj()
    )
    return items, template, draw(st.integers(1, 12))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_the_answer_is_what_the_simulate_run_says(
    case: tuple[list[dict[str, Any]], dict[str, Any], int],
) -> None:
    items, template, limit = case
    cluster = load_cluster(items)
    answer = capacity(cluster, template, limit=limit)

    # The same replicas through simulate, read from its contract alone.
    taken = [p.key for p in cluster.pods]
    pods = expand_workload([replica_set_of(template, limit)], max_replicas=limit, taken=taken).pods
    run = simulate(cluster, pods).to_dict()
    # The replicas' Diagnosis, FailedScheduling message and dry runs are kept from cycle
    # to cycle and redone only for the nodes that changed: a node left stale shows here.
    assert run == simulate(cluster, pods, reuse_answers=False).to_dict()
    bound = [y for y in run["cycles"] if y["result"] == "bound"]
    deleting = [y["cycle"] for y in run["cycles"] if y.get("victims")]
    nominated_first = {}
    for n in run["nominations"]:
        if n["to"]:
            nominated_first.setdefault(n["pod"], n["cycle"])
    bound_free = [
        y
        for y in bound
        if (not deleting or y["cycle"] < deleting[0])
        and nominated_first.get(y["pod"], y["cycle"]) >= y["cycle"]
    ]
    assert answer.fit_now == len(bound_free)
    assert answer.fit_now + answer.fit_by_preempting == sum(
        1 for p in run["pods"] if p["final"] == "bound"
    )
    assert answer.unplaced == sum(1 for p in run["pods"] if p["final"] == "pending")
    assert [(p.pod, p.node) for p in answer.curve] == [(y["pod"], y["node"]) for y in bound]

    # Every victim the run deleted, and only those, with the class it had.
    assert sorted(v.pod for v in answer.victims) == run["deleted_victims"]
    classes = {
        f"{o['metadata']['namespace']}/{o['metadata']['name']}": o["spec"]["priorityClassName"]
        for o in items
        if o["kind"] == "Pod"
    }
    assert answer.victims_by_class == dict(Counter(classes[k] for k in run["deleted_victims"]))
    # The curve's totals: each placed replica's own victims, the rest (victims of replicas
    # that then found no room) apart.
    by_preemptor = Counter(y["pod"] for y in run["cycles"] for _ in y.get("victims", []))
    placed_victims = sum(by_preemptor[y["pod"]] for y in bound)
    last = answer.curve[-1] if answer.curve else None
    assert (last.victims_total if last else 0) == placed_victims
    assert placed_victims + len(answer.wasted_victims) == len(run["deleted_victims"])
    if last is not None and not answer.wasted_victims:
        assert sum(last.victims_by_class.values()) == len(run["deleted_victims"])
        assert last.pdbs_exceeded == len(answer.pdbs_exceeded)
    assert set(answer.pdbs_exceeded) == {r["pdb"] for r in run["pdb_report"] if r["exceeded"]}
    # The curve never goes down.
    for a, b in zip(answer.curve, answer.curve[1:], strict=False):
        assert b.victims_total >= a.victims_total and b.apps_hit >= a.apps_hit
        assert b.pdbs_exceeded >= a.pdbs_exceeded
        assert all(b.victims_by_class.get(c, 0) >= n for c, n in a.victims_by_class.items())
    # A class that may not preempt never has a victim.
    if answer.template.preemption_policy == "Never":
        assert answer.victims == () and answer.fit_by_preempting == 0


def test_a_victim_without_a_class_is_counted_under_its_value() -> None:
    # One 4-CPU node full of a classless pod of priority 5: the "low" template (100)
    # preempts it, and the split names it by its value.
    items = [
        *_classes(),
        make_node("n").capacity(cpu="4", memory="16Gi", pods="110").obj(),
        make_pod("old").priority(5).node("n").req(cpu="4").obj(),
    ]
    answer = capacity(items, _template("low"), limit=1)
    assert answer.victims_by_class == {"priority 5": 1}
    assert answer.curve[0].victims_by_class == {"priority 5": 1}


# Why the replicas left cannot be placed ---------------------------------------------------


def test_the_replicas_left_say_why_in_kube_schedulers_words() -> None:
    # tests/fixtures/eks_like.py: four t3.small nodes with 11 pod slots each. The first
    # two hold 8 pods (aws-node, kube-proxy, coredns, five users'), the others 7: slots for
    # 3 + 3 + 4 + 4 replicas; the last node's users' pods leave it 2000m - 25m - 100m -
    # 5 x 350m = 125m of cpu, two 50m replicas. So 12 fit, and the 38 left each end on
    # NodeResourcesFit's "Too many pods" on three nodes and "Insufficient cpu" on the last.
    # No class: priority 0 preempts nothing, so preemption finds no victims anywhere.
    answer = capacity(eks_like(), small_pod(), limit=50)
    assert (answer.fit_now, answer.fit_by_preempting, answer.unplaced) == (12, 0, 38)
    assert len(answer.unplaced_reasons) == 1
    why = answer.unplaced_reasons[0]
    assert why.replicas == 38 and why.nodes == 4
    assert dict(why.reasons) == {"Too many pods": 3, "Insufficient cpu": 1}
    assert why.filters == "0/4 nodes are available: 1 Insufficient cpu, 3 Too many pods"
    assert why.preemption == (
        "0/4 nodes are available: 4 No preemption victims found for incoming pod."
    )
    assert why.message.startswith(why.filters + ". ")
    body = answer.to_dict()
    assert body["unplaced_reasons"][0]["reasons"] == [
        {"reason": "Insufficient cpu", "nodes": 1},
        {"reason": "Too many pods", "nodes": 3},
    ]
    assert Capacity.from_dict(body) == answer
    # An answer stored before the reasons were kept reads back without them.
    del body["unplaced_reasons"]
    assert Capacity.from_dict(body).unplaced_reasons == ()


def test_every_replica_placed_leaves_no_reason() -> None:
    answer = capacity(eks_like(), small_pod(), limit=12)
    assert answer.unplaced == 0 and answer.unplaced_reasons == ()


def test_the_reasons_group_the_replicas_by_their_last_message() -> None:
    # Within the limit every replica left is counted once, under one message or another.
    for limit in (13, 20, 50):
        answer = capacity(_three_nodes(), _template("low"), limit=limit)
        assert sum(u.replicas for u in answer.unplaced_reasons) == answer.unplaced
        assert all(u.message and u.nodes == 3 for u in answer.unplaced_reasons)


def test_a_cluster_without_classes_of_its_own_has_the_no_class_row() -> None:
    # The EKS shape: only the two built-in classes, no globalDefault, so a pod naming no
    # class runs at 0, the one tier the table has.
    table = capacity_by_class(eks_like(), "50m", "64Mi", limit=50)
    assert len(table.rows) == 1
    row = table.rows[0]
    assert (row.priority_class, row.value, row.tier) == (None, 0, "(no class) priority 0")
    assert (row.fit_now, row.fit_by_preempting, row.unplaced) == (12, 0, 38)
    assert row.unplaced_why.startswith(
        "0/4 nodes are available: 1 Insufficient cpu, 3 Too many pods."
    )
    assert table.to_dict()["classes"][0]["priority_class"] is None
    assert RoomByClass.from_dict(table.to_dict()) == table


def test_the_no_class_row_follows_the_classes_unless_one_is_the_global_default() -> None:
    # _three_nodes has four classes and no globalDefault: five rows, the default last.
    table = capacity_by_class(_three_nodes(), "1", "1Gi", limit=3)
    assert [r.priority_class for r in table.rows] == ["high", "polite", "mid", "low", None]
    # With "low" the globalDefault, a pod naming no class runs in it: its row says it.
    items = [
        *(c for c in _three_nodes() if c["kind"] != "PriorityClass"),
        make_priority_class("low", 100, global_default=True),
        make_priority_class("high", 10_000),
    ]
    table = capacity_by_class(items, "1", "1Gi", limit=3)
    assert [r.priority_class for r in table.rows] == ["high", "low"]
