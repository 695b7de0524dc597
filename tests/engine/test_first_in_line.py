"""First in line: the ranking read against simulate() itself, and small cases by hand."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusters.demo import demo_objects
from scheduling.engine import InvalidInput, load_cluster, simulate
from scheduling.engine.capacity import capacity, replica_set_of
from scheduling.engine.cluster import Cluster
from scheduling.engine.plan.first_in_line import (
    MAX_LIMIT,
    FirstInLine,
    first_in_line,
    probe_pod,
)
from scheduling.engine.workload import expand_workload
from tests.engine.builders import make_node, make_pdb, make_pod, make_priority_class

GIB = 1024**3


def _owned(pod: dict[str, Any], owner: str) -> dict[str, Any]:
    """The pod as a StatefulSet's replica: its app is the StatefulSet."""
    pod["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": owner, "controller": True}
    ]
    return pod


def _deleted(cluster: Cluster, level: int, cpu: int, memory: int, replicas: int) -> set[str]:
    """The pods a run of ``replicas`` probe replicas deletes, read from simulate alone."""
    if replicas == 0:
        return set()
    taken = [p.key for p in cluster.pods]
    rs = replica_set_of(probe_pod(level, cpu, memory), replicas)
    pods = expand_workload([rs], max_replicas=replicas, taken=taken).pods
    return set(simulate(cluster, pods).to_dict()["deleted_victims"])


def _row(answer: FirstInLine, app: str) -> Any:
    return next(a for a in answer.apps if a.app == app)


# By hand --------------------------------------------------------------------------------


def test_a_budget_at_zero_sends_preemption_to_the_other_node_first() -> None:
    # Two 2-CPU nodes, each full with one 2-CPU "low" pod. "guarded" started later, so
    # without budgets the tie-break (latest start of the highest victims) would take it
    # first; its PDB allows no disruption, so kube-scheduler takes "free" on node-b first.
    # Replica 1 preempts free (2 CPU freed); replica 2 fits in the other free CPU beside
    # replica 1's nomination; replica 3 has only guarded left to take.
    items = [
        make_priority_class("low", 100),
        make_priority_class("high", 1000),
        make_node("node-a").capacity(cpu="2", memory="8Gi").obj(),
        make_node("node-b").capacity(cpu="2", memory="8Gi").obj(),
        make_pod("guarded")
        .priority_class("low")
        .priority(100)
        .labels(app="guarded")
        .node("node-a")
        .req(cpu="2")
        .start_time("2025-06-01T00:05:00Z")
        .obj(),
        make_pod("free")
        .priority_class("low")
        .priority(100)
        .labels(app="free")
        .node("node-b")
        .req(cpu="2")
        .start_time("2025-06-01T00:00:00Z")
        .obj(),
        make_pdb("guarded-pdb", match_labels={"app": "guarded"}, disruptions_allowed=0),
    ]
    answer = first_in_line(load_cluster(items), cpu_millis=1000, memory_bytes=GIB, limit=5)
    assert [a.app for a in answer.apps] == ["Pod default/free", "Pod default/guarded"]
    free, guarded = answer.apps
    assert (free.absorbed, free.first_hit and free.first_hit.node) == (0, "node-b")
    assert free.pdb_allows_disruption is None
    assert (guarded.absorbed, guarded.first_hit and guarded.first_hit.replica) == (2, 3)
    assert guarded.first_hit and guarded.first_hit.node == "node-a"
    assert (guarded.absorbed_cpu_millis, guarded.absorbed_memory_bytes) == (2000, 2 * GIB)
    assert guarded.pdb_allows_disruption is False
    # One level in use (100), one run.
    assert [r.priority for r in answer.runs] == [100]


def test_a_taint_keeps_an_app_beyond_reach_and_a_top_level_gets_no_run() -> None:
    # node-t is tainted and its pod tolerates it; the probe does not, so the probe never
    # lands there and its app is never hit. node-u has 1 CPU free: replica 1 fits there,
    # replica 2 must take "open" (3 CPU) and replica 3 finds nothing more to take.
    # "top" runs at system-node-critical, the highest value: nothing may preempt it. (A
    # user class's top level still gets a run: the built-in system classes are above it.)
    items = [
        make_priority_class("low", 100),
        make_node("node-t").capacity(cpu="2", memory="8Gi").taint("dedicated", "gpu").obj(),
        make_node("node-u").capacity(cpu="4", memory="8Gi").obj(),
        _owned(
            make_pod("gpu-0")
            .priority_class("low")
            .priority(100)
            .toleration("dedicated", "gpu", "NoSchedule")
            .node("node-t")
            .req(cpu="2")
            .obj(),
            "gpu",
        ),
        _owned(
            make_pod("open-0")
            .priority_class("low")
            .priority(100)
            .node("node-u")
            .req(cpu="3")
            .obj(),
            "open",
        ),
        make_pod("top")
        .priority_class("system-node-critical")
        .priority(2_000_001_000)
        .node("node-t")
        .obj(),
    ]
    answer = first_in_line(load_cluster(items), cpu_millis=1000, memory_bytes=GIB, limit=3)
    assert [a.app for a in answer.apps] == [
        "StatefulSet default/open",
        "StatefulSet default/gpu",
        "Pod default/top",
    ]
    open_, gpu, top = answer.apps
    assert (open_.absorbed, open_.first_hit and open_.first_hit.pod) == (1, "default/open-0")
    assert (gpu.absorbed, gpu.reachable, gpu.first_hit) == (None, True, None)
    assert (top.absorbed, top.reachable) == (None, False)
    assert answer.skipped_levels == (2_000_001_000,)
    assert [r.priority for r in answer.runs] == [100]


def test_the_demo_with_one_cpu_two_gib_probes() -> None:
    # clusters/demo.py: every node has under 1 CPU free, so the first probe at cat-1's
    # level (10001) preempts. Each node's cheapest room is one cat-1 pod (1 CPU, 2Gi);
    # where a node holds two, the later-started one is the victim (the earlier is
    # reprieved first). The candidates tie on budgets (blue and purple allow 1 each),
    # priority, sum and count, so the latest start time of the victim decides: node-5's
    # purple (started 1h44m after creation) beats node-4's purple (1h40m), node-3's blue
    # (1h37m), node-2's purple (1h35m), node-1's purple (1h32m). Replica 2: node-5's blue
    # (1h43m) is now the latest.
    answer = first_in_line(load_cluster(demo_objects()), limit=50)
    purple, blue = answer.apps[:2]
    assert (purple.app, purple.absorbed) == ("Deployment default/purple", 0)
    assert purple.first_hit and purple.first_hit.node == "node-5"
    assert (blue.app, blue.absorbed) == ("Deployment default/blue", 1)
    assert blue.first_hit and blue.first_hit.node == "node-5"
    # At cat-2's level the 8 cat-1 pods go first (a victim of lower priority wins), one
    # replica each (every node has under 1 CPU slack). Replica 9 takes a cat-2 pod: of
    # node-1's green (1h33m), node-2's red (1h36m), node-3's red (1h39m: green reprieved
    # first), node-4's red (1h42m), node-4's is the latest. Replica 10: node-4's green
    # (1h41m) beats node-3's red (budgets are not refreshed mid-run: red still allows 1).
    red, green = answer.apps[2:4]
    assert (red.app, red.absorbed, red.first_hit and red.first_hit.node) == (
        "Deployment default/red",
        8,
        "node-4",
    )
    assert (green.app, green.absorbed, green.first_hit and green.first_hit.node) == (
        "Deployment default/green",
        9,
        "node-4",
    )
    assert all(a.pdb_allows_disruption for a in answer.apps[:4])
    # kube-proxy runs at system-node-critical, the top value: its level gets no run.
    assert answer.skipped_levels == (2_000_001_000,)
    assert answer.apps[-1].app == "DaemonSet kube-system/kube-proxy"


def test_it_refuses_a_bad_size_or_limit() -> None:
    cluster = load_cluster(demo_objects())
    for bad in (0, MAX_LIMIT + 1, True):
        with pytest.raises(InvalidInput, match="limit"):
            first_in_line(cluster, limit=bad)
    with pytest.raises(InvalidInput, match="more than 0"):
        first_in_line(cluster, cpu_millis=0)


def test_the_probe_of_a_negative_level_has_a_valid_name() -> None:
    assert probe_pod(-5, 1000, GIB)["metadata"]["name"] == "first-in-line-m5"
    assert probe_pod(-5, 1000, GIB)["spec"]["priority"] == -4


def test_to_dict_shape() -> None:
    d = first_in_line(load_cluster(demo_objects()), limit=10).to_dict()
    assert d["size"] == {"cpu_millis": 1000, "memory_bytes": 2 * GIB}
    assert d["limit"] == 10
    assert set(d["apps"][0]) == {
        "app",
        "namespace",
        "priority",
        "priority_class",
        "pods",
        "pdb_allows_disruption",
        "reachable",
        "absorbed",
        "absorbed_cpu_millis",
        "absorbed_memory_bytes",
        "first_hit",
    }
    assert d["apps"][0]["first_hit"]["replica"] == 1


# Against simulate itself --------------------------------------------------------------

CLASSES = {"low": 100, "mid": 1000, "high": 10_000}


@st.composite
def clusters(draw: Any) -> tuple[list[dict[str, Any]], int, int, int]:
    items: list[dict[str, Any]] = [make_priority_class(n, v) for n, v in CLASSES.items()]
    nodes = draw(st.integers(1, 3))
    tainted = draw(st.integers(-1, nodes - 1))
    for n in range(nodes):
        b = make_node(f"n{n}").capacity(
            cpu=draw(st.sampled_from(["2", "4", "4"])),
            memory=draw(st.sampled_from(["4Gi", "8Gi"])),
            pods="110",
        )
        if n == tainted:
            b = b.taint("dedicated", "x")
        items.append(b.obj())
    for i in range(draw(st.integers(2, 12))):
        klass = draw(st.sampled_from(["low", "low", "mid", "high"]))
        app = draw(st.integers(0, 3))
        b = (
            make_pod(f"run-{i}")
            .priority_class(klass)
            .priority(CLASSES[klass])
            .labels(app=f"app{app}")
            .node(f"n{draw(st.integers(0, nodes - 1))}")
            .req(
                cpu=f"{draw(st.integers(1, 15)) * 100}m",
                memory=f"{draw(st.integers(1, 8)) * 256}Mi",
            )
            .start_time(f"2025-06-01T00:{draw(st.integers(0, 59)):02d}:00Z")
        )
        if draw(st.booleans()):
            b = b.toleration("dedicated", "x", "NoSchedule")
        pod = b.obj()
        # Most pods belong to a four-app set of StatefulSets; some stand alone.
        items.append(_owned(pod, f"app{app}") if app < 3 else pod)
    for a in range(3):
        if draw(st.booleans()):
            items.append(
                make_pdb(
                    f"pdb-{a}",
                    match_labels={"app": f"app{a}"},
                    disruptions_allowed=draw(st.integers(0, 1)),
                )
            )
    cpu = draw(st.integers(1, 20)) * 100
    memory = draw(st.integers(1, 8)) * 256 * 1024**2
    return items, cpu, memory, draw(st.integers(1, 8))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_an_app_absorbs_exactly_the_replicas_before_its_first_victim(
    case: tuple[list[dict[str, Any]], int, int, int],
) -> None:
    # absorbed = k: a run of k probe replicas (same size, same priority) deletes none of
    # the app's pods and a run of k + 1 deletes one; beyond the limit: a run of ``limit``
    # deletes none.
    items, cpu, memory, limit = case
    cluster = load_cluster(items)
    answer = first_in_line(cluster, cpu_millis=cpu, memory_bytes=memory, limit=limit)
    keys: dict[str, set[str]] = {}
    for pod in cluster.pods:
        if pod.node_name:
            keys.setdefault(_app(pod.owner, pod.key), set()).add(pod.key)
    for row in answer.apps:
        if not row.reachable:
            continue
        mine = {k for k in keys[row.app] if _priority(cluster, k) == row.priority}
        level = row.priority
        if row.absorbed is None:
            assert not mine & _deleted(cluster, level, cpu, memory, limit)
            continue
        k = row.absorbed
        assert not mine & _deleted(cluster, level, cpu, memory, k)
        took = mine & _deleted(cluster, level, cpu, memory, k + 1)
        assert row.first_hit is not None and row.first_hit.pod in took
    # Ranked: absorbed ascending, beyond the limit last, ties by priority then app.
    ranks = [
        (a.absorbed is None, a.absorbed or 0, not a.reachable, a.priority, a.app)
        for a in answer.apps
    ]
    assert ranks == sorted(ranks)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_a_probe_never_preempts_after_its_first_attempt(
    case: tuple[list[dict[str, Any]], int, int, int],
) -> None:
    # What counting in submission order rests on: every deletion of a probe run happens
    # in cycles 1..limit, the replicas' first attempts, replica i in cycle i.
    items, cpu, memory, limit = case
    cluster = load_cluster(items)
    for level in {p.priority for p in cluster.pods if p.node_name}:
        answer = capacity(cluster, probe_pod(level, cpu, memory), limit=limit)
        assert all(v.cycle <= limit for v in answer.victims)


def _app(owner: str | None, key: str) -> str:
    if owner is None:
        return f"Pod {key}"
    kind, _, name = owner.partition("/")
    return f"{kind} {key.split('/')[0]}/{name}"


def _priority(cluster: Cluster, key: str) -> int:
    return next(p.priority for p in cluster.pods if p.key == key)
