"""take_nodes_away: drains and lost nodes on small clusters whose answers are worked out
by hand (kubectl drain's filters, the eviction API's budget rule, the controllers'
naming and the scheduler's preemption), written beside each case."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling.engine.errors import InvalidInput
from scheduling.engine.simulate import simulate
from scheduling.engine.take_nodes_away import AddNodes, TakeNodesAway, take_nodes_away
from tests.engine.builders import as_list, make_node, make_pdb, make_pod

EARLY = "2025-06-01T08:00:00Z"


def running(name: str, node: str, cpu: str, *, start: str = EARLY, ns: str = "default") -> Any:
    return make_pod(name, ns).req(cpu=cpu).node(node).start_time(start)


def issue_cluster(*, allowed: int = 1, min_available: int = 1) -> dict[str, Any]:
    """The issue's cluster: three 4-cpu nodes. node-1: two 1500m replicas of a
    high-priority Deployment under a PDB, a bare pod and a DaemonSet pod; node-2 and
    node-3: low-priority bare pods of 2000m and 3000m (the 2000m one started later)."""
    return as_list(
        make_node("node-1").obj(),
        make_node("node-2").obj(),
        make_node("node-3").obj(),
        running("api-5f6d8-aaaaa", "node-1", "1500m")
        .labels(app="api")
        .priority(1000)
        .owned("ReplicaSet", "api-5f6d8")
        .obj(),
        running("api-5f6d8-bbbbb", "node-1", "1500m")
        .labels(app="api")
        .priority(1000)
        .owned("ReplicaSet", "api-5f6d8")
        .obj(),
        running("debug", "node-1", "100m").obj(),
        running("logs-x1", "node-1", "100m").owned("DaemonSet", "logs").obj(),
        running("batch-small", "node-2", "2000m", start="2025-06-01T09:00:00Z").obj(),
        running("batch-large", "node-3", "3000m", start="2025-06-01T08:30:00Z").obj(),
        make_pdb(
            "api-pdb",
            match_labels={"app": "api"},
            disruptions_allowed=allowed,
            min_available=min_available,
        ),
    )


def drain(cluster: Any, *nodes: str, **options: Any) -> Any:
    return take_nodes_away(cluster, TakeNodesAway(nodes=tuple(nodes), **options))


# The issue's cluster ------------------------------------------------------------------


def test_forced_drain_moves_both_replicas_and_preempts_the_later_started_pod() -> None:
    r = drain(issue_cluster(), "node-1", force=True)
    d = r.to_dict()
    assert d["kind"] == "take-nodes-away" and d["how"] == "drain"
    assert d["verdict"] == "completes"
    (node,) = d["nodes"]
    assert node["node"] == "node-1"
    assert node["evicted"] == ["default/api-5f6d8-aaaaa", "default/api-5f6d8-bbbbb"]
    assert node["deleted"] == ["default/debug"]  # bare, forced: not replaced
    assert node["left"] == ["default/logs-x1"]
    assert node["blocked"] == [] and node["stopped_at"] is None
    returning = d["returning"]
    assert [x["replaces"] for x in returning] == [
        "default/api-5f6d8-aaaaa",
        "default/api-5f6d8-bbbbb",
    ]
    # Fresh names as the ReplicaSet's generateName gives them: owner, dash, 5 characters.
    for x in returning:
        assert x["pod"].startswith("default/api-5f6d8-") and len(x["pod"]) == len(
            "default/api-5f6d8-aaaaa"
        )
        assert x["pod"] not in ("default/api-5f6d8-aaaaa", "default/api-5f6d8-bbbbb")
    # The first fits on node-2 (2000m + 1500m of 4000m); the second fits nowhere
    # (500m left on node-2, 1000m on node-3) and preempts: one 0-priority victim on
    # either node, and the tie goes to the node whose victim started later: node-2.
    assert [x["node"] for x in returning] == ["node-2", "node-2"]
    assert all(x["reason"] is None for x in returning)
    (p,) = d["preemptions"]
    assert p["preemptor"] == returning[1]["pod"]
    assert p["node"] == "node-2"
    assert p["victims"] == ["default/batch-small"]
    assert d["pending"] == [] and d["pdbs_exceeded"] == []
    # Nothing the drain deletes comes back without a controller.
    assert "default/debug" not in {x["replaces"] for x in returning}
    assert r.sentence.startswith("The drain of 1 node completes in ")
    assert "2 pods move" in r.sentence and "1 lower-priority pod is preempted" in r.sentence


def test_the_budget_lets_the_second_eviction_through_once_the_first_replacement_runs() -> None:
    r = drain(issue_cluster(), "node-1", force=True)
    terms = {t["pod"]: t for t in r.to_dict()["terminations"]}
    # The PDB allows 1: the first replica is evicted at time zero, the second refused
    # (429) until the first replacement runs (cycle 1), then retried on kubectl's 5 s.
    assert terms["default/api-5f6d8-aaaaa"]["deleted_at"] == 0.0
    assert terms["default/api-5f6d8-bbbbb"]["deleted_at"] == 5.0
    # Each keeps running for its 30 s grace period; the node is done when the last goes.
    assert terms["default/api-5f6d8-bbbbb"]["gone_at"] == 35.0
    assert r.nodes[0].done_at == 35.0
    assert r.completed_at == 35.0
    # The second replacement (created at 5 s) preempts; its victim terminates for 30 s
    # and only then does the replacement bind.
    second = r.returning[1]
    assert second.created_at == 5.0
    assert second.bound_at is not None and second.bound_at >= 35.0


def test_replacements_land_where_simulate_puts_the_same_pending_pods() -> None:
    """The drain's replacements and a workload what-if of the same two pods on the
    cordoned cluster (node-1 unschedulable, its replicas gone) agree."""
    r = drain(issue_cluster(), "node-1", force=True)
    cordoned = issue_cluster()
    items = cordoned["items"]
    items[0] = make_node("node-1").unschedulable().obj()
    items[:] = [
        i for i in items if i["metadata"]["name"] not in ("api-5f6d8-aaaaa", "api-5f6d8-bbbbb")
    ]
    pending = [
        make_pod(x.pod.split("/")[1]).labels(app="api").priority(1000).req(cpu="1500m").obj()
        for x in r.returning
    ]
    sim = simulate(cordoned, pending)
    assert [p.node for p in sim.pods] == [x.node for x in r.returning]
    assert sim.to_dict()["deleted_victims"] == r.preemptions[0].victims


def test_without_force_the_drain_stops_at_the_bare_pod() -> None:
    r = drain(issue_cluster(), "node-1")
    assert r.verdict == "stopped"
    (node,) = r.to_dict()["nodes"]
    # kubectl's filter refuses the whole node before any eviction.
    assert node["stopped_at"] == "default/debug"
    assert node["evicted"] == [] and node["deleted"] == []
    assert r.returning == [] and r.to_dict()["terminations"] == []
    assert "default/debug" in r.sentence and "no controller" in r.sentence


def test_stopped_drain_keeps_the_nodes_drained_before() -> None:
    c = issue_cluster()
    c["items"].append(make_node("node-0").obj())
    c["items"].append(running("web-1", "node-0", "100m").owned("ReplicaSet", "web").obj())
    r = drain(c, "node-0", "node-1")
    assert r.verdict == "stopped"
    assert r.nodes[0].evicted == ["default/web-1"] and r.nodes[0].done_at == 30.0
    assert r.nodes[1].stopped_at == "default/debug"
    assert r.nodes[1].started_at == 30.0


def test_a_budget_that_never_allows_blocks_naming_it_and_the_pod() -> None:
    # minAvailable 2 of 2: 0 allowed, and nothing can raise it (no replacement is made
    # before an eviction): both evictions are refused for good.
    r = drain(issue_cluster(allowed=0, min_available=2), "node-1", force=True)
    d = r.to_dict()
    assert d["verdict"] == "blocked"
    assert [(b["pod"], b["pdb"]) for b in d["nodes"][0]["blocked"]] == [
        ("default/api-5f6d8-aaaaa", "default/api-pdb"),
        ("default/api-5f6d8-bbbbb", "default/api-pdb"),
    ]
    assert d["nodes"][0]["evicted"] == []
    assert d["returning"] == []
    assert "PDB default/api-pdb allows no disruption of default/api-5f6d8-aaaaa" in r.sentence


def test_a_pod_two_budgets_select_is_refused() -> None:
    c = issue_cluster()
    c["items"].append(make_pdb("api-pdb-2", match_labels={"app": "api"}, disruptions_allowed=5))
    r = drain(c, "node-1", force=True)
    assert r.verdict == "blocked"
    b = r.nodes[0].blocked[0]
    assert b.pdb == "default/api-pdb, default/api-pdb-2"
    assert "more than one PodDisruptionBudget" in b.message


# StatefulSets ------------------------------------------------------------------------


def stateful_cluster(grace: int = 10) -> dict[str, Any]:
    """db-0..db-2 of a StatefulSet on node-a, each 1 cpu; node-b empty."""
    pods = [
        running(f"db-{i}", "node-a", "1").labels(app="db").owned("StatefulSet", "db").grace(grace)
        for i in (2, 0, 1)
    ]
    return as_list(make_node("node-a").obj(), make_node("node-b").obj(), *(p.obj() for p in pods))


def test_statefulset_pods_return_under_their_names_in_ordinal_order() -> None:
    r = drain(stateful_cluster(), "node-a")
    assert r.verdict == "completes"
    # Same names, made again one at a time in ordinal order: each once its old self
    # is gone (10 s) and every lower ordinal runs.
    assert [x.pod for x in r.returning] == ["default/db-0", "default/db-1", "default/db-2"]
    assert [x.replaces for x in r.returning] == [x.pod for x in r.returning]
    assert all(x.node == "node-b" for x in r.returning)
    created = [x.created_at for x in r.returning]
    bound = [x.bound_at for x in r.returning]
    assert created[0] == 10.0
    assert created == sorted(created)
    assert all(b is not None for b in bound)
    # db-1 is made only after db-0 runs, db-2 after db-1.
    assert created[1] >= bound[0] and created[2] >= bound[1]


# Lost nodes ---------------------------------------------------------------------------


def zone_cluster() -> dict[str, Any]:
    return as_list(
        make_node("a-1").zone("zone-a").obj(),
        make_node("b-1").zone("zone-b").obj(),
        running("web-aaaaa", "a-1", "1").owned("ReplicaSet", "web").obj(),
        running("fast-aaaaa", "a-1", "1").owned("ReplicaSet", "fast").obj(),
        running("agent-x", "a-1", "100m")
        .owned("DaemonSet", "agent")
        .toleration(key="node.kubernetes.io/unreachable", effect="NoExecute", operator="Exists")
        .obj(),
    )


def with_seconds(c: dict[str, Any], name: str, seconds: int) -> dict[str, Any]:
    for item in c["items"]:
        if item["metadata"]["name"] == name:
            item["spec"]["tolerations"] = [
                {
                    "key": "node.kubernetes.io/unreachable",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": seconds,
                }
            ]
    return c


def test_a_lost_zone_s_pods_return_after_their_toleration_seconds() -> None:
    c = with_seconds(zone_cluster(), "fast-aaaaa", 60)
    r = take_nodes_away(c, TakeNodesAway(zone="zone-a", how="lost"))
    d = r.to_dict()
    assert d["how"] == "lost" and d["verdict"] == "completes"
    (node,) = d["nodes"]
    assert node["evicted"] == []
    assert sorted(node["deleted"]) == ["default/fast-aaaaa", "default/web-aaaaa"]
    # The DaemonSet's pod tolerates unreachable for good: it stays.
    assert node["left"] == ["default/agent-x"]
    by_old = {x["replaces"]: x for x in d["returning"]}
    # Its own 60 s; the other none of its own: 300 s, as DefaultTolerationSeconds adds.
    assert by_old["default/fast-aaaaa"]["created_at"] == 60.0
    assert by_old["default/web-aaaaa"]["created_at"] == 300.0
    assert by_old["default/fast-aaaaa"]["node"] == "b-1"
    assert by_old["default/web-aaaaa"]["node"] == "b-1"
    assert r.sentence.startswith("Losing 1 node completes in 5 min:")


# Options -----------------------------------------------------------------------------


def three_nodes_of_one_replica() -> dict[str, Any]:
    return as_list(
        *(make_node(f"n{i}").obj() for i in (1, 2, 3, 4)),
        *(
            running(f"w{i}", f"n{i}", "1").owned("ReplicaSet", "w").grace(20).obj()
            for i in (1, 2, 3)
        ),
    )


def test_rolling_drain_takes_one_node_at_a_time_by_default() -> None:
    r = drain(three_nodes_of_one_replica(), "n1", "n2", "n3")
    # Each node's pod goes for 20 s; the next node begins when it is gone.
    assert [n.started_at for n in r.nodes] == [0.0, 20.0, 40.0]
    assert [n.done_at for n in r.nodes] == [20.0, 40.0, 60.0]
    assert r.completed_at == 60.0


def test_max_unavailable_drains_nodes_together() -> None:
    r = drain(three_nodes_of_one_replica(), "n1", "n2", "n3", max_unavailable=2)
    assert [n.started_at for n in r.nodes] == [0.0, 0.0, 20.0]
    assert r.completed_at == 40.0


def test_a_drained_node_is_never_a_destination() -> None:
    r = drain(three_nodes_of_one_replica(), "n1", "n2", "n3")
    # n1's replacement may land on n2 or n3 before they are drained, but never on n1,
    # and at the end all three run on n4 (the only node not taken).
    assert [
        x.node for x in r.returning if x.replaces in ("default/w1", "default/w2", "default/w3")
    ][-1] == "n4"
    assert all(x.node != "n1" for x in r.returning)


def test_add_nodes_makes_surge_copies_first() -> None:
    c = as_list(
        make_node("old-1").label("pool", "blue").capacity(cpu="2").obj(),
        running("w-aaaaa", "old-1", "1500m").owned("ReplicaSet", "w").obj(),
    )
    # Without a surge node the replacement has nowhere to go.
    r0 = take_nodes_away(c, TakeNodesAway(selector="pool=blue"))
    assert r0.pending == [r0.returning[0].pod]
    assert "node(s) were unschedulable" in (r0.returning[0].reason or "")
    r = take_nodes_away(
        c, TakeNodesAway(selector="pool=blue", add_nodes=AddNodes(count=1, like="old-1"))
    )
    assert r.added_nodes == ["old-1-surge-1"]
    assert r.returning[0].node == "old-1-surge-1"
    assert r.pending == []


# Requests ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({}, "nodes", "exactly one of"),
        ({"nodes": ["a"], "zone": "z"}, "nodes", "got nodes, zone"),
        ({"nodes": "a"}, "nodes", "list of node names"),
        ({"nodes": ["a", "a"]}, "nodes", "listed twice: a"),
        ({"selector": "pool in (a,"}, "selector", "expected a comma before"),
        ({"zone": "z", "how": "gone"}, "how", "drain or lost"),
        ({"zone": "z", "force": "yes"}, "force", "true or false"),
        ({"zone": "z", "max_unavailable": 0}, "max_unavailable", "at least 1"),
        ({"zone": "z", "add_nodes": {"count": 2}}, "add_nodes.like", "name the node"),
        ({"zone": "z", "add_nodes": {"count": 0, "like": "a"}}, "add_nodes.count", "at least 1"),
        ({"zone": "z", "surge": 1}, "surge", "unknown keys surge"),
    ],
)
def test_from_dict_names_the_field_and_what_to_do(
    body: dict[str, Any], field: str, words: str
) -> None:
    with pytest.raises(InvalidInput) as e:
        TakeNodesAway.from_dict(body)
    assert e.value.field == field
    assert words in e.value.message


def test_from_dict_and_to_dict_round_trip() -> None:
    body = {
        "selector": "pool=blue,tier in (a,b)",
        "how": "drain",
        "force": True,
        "max_unavailable": 3,
        "add_nodes": {"count": 2, "like": "n1"},
    }
    req = TakeNodesAway.from_dict(body)
    assert req == TakeNodesAway(
        selector="pool=blue,tier in (a,b)",
        force=True,
        max_unavailable=3,
        add_nodes=AddNodes(2, "n1"),
    )
    assert req.to_dict() == body


@pytest.mark.parametrize(
    ("request_", "field", "words"),
    [
        (TakeNodesAway(nodes=("node-1", "node-9")), "nodes", "node-9"),
        (TakeNodesAway(selector="pool=none"), "selector", "matches no node"),
        (TakeNodesAway(zone="mars"), "zone", "no node is in zone 'mars'"),
        (
            TakeNodesAway(nodes=("node-1",), add_nodes=AddNodes(1, "ghost")),
            "add_nodes.like",
            "ghost",
        ),
    ],
)
def test_names_the_cluster_does_not_hold_are_refused(
    request_: TakeNodesAway, field: str, words: str
) -> None:
    with pytest.raises(InvalidInput) as e:
        take_nodes_away(issue_cluster(), request_)
    assert e.value.field == field
    assert words in e.value.message


def test_selector_takes_its_nodes_by_name() -> None:
    c = as_list(
        make_node("z-2").label("pool", "blue").obj(),
        make_node("z-1").label("pool", "blue").obj(),
        make_node("z-3").label("pool", "green").obj(),
    )
    r = take_nodes_away(c, TakeNodesAway(selector="pool in (blue)"))
    assert [n.node for n in r.nodes] == ["z-1", "z-2"]


def test_the_cycle_budget_stops_the_run_and_says_what_was_reached() -> None:
    # Cycle 1 binds the first replacement; the second replacement (made at 5 s) would
    # need cycle 2, past the limit of 1.
    r = take_nodes_away(
        issue_cluster(), TakeNodesAway(nodes=("node-1",), force=True), cycle_limit=1
    )
    assert r.verdict == "stopped"
    assert r.stop_reason == "cycle-limit"
    assert r.cycles == 1
    assert [x.node for x in r.returning] == ["node-2", None]
    assert r.sentence.startswith(
        "The drain of 1 node stopped at the analysis budget of 1 scheduling cycle, 5 s in: "
        "0 of 1 nodes done, 1 pod move"
    )


def test_a_lost_statefulset_pod_returns_under_its_name_after_300_s() -> None:
    # Its Node deleted by the cloud's node controller and the pod force-deleted by
    # PodGC once the taint manager has deleted it (lost.py): the same name, at 300 s.
    c = as_list(
        make_node("a-1").zone("zone-a").obj(),
        make_node("b-1").zone("zone-b").obj(),
        running("db-0", "a-1", "1").owned("StatefulSet", "db").obj(),
    )
    r = take_nodes_away(c, TakeNodesAway(nodes=("a-1",), how="lost"))
    (x,) = r.returning
    assert (x.pod, x.replaces, x.created_at, x.node) == (
        "default/db-0",
        "default/db-0",
        300.0,
        "b-1",
    )
    (t,) = r.to_dict()["terminations"]
    assert (t["deleted_at"], t["gone_at"]) == (300.0, 300.0)


def test_a_deadline_passed_ends_the_run_where_it_is_seen() -> None:
    import time

    r = take_nodes_away(
        issue_cluster(),
        TakeNodesAway(nodes=("node-1",), force=True),
        deadline=time.monotonic() - 1,
    )
    # Checked after each cycle and whenever the drain acts: its first evictions, at time
    # zero, are seen before any cycle; the first replacement is made but never tried.
    assert (r.verdict, r.stop_reason, r.cycles) == ("stopped", "time-limit", 0)
    assert r.nodes[0].evicted == ["default/api-5f6d8-aaaaa"]
    assert [(x.node, x.reason) for x in r.returning] == [(None, "not scheduled yet")]
    assert r.sentence.startswith(
        "The drain of 1 node stopped at the analysis's time budget, after 0 scheduling cycles"
    )


def test_a_finished_pod_on_a_drained_node_is_deleted_and_never_returns() -> None:
    """kubectl drain deletes a Succeeded or Failed pod (its filters pass it) without the
    eviction API; its Job made it and is done with it, so nothing comes back."""
    done = running("report-28911-xk2pq", "node-1", "100m").owned("Job", "report-28911").obj()
    done["status"]["phase"] = "Succeeded"
    c = issue_cluster()
    c["items"].append(done)
    d = drain(c, "node-1", force=True).to_dict()
    assert "default/report-28911-xk2pq" in d["nodes"][0]["deleted"]
    assert "default/report-28911-xk2pq" not in d["nodes"][0]["evicted"]
    assert "default/report-28911-xk2pq" not in {x["replaces"] for x in d["returning"]}
    assert d["verdict"] == "completes"
