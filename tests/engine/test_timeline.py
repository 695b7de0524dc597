"""simulate(timeline=True): the properties every timeline run keeps, on generated
clusters (the real loop's own answers are in tests/conformance/test_timeline.py)."""

from __future__ import annotations

import copy
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from clusters.demo import demo_objects
from scheduling.engine import simulate
from scheduling.engine.errors import InvalidInput
from scheduling.engine.objects import TIMELINE_SPAN_SECONDS
from scheduling.engine.simulate import Simulation
from scheduling.engine.workload import expand_workload
from tests.clusters.builders import make_deployment

from .builders import as_list, make_node, make_pod, make_priority_class

SEQUENCES = sorted((Path(__file__).parent.parent / "conformance" / "sequences").glob("*.json"))
GRACES = (0, 5, 30, 30, 90)


def _cluster(seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rng = random.Random(seed)
    items: list[dict[str, Any]] = [make_priority_class(f"p{v}", v) for v in (10, 100, 1000)]
    nodes = [f"node-{i}" for i in range(rng.randint(1, 4))]
    items += [make_node(n).capacity(cpu="4", memory="8Gi", pods="20").obj() for n in nodes]
    for i in range(rng.randint(2, 10)):
        items.append(
            make_pod(f"run-{i}")
            .priority(rng.choice((10, 100)))
            .req(cpu=rng.choice(("500m", "1", "2")), memory="256Mi")
            .node(rng.choice(nodes))
            .start_time(f"2025-06-01T08:00:{i:02d}Z")
            .grace(rng.choice(GRACES))
            .obj()
        )
    pending = []
    for i in range(rng.randint(1, 6)):
        b = (
            make_pod(f"new-{i}")
            .priority(rng.choice((10, 100, 1000)))
            .req(cpu=rng.choice(("1", "2", "3")), memory="256Mi")
        )
        if rng.random() < 0.4:
            b = b.arrives(rng.choice((1, 10, 45, 400)))
        pending.append(b.obj())
    return as_list(*items), pending


def _untimed(d: dict[str, Any]) -> dict[str, Any]:
    """A run's contract without its times (what a run without a clock also says)."""
    out = copy.deepcopy(d)
    out.pop("timeline", None)
    out.pop("terminations", None)
    for part in ("pods", "cycles", "events", "nominations", "flushes"):
        for r in out[part]:
            for k in ("at", "arrived_at", "bound_at", "chosen_victims"):
                r.pop(k, None)
    return out


def _zero_grace(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    items = copy.deepcopy(items)
    for o in items:
        if o.get("kind") == "Pod":
            o["spec"]["terminationGracePeriodSeconds"] = 0
    return items


@pytest.mark.parametrize("path", SEQUENCES, ids=lambda p: p.stem)
def test_with_every_grace_period_0_and_no_arrival_it_is_the_plain_run(path: Path) -> None:
    s = json.loads(path.read_text())
    items = _zero_grace(s["snapshot"]["items"])
    plain = simulate(items, s["pending"]).to_dict()
    timed = simulate(items, s["pending"], timeline=True).to_dict()
    assert _untimed(timed) == plain


def _requests_on(sim: Simulation, cycle: int, node: str) -> tuple[int, int]:
    cluster, _ = sim.cluster_at(cycle)
    ni = cluster.node_info_by_name[node]
    return ni.requested.get("cpu", 0), ni.node.allocatable.get("cpu", 0)


@pytest.mark.parametrize("seed", range(60))
def test_time_never_goes_back_and_no_pod_takes_room_still_held(seed: int) -> None:
    snapshot, pending = _cluster(seed)
    sim = simulate(snapshot, pending, timeline=True)
    d = sim.to_dict()
    ats = [c["at"] for c in d["cycles"]]
    assert ats == sorted(ats) and len(set(ats)) == len(ats)
    assert [e["at"] for e in d["events"]] == sorted(e["at"] for e in d["events"])
    for t in d["terminations"]:
        assert t["gone_at"] == pytest.approx(t["deleted_at"] + t["grace_seconds"])
    arrivals = {p["metadata"]["name"]: p["metadata"].get("annotations") for p in pending}
    for p in d["pods"]:
        assert p["arrived_at"] is not None
        wanted = (arrivals[p["pod"].split("/")[1]] or {}).get("preemptlab.io/arrival-seconds")
        assert p["arrived_at"] >= float(wanted or 0)
        if p["bound_at"] is not None:
            assert p["bound_at"] > p["arrived_at"]
    for c in d["cycles"]:
        if c["result"] != "bound":
            continue
        # The cluster as the cycle saw it counts every terminating victim still there;
        # the pod bound must fit beside them.
        used, allocatable = _requests_on(sim, c["cycle"], c["node"])
        pod = next(p for p in sim.pending if p.key == c["pod"])
        assert used + pod.requests.get("cpu", 0) <= allocatable
        for t in d["terminations"]:
            if t["node"] == c["node"] and t["deleted_at"] <= c["at"] < t["gone_at"]:
                cluster, _ = sim.cluster_at(c["cycle"])
                on_node = [q.key for q in cluster.node_info_by_name[c["node"]].pods]
                assert t["pod"] in on_node  # still holding its room


def test_a_victim_holds_its_room_for_its_grace_period() -> None:
    snapshot = as_list(
        make_node("n1").capacity(cpu="2", memory="4Gi", pods="10").obj(),
        make_pod("db").priority(10).req(cpu="2").node("n1").grace(120).obj(),
    )
    sim = simulate(snapshot, [make_pod("web").priority(100).req(cpu="2").obj()], timeline=True)
    d = sim.to_dict()
    assert d["terminations"] == [
        {
            "pod": "default/db",
            "node": "n1",
            "cycle": 1,
            "preemptor": "default/web",
            "deleted_at": 0.002,
            "gone_at": 120.002,
            "grace_seconds": 120,
        }
    ]
    # Retried when db is gone (AssignedPod/Delete), bound 1 ms later.
    assert d["pods"][0]["bound_at"] == pytest.approx(120.003)
    assert d["timeline"]["duration"] == pytest.approx(120.003)
    assert d["timeline"]["clock_origin"].endswith("Z")


def test_a_pod_arriving_later_is_created_then() -> None:
    snapshot = as_list(make_node("n1").capacity(cpu="2", memory="4Gi", pods="10").obj())
    pending = [make_pod("late").req(cpu="1").arrives(42.5).obj()]
    d = simulate(snapshot, pending, timeline=True).to_dict()
    assert d["pods"][0]["arrived_at"] == pytest.approx(42.501)
    assert d["cycles"][0]["at"] == pytest.approx(42.502)


def test_a_running_pod_deleted_by_someone_else_gives_its_room_back_when_gone() -> None:
    snapshot = as_list(
        make_node("n1").capacity(cpu="2", memory="4Gi", pods="10").obj(),
        make_pod("job").priority(1000).req(cpu="2").node("n1").grace(10).deleted_at(5).obj(),
    )
    d = simulate(snapshot, [make_pod("web").req(cpu="2").obj()], timeline=True).to_dict()
    assert d["terminations"][0]["cycle"] is None and d["terminations"][0]["preemptor"] is None
    assert d["pods"][0]["node"] == "n1"
    assert d["pods"][0]["bound_at"] == pytest.approx(15.001)


@pytest.mark.parametrize("value", ["soon", "-3", "nan"])
def test_a_bad_arrival_names_the_annotation(value: str) -> None:
    snapshot = as_list(make_node("n1").capacity(cpu="2", memory="4Gi", pods="10").obj())
    pending = [make_pod("p").req(cpu="1").annotation("preemptlab.io/arrival-seconds", value).obj()]
    with pytest.raises(InvalidInput) as e:
        simulate(snapshot, pending, timeline=True)
    assert "preemptlab.io/arrival-seconds" in str(e.value)


# Bounds: a timed run ends promptly however far its events lie ----------------------

CENTURIES = 100_000_000_000  # seconds: a grace period of some 3,000 centuries


def _demo_deployment(name: str, cls: str, cpu: str, **spec: Any) -> dict[str, Any]:
    """A one-replica Deployment as the what-if page submits it."""
    container = {"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}
    return make_deployment(
        name, {"priorityClassName": cls, "containers": [container], **spec}, replicas=1
    )


def _demo_bomb(grace: int) -> list[dict[str, Any]]:
    """On the demo: ``a`` (cat-1, 300m, the given grace period) lands on node-3, the only
    node with room; ``b`` (cat-2) arrives at 2 s, needs node-3 and preempts ``a``."""
    a = _demo_deployment("a", "cat-1", "300m", terminationGracePeriodSeconds=grace)
    b = _demo_deployment("b", "cat-2", "400m", nodeSelector={"kubernetes.io/hostname": "node-3"})
    b["metadata"]["annotations"] = {"preemptlab.io/arrival-seconds": "2"}
    return expand_workload([a, b]).pods


@pytest.mark.parametrize("grace", [CENTURIES, 2**62, 2**63 - 1])
def test_a_preemptor_waiting_centuries_for_its_victim_stops_at_the_span(grace: int) -> None:
    calls: list[int] = []
    started = time.monotonic()
    sim = simulate(demo_objects(), _demo_bomb(grace), timeline=True, on_cycle=calls.append)
    elapsed = time.monotonic() - started
    d = sim.to_dict()
    assert elapsed < 1.0
    a, b = d["pods"]
    assert a["node"] == "node-3" and b["final"] == "pending" and b["nominated_node"] == "node-3"
    assert [(t["pod"], t["grace_seconds"]) for t in d["terminations"]] == [(a["pod"], grace)]
    assert d["terminations"][0]["gone_at"] == pytest.approx(grace + 2.002)
    # b is retried at every leftover flush until its limit; the clock never passes 7 days.
    assert d["stop_reason"] == "cycle-limit"
    assert d["timeline"]["duration"] <= TIMELINE_SPAN_SECONDS


def _deleted_later(grace: int) -> list[dict[str, Any]]:
    return as_list(
        make_node("n1").capacity(cpu="4", memory="4Gi", pods="10").obj(),
        make_pod("job")
        .req(cpu="1")
        .node("n1")
        .grace(grace)
        .annotation("preemptlab.io/delete-at-seconds", "5")
        .obj(),
    )


def test_a_grace_period_past_the_span_is_not_waited_for_tick_by_tick() -> None:
    """Nothing is left to schedule while ``job`` terminates for centuries: the run ends
    at once instead of stepping the leftover flush's 30 s ticks through that time."""
    calls: list[int] = []
    started = time.monotonic()
    d = simulate(
        _deleted_later(CENTURIES),
        [make_pod("web").req(cpu="1").obj()],
        timeline=True,
        on_cycle=calls.append,
    ).to_dict()
    assert time.monotonic() - started < 1.0
    assert d["pods"][0]["node"] == "n1" and d["stop_reason"] == "queue-empty"
    assert d["terminations"][0]["gone_at"] == pytest.approx(CENTURIES + 5)
    assert d["timeline"]["duration"] == pytest.approx(5.0)
    # The budget's hook saw the clock move to the deletion, not only the one cycle.
    assert len(calls) > len(d["cycles"]) == 1


def test_a_grace_period_within_the_span_still_ends_on_time() -> None:
    d = simulate(
        _deleted_later(3 * 24 * 3600), [make_pod("web").req(cpu="1").obj()], timeline=True
    ).to_dict()
    assert d["timeline"]["duration"] == pytest.approx(3 * 24 * 3600 + 5)


def test_a_negative_grace_period_is_one_second_as_the_api_server_deletes_it() -> None:
    d = simulate(_deleted_later(-5), [make_pod("web").req(cpu="1").obj()], timeline=True).to_dict()
    assert d["terminations"][0]["grace_seconds"] == 1
    assert d["terminations"][0]["gone_at"] == pytest.approx(6.0)


def test_a_grace_period_beyond_int64_is_refused_by_name() -> None:
    with pytest.raises(InvalidInput) as e:
        simulate(_deleted_later(2**63), [], timeline=True)
    assert "spec.terminationGracePeriodSeconds" in str(e.value) and "64-bit" in str(e.value)


@pytest.mark.parametrize("value", ["999999999", "604800.5", "inf", "1e400"])
def test_an_arrival_past_the_span_is_refused_naming_object_and_field(value: str) -> None:
    b = _demo_deployment("b", "cat-2", "400m")
    b["metadata"]["annotations"] = {"preemptlab.io/arrival-seconds": value}
    started = time.monotonic()
    with pytest.raises(InvalidInput) as e:
        expand_workload([_demo_deployment("a", "cat-1", "300m"), b])
    assert time.monotonic() - started < 1.0
    message = str(e.value)
    assert "Deployment default/b" in message
    assert "metadata.annotations[preemptlab.io/arrival-seconds]" in message
    assert "604800" in message


def test_a_delete_at_past_the_span_is_refused() -> None:
    snapshot = as_list(
        make_node("n1").capacity(cpu="4", memory="4Gi", pods="10").obj(),
        make_pod("job").node("n1").annotation("preemptlab.io/delete-at-seconds", "1e9").obj(),
    )
    with pytest.raises(InvalidInput) as e:
        simulate(snapshot, [], timeline=True)
    assert "preemptlab.io/delete-at-seconds" in str(e.value)


def test_an_arrival_at_the_end_of_the_span_is_quick() -> None:
    started = time.monotonic()
    pending = [make_pod("late").req(cpu="1").arrives(TIMELINE_SPAN_SECONDS).obj()]
    d = simulate(_deleted_later(30), pending, timeline=True).to_dict()
    assert time.monotonic() - started < 1.0
    assert d["pods"][0]["bound_at"] == pytest.approx(TIMELINE_SPAN_SECONDS + 0.002)
