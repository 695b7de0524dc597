"""simulate(timeline=True): the properties every timeline run keeps, on generated
clusters (the real loop's own answers are in tests/conformance/test_timeline.py)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from scheduling.engine import simulate
from scheduling.engine.errors import InvalidInput
from scheduling.engine.simulate import Simulation

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
