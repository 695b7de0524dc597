"""simulate(): the loop's own rules, beyond what the sequence scenarios judge.

The scenarios (tests/conformance/test_sequences.py) hold the real loop's answers;
these tests hold the rest: reused answers change nothing, a cascade of recreated
victims keeps their template and always stops, each cycle can be explained on its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine import InvalidInput, analyze, load_cluster, simulate
from scheduling.engine.simulate import CycleResult, StopReason
from scheduling.engine.simulate.controllers import CREATED_AFTER, name_suffix
from scheduling.engine.simulate.queue import MAX_BACKOFF_MS, QueuedPodInfo
from scheduling.engine.workload import expand_workload

from .builders import as_list, make_node, make_pdb, make_pod, make_priority_class

SEQUENCES = sorted((Path(__file__).parent.parent / "conformance" / "sequences").glob("*.json"))


def owned(builder: Any, kind: str, owner: str) -> dict[str, Any]:
    pod: dict[str, Any] = builder.obj()
    pod["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": kind, "name": owner, "controller": True}
    ]
    return pod


@pytest.mark.parametrize("path", SEQUENCES, ids=lambda p: p.stem)
def test_reused_answers_are_the_answers_recomputed(path: Path) -> None:
    scenario = json.loads(path.read_text())
    cluster = load_cluster(scenario["snapshot"]["items"])
    fast = simulate(cluster, scenario["pending"]).to_dict()
    slow = simulate(cluster, scenario["pending"], reuse_answers=False).to_dict()
    assert fast == slow


def test_backoff_doubles_from_one_second_up_to_ten() -> None:
    # calculateBackoffDuration with the default 1 s initial and 10 s maximum backoff.
    pod = make_pod("p").obj()
    info = QueuedPodInfo(load_cluster(as_list(pod)).pods[0], seq=0)
    got = []
    for attempts in range(1, 7):
        info.attempts = attempts
        got.append(info.backoff_ms())
    assert got == [1000, 2000, 4000, 8000, MAX_BACKOFF_MS, MAX_BACKOFF_MS]


def _full_node_cluster(*victims: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        make_priority_class("low", 100),
        make_priority_class("high", 10_000),
        make_node("n1").capacity(cpu="4", memory="8Gi", pods="20").obj(),
        make_node("n2").capacity(cpu="4", memory="8Gi", pods="20").obj(),
        *victims,
    ]


def running(name: str, node: str, cpu: str, hour: int, **labels: str) -> Any:
    """A priority-100 pod of namespace batch, bound to ``node``, started at ``hour``."""
    return (
        make_pod(name, "batch")
        .labels(**labels)
        .priority(100)
        .node(node)
        .req(cpu=cpu)
        .start_time(f"2025-06-01T{hour:02d}:00:00Z")
    )


def test_a_preemptor_binds_on_its_nominated_node_without_scoring() -> None:
    victim = running("batch-1", "n1", "3", 0)
    other = running("batch-2", "n2", "3", 1)
    pending = make_pod("web-1").priority_class("high").req(cpu="2").obj()
    sim = simulate(_full_node_cluster(victim.obj(), other.obj()), [pending])
    first, second = sim.cycles
    assert first.result is CycleResult.PREEMPTED
    # Start time: the node whose victim started most recently wins.
    assert first.nominated_node == "n2" and first.victims == ["batch/batch-2"]
    assert second.result is CycleResult.BOUND
    assert (second.node, second.host_selection) == ("n2", "nominated-node")
    assert [(n.from_node, n.to_node, n.by.value) for n in sim.nominations] == [
        ("", "n2", "scheduler"),
        ("n2", "", "binding"),
    ]


def test_each_cycle_is_explained_by_a_single_pod_what_if_at_that_moment() -> None:
    victims = [running(f"v{i}", f"n{1 + i % 2}", "1500m", i).obj() for i in range(4)]
    pending = [make_pod(f"web-{i}").priority_class("high").req(cpu="2").obj() for i in range(3)]
    sim = simulate(_full_node_cluster(*victims), pending)
    assert sim.cycles
    for c in sim.cycles:
        r = analyze(*sim.cluster_at(c.cycle)).to_dict()
        if c.result is CycleResult.BOUND:
            assert r["outcome"] == "fits" and r["node"] == c.node
        elif c.result is CycleResult.PREEMPTED:
            assert r["outcome"] == "preempts" and r["node"] == c.nominated_node
            assert sorted(r["victims"]) == c.victims
        else:
            assert r["outcome"] == "unschedulable" and r["message"] == c.message


def test_successive_preemptions_overrun_a_budget_the_scheduler_counts_as_intact() -> None:
    guarded = [running(f"g{i}", f"n{1 + i % 2}", "2", i, app="cart").obj() for i in range(4)]
    pdb = make_pdb("cart-pdb", "batch", match_labels={"app": "cart"}, disruptions_allowed=1)
    pending = [make_pod(f"web-{i}").priority_class("high").req(cpu="3").obj() for i in range(2)]
    sim = simulate([*_full_node_cluster(*guarded), pdb], pending)
    (report,) = sim.pdb_report
    assert report.pdb == "batch/cart-pdb" and report.exceeded
    assert len(report.deleted_matching_victims) == 4
    # Each cycle reads the same stale status (1 allowed): both count one violation,
    # while the two preemptions together took 4 pods of a budget of 1.
    assert [o.pdb_violations for o in report.cycles_beyond_budget] == [1, 1]
    assert report.overrun == 3


def test_a_cycle_limit_ends_the_run_with_its_reason() -> None:
    pending = [make_pod(f"big-{i}").priority_class("high").req(cpu="64").obj() for i in range(5)]
    sim = simulate(_full_node_cluster(), pending, cycle_limit=3)
    assert sim.stop_reason is StopReason.CYCLE_LIMIT
    assert len(sim.cycles) == 3
    assert sim.to_dict()["stop_reason"] == "cycle-limit"


def test_bad_workloads_name_the_pod() -> None:
    with pytest.raises(InvalidInput, match="listed twice"):
        simulate(_full_node_cluster(), [make_pod("a").obj(), make_pod("a").obj()])
    with pytest.raises(InvalidInput, match=r"items\[1\].*no PriorityClass with name nope"):
        simulate(
            _full_node_cluster(), [make_pod("a").obj(), make_pod("b").priority_class("nope").obj()]
        )


# The cascade -------------------------------------------------------------------
KINDS = ["ReplicaSet", "StatefulSet", "Job", "DaemonSet", "Deployment", None]


@st.composite
def cascades(draw: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    nodes = draw(st.integers(1, 4))
    items: list[dict[str, Any]] = [
        make_priority_class("p1", 10),
        make_priority_class("p2", 100),
        make_priority_class("p3", 1000),
        make_priority_class("p4", 10_000),
    ]
    for n in range(nodes):
        items.append(make_node(f"n{n}").capacity(cpu="4", memory="8Gi", pods="10").obj())
    for i in range(draw(st.integers(0, 10))):
        kind = draw(st.sampled_from(KINDS))
        b = (
            make_pod(f"run-{i}", draw(st.sampled_from(["a", "b"])))
            .priority(draw(st.sampled_from([10, 100, 1000])))
            .labels(app=f"app{i % 3}")
            .node(f"n{draw(st.integers(0, nodes - 1))}")
            .req(cpu=f"{draw(st.integers(1, 20)) * 100}m", memory="256Mi")
            .start_time(f"2025-06-01T00:{i:02d}:00Z")
        )
        items.append(owned(b, kind, f"owner{i % 4}") if kind else b.obj())
    pending = [
        make_pod(f"new-{j}")
        .priority_class(draw(st.sampled_from(["p2", "p3", "p4"])))
        .req(cpu=f"{draw(st.integers(1, 30)) * 100}m")
        .obj()
        for j in range(draw(st.integers(1, 6)))
    ]
    return items, pending


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cascades())
def test_recreated_victims_keep_their_template_and_the_run_stops(
    case: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    items, pending = case
    cluster = load_cluster(items)
    sim = simulate(cluster, pending, recreate_victims=True)
    assert sim.stop_reason in set(StopReason)
    assert len(sim.cycles) <= sim.cycle_limit
    victims = {p.key: p for p in cluster.pods}
    made = {p.key: p for p in sim.pending}
    assert len(sim.recreated) <= len(sim.deleted_victims)
    for r in sim.recreated:
        old, new = victims.get(r.victim), made[r.pod]
        if old is None:  # a recreated pod preempted in turn: its victim was made by the run
            old = made[r.victim]
        kind, _, name = r.owner.partition("/")
        assert kind in {"ReplicaSet", "StatefulSet", "Job", "DaemonSet"}
        assert new.owner == old.owner and new.namespace == old.namespace
        assert (new.priority, new.requests, new.labels) == (old.priority, old.requests, old.labels)
        assert new.tolerations == old.tolerations and new.node_name is None
        if kind == "StatefulSet":
            assert new.name == old.name
        else:
            assert new.name.startswith(f"{name}-") and len(new.name) == len(name) + 6
        if kind == "DaemonSet":
            assert new.required_node_affinity is not None
    # Nothing else was recreated: a victim without such an owner stays gone.
    remade = {r.victim for r in sim.recreated}
    for key in sim.deleted_victims:
        owner = (victims.get(key) or made[key]).owner or ""
        assert (key in remade) == owner.startswith(
            ("ReplicaSet/", "StatefulSet/", "Job/", "DaemonSet/")
        )


def test_owner_replicas_say_what_is_really_lost() -> None:
    running = [
        owned(
            make_pod(f"rs-{i}", "batch")
            .priority(10)
            .node("n1")
            .req(cpu="1")
            .start_time(f"2025-06-01T0{i}:00:00Z"),
            "ReplicaSet",
            "worker-5d8f",
        )
        for i in range(4)
    ]
    items = [
        make_priority_class("high", 1000),
        make_node("n1").capacity(cpu="4", memory="8Gi", pods="10").obj(),
        *running,
    ]
    sim = simulate(
        items, [make_pod("web").priority_class("high").req(cpu="2").obj()], recreate_victims=True
    )
    (owner,) = sim.owners
    assert (owner.owner, owner.namespace) == ("ReplicaSet/worker-5d8f", "batch")
    assert (owner.before, owner.evicted, owner.recreated) == (4, 2, 2)
    # The recreated pods find no room: two replicas are lost.
    assert owner.after == 2 and owner.lost == 2
    assert all(r["owner"] == "ReplicaSet/worker-5d8f" for r in sim.to_dict()["recreated"])


def test_generated_names_use_generate_names_alphabet() -> None:
    suffix = name_suffix("batch/rs-1#1")
    assert len(suffix) == 5 and set(suffix) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert name_suffix("batch/rs-1#1") == suffix != name_suffix("batch/rs-1#2")


def _stateful_set(policy: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "replicas": 3,
        "serviceName": "db",
        "selector": {"matchLabels": {"app": "db"}},
        "template": {
            "metadata": {"labels": {"app": "db"}},
            "spec": {
                "priorityClassName": "high",
                "containers": [{"name": "db", "resources": {"requests": {"cpu": "3"}}}],
            },
        },
    }
    if policy:
        spec["podManagementPolicy"] = policy
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": spec,
    }


def test_an_ordered_stateful_set_waits_for_each_pod_to_run_before_the_next() -> None:
    # Two 4-cpu nodes with nothing to preempt: db-0 and db-1 fit, db-2 never does.
    # OrderedReady: db-1 is created once db-0 runs, db-2 once db-1 runs.
    cluster = _full_node_cluster()
    pods = expand_workload([_stateful_set(None)]).pods
    sim = simulate(cluster, pods)
    assert [(c.pod, c.result) for c in sim.cycles[:2]] == [
        ("default/db-0", CycleResult.BOUND),
        ("default/db-1", CycleResult.BOUND),
    ]
    assert sim.cycles[2].pod == "default/db-2"
    # Behind a db-1 that cannot run, db-2 is never created: no cycle, not in any queue.
    blocked = _stateful_set(None)
    blocked["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3500m"
    cluster_one = [*_full_node_cluster()[:3]]  # one node only
    sim = simulate(cluster_one, expand_workload([blocked]).pods)
    outcomes = {p.pod: p for p in sim.pods}
    assert outcomes["default/db-0"].bound
    assert not outcomes["default/db-2"].created and outcomes["default/db-2"].attempts == 0
    assert "default/db-2" not in {c.pod for c in sim.cycles}
    assert not any("default/db-2" in queue for queue in sim.final_queue.values())


def test_a_parallel_stateful_set_creates_every_pod_at_once() -> None:
    blocked = _stateful_set("Parallel")
    blocked["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3500m"
    sim = simulate([*_full_node_cluster()[:3]], expand_workload([blocked]).pods)
    assert all(p.created for p in sim.pods)
    assert {c.pod for c in sim.cycles} == {"default/db-0", "default/db-1", "default/db-2"}


def test_a_pod_may_only_wait_for_one_listed_before_it() -> None:
    late = make_pod("b").obj()
    late["metadata"]["annotations"] = {CREATED_AFTER: "default/a"}
    with pytest.raises(InvalidInput, match="waits for default/a"):
        simulate(_full_node_cluster(), [late, make_pod("a").obj()])


@pytest.mark.parametrize("path", SEQUENCES[:12], ids=lambda p: p.stem)
def test_every_record_reads_back_from_the_contract(path: Path) -> None:
    from scheduling.engine.simulate import ChoicePoint, Cycle, PDBReport, PodOutcome, RunEvent

    scenario = json.loads(path.read_text())
    c = simulate(scenario["snapshot"]["items"], scenario["pending"]).to_dict()
    assert [PodOutcome.from_dict(p, c["final_queue"]).to_dict() for p in c["pods"]] == c["pods"]
    assert [Cycle.from_dict(y).to_dict() for y in c["cycles"]] == c["cycles"]
    assert [RunEvent.from_dict(e).to_dict() for e in c["events"]] == c["events"]
    assert [PDBReport.from_dict(r).to_dict() for r in c["pdb_report"]] == c["pdb_report"]
    assert [ChoicePoint.from_dict(p).to_dict() for p in c["choice_points"]] == c["choice_points"]
