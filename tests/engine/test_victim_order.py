"""Equally important victims (same priority, started in the same second) are ordered as
kube-scheduler orders them: the node's pods in the API server's list order, then Go's
unstable sort.Slice. So the answer never depends on the order of the dump's items."""

from __future__ import annotations

import random
from typing import Any

from scheduling.engine import analyze

from .builders import as_list, make_node, make_pod

SAME_SECOND = "2025-06-02T08:00:00Z"


def _cluster(order: random.Random | None) -> dict[str, Any]:
    # 16 pods of one priority, all started in the same second, of mixed sizes: which are
    # reprieved depends on the order they are tried in.
    sizes = [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 2]
    pods = [
        make_pod(f"same-{i:02d}", namespace=f"ns-{i % 3}")
        .priority(100)
        .req(cpu=str(cpu))
        .node("worker")
        .start_time(SAME_SECOND)
        .obj()
        for i, cpu in enumerate(sizes)
    ]
    if order is not None:
        order.shuffle(pods)
    return as_list(make_node("worker").capacity(cpu=str(sum(sizes)), pods="110").obj(), *pods)


def _victims(order: random.Random | None) -> list[str]:
    preemptor = make_pod("big").priority(1000).req(cpu="5").obj()
    result = analyze(_cluster(order), preemptor).to_dict()
    assert result["outcome"] == "preempts"
    return list(result["victims"])


def test_victims_do_not_depend_on_the_order_of_the_dump() -> None:
    listed = _victims(None)
    for seed in range(8):
        assert _victims(random.Random(seed)) == listed


def test_a_node_lists_its_pods_in_the_api_servers_order() -> None:
    from scheduling.engine import load_cluster

    cluster = load_cluster(_cluster(random.Random(3)))
    (worker,) = cluster.node_infos
    keys = [f"{p.namespace}/{p.name}" for p in worker.pods]
    assert keys == sorted(keys)


def test_the_fast_order_is_go_s_order_on_any_victims() -> None:
    """sort_by_importance takes Python's sort where it cannot differ from sort.Slice (no
    two pods equal, or at most 12): on any list it answers as the port does."""
    from scheduling.engine import load_cluster
    from scheduling.engine.gosort import slice_sort
    from scheduling.engine.preemption.victims import more_important_pod, sort_by_importance

    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(0, 40)
        pods = [
            make_pod(f"p{i}")
            .priority(rng.choice([0, 100, 200]))
            .node("w")
            .start_time(f"2025-06-02T08:00:{rng.randint(0, 3):02d}Z")
            .obj()
            for i in range(n)
        ]
        cluster = load_cluster(as_list(make_node("w").obj(), *pods))
        fast = list(cluster.pods)
        port = list(cluster.pods)
        sort_by_importance(fast)
        slice_sort(port, more_important_pod)
        assert [p.name for p in fast] == [p.name for p in port]


def test_a_pod_bound_during_the_run_started_after_every_pod_of_a_recent_snapshot() -> None:
    """On a snapshot taken long after the run clock's earliest origin, a replica the run
    binds is the newest pod on its node, so a later preemption takes it before a pod of
    the same priority that was already running (the latest start loses the tie)."""
    from scheduling.engine.simulate import simulate
    from scheduling.engine.simulate.controllers import CREATED_AFTER

    snapshot = as_list(
        make_node("worker").capacity(cpu="2", pods="110").obj(),
        make_pod("old")
        .priority(0)
        .req(cpu="1")
        .node("worker")
        .start_time("2026-11-01T10:00:00Z")
        .obj(),
    )
    replica = make_pod("replica").priority(0).req(cpu="1").obj()
    urgent = make_pod("urgent").priority(100).req(cpu="1").obj()
    urgent["metadata"]["annotations"] = {CREATED_AFTER: "default/replica"}
    sim = simulate(snapshot, [replica, urgent]).to_dict()
    assert [e["type"] for e in sim["events"]] == ["bind", "preempt", "bind"]
    assert sim["deleted_victims"] == ["default/replica"]


def _real_rollout_items() -> list[dict[str, Any]]:
    """ocp-aws with one worker cordoned, one not ready, the workers' own pods (not their
    DaemonSets') demoted to a class of value 100: a worker holds 14 such pods, 9 of them
    started in the same second."""
    import gzip
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "fixtures/realworld/ocp-aws/snapshot.json.gz"
    items: list[dict[str, Any]] = json.loads(gzip.decompress(path.read_bytes()))["items"]
    workers = sorted(
        o["metadata"]["name"]
        for o in items
        if o["kind"] == "Node" and "node-role.kubernetes.io/worker" in o["metadata"]["labels"]
    )
    for o in items:
        owner = (o["metadata"].get("ownerReferences") or [{}])[0].get("kind")
        if o["kind"] == "Pod" and o["spec"].get("nodeName") in workers and owner != "DaemonSet":
            o["spec"]["priority"], o["spec"]["priorityClassName"] = 100, "low"
        if o["kind"] == "Node" and o["metadata"]["name"] == workers[0]:
            o["spec"]["unschedulable"] = True
        if o["kind"] == "Node" and o["metadata"]["name"] == workers[1]:
            # Not ready: a condition, which no filter reads (the dump has no taint for it).
            for cond in o["status"]["conditions"]:
                if cond["type"] == "Ready":
                    cond["status"] = "False"
    for name, value in (("medium", 1000), ("low", 100)):
        items.append(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
            }
        )
    return items


def test_a_real_rollout_answers_alike_whatever_the_dumps_order() -> None:
    from scheduling.engine import load_cluster, simulate
    from scheduling.engine.workload import admit, expand_workload

    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 12,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "priorityClassName": "medium",
                    "containers": [
                        {"name": "c", "resources": {"requests": {"cpu": "500m", "memory": "2Gi"}}}
                    ],
                },
            },
        },
    }
    items = _real_rollout_items()
    answers = []
    for order in ("as dumped", "reversed", "shuffled"):
        listed = list(items)
        if order == "reversed":
            listed.reverse()
        elif order == "shuffled":
            random.Random(7).shuffle(listed)
        cluster = load_cluster(listed)
        workload = expand_workload([deployment])
        admit(workload, cluster.resolver)
        run = simulate(cluster, workload.pods).to_dict()
        answers.append((run["deleted_victims"], run["events"]))
    # kube-scheduler v1.35 evicts 6 pods in this rollout, whatever the order of the
    # dump's items (measured: as dumped, shuffled and reversed).
    assert len(answers[0][0]) == 6
    assert answers[1] == answers[0] and answers[2] == answers[0]


def _node_of_tiers() -> dict[str, Any]:
    """A full node: the 16 equally important pods of _cluster at 100 (the tie only Go's
    sort orders) above three tiers of 1-CPU pods, 3 at 10, 3 at 20 and 2 at 30, each
    tier's pods started an hour apart."""
    pods = _cluster(random.Random(5))["items"][1:]
    for tier, count in ((10, 3), (20, 3), (30, 2)):
        for i in range(count):
            pods.append(
                make_pod(f"tier-{tier}-{i}")
                .priority(tier)
                .req(cpu="1")
                .node("worker")
                .start_time(f"2025-06-02T0{i}:00:00Z")
                .obj()
            )
    return as_list(make_node("worker").capacity(cpu="40", pods="110").obj(), *pods)


def _dry_run(cluster: Any, priority: int, cpu: str, fast: bool) -> Any:
    from scheduling.engine import EngineConfig
    from scheduling.engine.analysis import parse_pending_pod
    from scheduling.engine.framework import CycleState, Handle
    from scheduling.engine.preemption.defaultpreemption import select_victims_on_node
    from scheduling.engine.runtime import Framework
    from scheduling.engine.schedule import schedule_pod

    pending = parse_pending_pod(cluster, make_pod("big").priority(priority).req(cpu=cpu).obj())
    fw = Framework(Handle(cluster, EngineConfig()))
    state = CycleState()
    assert schedule_pod(fw, state, pending).host is None  # the node is full: a dry run
    (worker,) = cluster.node_infos
    victims, status = select_victims_on_node(fw, state.clone(), pending, worker, fast)
    return None if victims is None else [p.name for p in victims.pods], status.code


def test_each_later_dry_run_on_a_node_takes_its_victims_from_the_kept_order() -> None:
    """The order kept on the node (its pods sorted once) gives, for a preemptor of any
    priority, what the general path gives sorting the node's pods afresh: with the 16
    equal pods among the victims (Go's sort decides), and without them (a suffix)."""
    from scheduling.engine import load_cluster

    cluster = load_cluster(_node_of_tiers())
    for priority, cpu in ((15, "1"), (25, "2"), (50, "2"), (50, "5"), (1000, "9")):
        general = _dry_run(cluster, priority, cpu, fast=False)
        assert _dry_run(cluster, priority, cpu, fast=True) == general
        assert cluster.node_infos[0].preemption_order is not None
        assert _dry_run(cluster, priority, cpu, fast=True) == general  # from the kept order
    # Above the three tiers (8 CPUs freed), 2 CPUs: the tiers are put back most
    # important first until 2 CPUs are left, so the last two at 10 stay victims.
    assert _dry_run(cluster, 50, "2", fast=True)[0] == ["tier-10-1", "tier-10-2"]


def test_the_kept_order_is_dropped_when_the_node_s_pods_change() -> None:
    from scheduling.engine import load_cluster

    cluster = load_cluster(_node_of_tiers())
    (worker,) = cluster.node_infos
    before = _dry_run(cluster, 50, "2", fast=True)
    leaving = next(p for p in worker.pods if p.name == "tier-10-2")
    worker.remove_pod(leaving)
    assert worker.preemption_order is None
    # With one CPU free, one victim is enough: the least important left.
    after = _dry_run(cluster, 50, "2", fast=True)
    assert after == _dry_run(cluster, 50, "2", fast=False)
    assert before[0] == ["tier-10-1", "tier-10-2"] and after[0] == ["tier-10-1"]
    worker.add_pod(leaving)
    assert worker.preemption_order is None
    assert _dry_run(cluster, 50, "2", fast=True) == before
