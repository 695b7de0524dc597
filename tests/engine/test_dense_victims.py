"""Victim selection in integers (defaultpreemption's resources-only path) answers as the
general path does (a NodeInfo copy, every filter, the pods sorted afresh), on crowded
nodes asked several what-ifs in turn: the reprieve order, PDB verdicts and requests it
keeps on each node per priority cut are reused by the later ones, and a node where the
pod does not fit even with every lower-priority pod gone is answered without a
reprieve (SelectVictimsOnNode's own check fails there: no victims, NodeResourcesFit's
reasons).
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine import EngineConfig, load_cluster
from scheduling.engine.analysis import parse_pending_pod
from scheduling.engine.framework import Code, CycleState, Handle
from scheduling.engine.preemption.defaultpreemption import (
    DefaultPreemption,
    select_victims_on_node,
)
from scheduling.engine.preemption.victims import Victims
from scheduling.engine.runtime import Framework
from scheduling.engine.schedule import schedule_pod

from .builders import as_list, make_node, make_pdb, make_pod

EXAMPLES = int(os.environ.get("INVARIANT_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Few priorities and few start seconds: equally important pods are common, and a node
# holds up to 16 pods, past the 12 up to which Go's sort keeps them in their order.
PRIORITIES = [0, 5, 5, 10, 100]
PREEMPTOR_PRIORITIES = [1, 6, 11, 101, 1000]
CPUS = ["100m", "250m", "500m", "1"]
MEMS = ["128Mi", "256Mi", "512Mi", "1Gi"]
APPS = ["a", "b", "c"]


@st.composite
def crowded(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A cluster of 1-3 crowded nodes and 2-6 pending pods to ask about in turn."""
    items: list[dict[str, Any]] = []
    names = [f"n{i}" for i in range(draw(st.integers(1, 3)))]
    k = 0
    for node in names:
        items.append(
            make_node(node)
            .capacity(
                cpu=draw(st.sampled_from(["2", "4", "8"])),
                memory=draw(st.sampled_from(["4Gi", "8Gi"])),
                pods=draw(st.sampled_from(["110", "4", "8", "14", "20"])),
                gpu=draw(st.sampled_from(["0", "1", "2"])),
            )
            .obj()
        )
        for _ in range(draw(st.integers(0, 16))):
            pb = (
                make_pod(f"p{k}", "team" if draw(st.integers(0, 6)) == 0 else "default")
                .priority(draw(st.sampled_from(PRIORITIES)))
                .req(cpu=draw(st.sampled_from(CPUS)), memory=draw(st.sampled_from(MEMS)))
                .labels(app=draw(st.sampled_from(APPS)))
                .node(node)
                .start_time(f"2025-06-02T08:00:0{draw(st.integers(0, 3))}Z")
            )
            if draw(st.integers(0, 5)) == 0:
                pb.req(gpu="1")
            items.append(pb.obj())
            k += 1
    for i in range(draw(st.integers(0, 2))):
        items.append(
            make_pod(f"nom{i}")
            .priority(draw(st.sampled_from(PREEMPTOR_PRIORITIES)))
            .req(cpu=draw(st.sampled_from(CPUS)))
            .nominated(draw(st.sampled_from(names)))
            .obj()
        )
    for i in range(draw(st.integers(0, 3))):
        disrupted = [f"p{draw(st.integers(0, max(k - 1, 0)))}"] if draw(st.booleans()) else []
        items.append(
            make_pdb(
                f"pdb{i}",
                match_labels={"app": draw(st.sampled_from(APPS))},
                disruptions_allowed=draw(st.integers(0, 2)),
                disrupted_pods=disrupted,
            )
        )
    pending = []
    # Up to six in turn: more priority cuts than a node keeps (LOWER_CUTS_KEPT).
    for i in range(draw(st.integers(2, 6))):
        pb = make_pod(f"pending{i}").priority(draw(st.sampled_from(PREEMPTOR_PRIORITIES)))
        # One, two or three resources to fit: cpu alone, with memory, with a GPU.
        shape = draw(st.sampled_from(["cpu", "cpu+memory", "cpu+memory", "all"]))
        pb.req(cpu=draw(st.sampled_from(["500m", "1", "2", "4", "9"])))
        if shape != "cpu":
            pb.req(memory=draw(st.sampled_from(["512Mi", "2Gi", "6Gi", "9Gi"])))
        if shape == "all":
            pb.req(gpu=draw(st.sampled_from(["1", "2"])))
        pending.append(pb.obj())
    return as_list(*items), pending


def _answer(victims: Victims | None) -> tuple[list[str], int, list[str]] | None:
    if victims is None:
        return None
    return (
        [p.key for p in victims.pods],
        victims.num_pdb_violations,
        [p.key for p in victims.violating],
    )


@SETTINGS
@given(crowded())
def test_integer_selection_answers_as_the_general_path_on_every_node(
    case: tuple[dict[str, Any], list[dict[str, Any]]],
) -> None:
    objects, pending = case
    cluster = load_cluster(objects)  # one cluster for every what-if, as the cache keeps it
    fw = Framework(Handle(cluster, EngineConfig()))
    for manifest in pending:
        pod = parse_pending_pod(cluster, manifest)
        state = CycleState()
        schedule_pod(fw, state, pod)
        policy = DefaultPreemption(fw)
        assert policy.resources_only(state)
        for ni in cluster.node_infos:
            fast, fast_status = policy.select_victims_on_node(state, pod, ni)
            slow, slow_status = select_victims_on_node(fw, state.clone(), pod, ni, False)
            where = (manifest["metadata"]["name"], ni.name)
            assert (fast_status.code, fast_status.reasons, fast_status.plugin) == (
                slow_status.code,
                slow_status.reasons,
                slow_status.plugin,
            ), where
            assert _answer(fast) == _answer(slow), where


def _dry_run(objects: dict[str, Any], *pending: dict[str, Any]) -> list[Any]:
    """Each pending pod's dry run on the one node, in turn on one loaded cluster."""
    cluster = load_cluster(objects)
    fw = Framework(Handle(cluster, EngineConfig()))
    (ni,) = cluster.node_infos
    out = []
    for manifest in pending:
        pod = parse_pending_pod(cluster, manifest)
        state = CycleState()
        schedule_pod(fw, state, pod)
        victims, status = DefaultPreemption(fw).select_victims_on_node(state, pod, ni)
        general = select_victims_on_node(fw, state.clone(), pod, ni, False)
        assert (_answer(victims), status.reasons) == (_answer(general[0]), general[1].reasons)
        names = None if victims is None else [p.name for p in victims.pods]
        out.append((names, status.code, status.reasons))
    return out


def test_a_node_too_small_even_without_its_lower_pods_has_no_victims() -> None:
    """3 CPUs on a 4-CPU node where a pod of higher priority holds 2: even with both
    lower-priority pods gone it does not fit, and the dry run says why as NodeResourcesFit
    does for the node without them; 1 CPU fits once they are gone, and the more
    important of the two is put back."""
    objects = as_list(
        make_node("n").capacity(cpu="4", memory="8Gi", pods="110").obj(),
        make_pod("keep").priority(500).req(cpu="2").node("n").obj(),
        make_pod("low-1").priority(1).req(cpu="1").node("n").obj(),
        make_pod("low-2").priority(2).req(cpu="1").node("n").obj(),
    )
    asks = [make_pod(f"ask-{cpu}").priority(100).req(cpu=cpu).obj() for cpu in ("3", "5", "1")]
    assert _dry_run(objects, *asks) == [
        (None, Code.UNSCHEDULABLE, ["Insufficient cpu"]),
        # More than the node's allocatable: no eviction can help.
        (None, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["Insufficient cpu"]),
        (["low-1"], Code.SUCCESS, []),
    ]


def test_a_node_full_of_more_important_pods_has_no_victims() -> None:
    """Four pods above the pending pod on a node that takes four: with the one below it
    gone the pod would be the fifth, so there are no victims however much room is left;
    above all five, one of them has to go too (the last of four equals in the API
    server's order, most important first in the list)."""
    objects = as_list(
        make_node("n").capacity(cpu="8", memory="8Gi", pods="4").obj(),
        *(make_pod(f"keep-{i}").priority(100).req(cpu="1").node("n").obj() for i in range(4)),
        make_pod("low").priority(0).req(cpu="1").node("n").obj(),
    )
    asks = [make_pod(f"at-{p}").priority(p).req(cpu="1").obj() for p in (11, 101)]
    assert _dry_run(objects, *asks) == [
        (None, Code.UNSCHEDULABLE, ["Too many pods"]),
        (["keep-3", "low"], Code.SUCCESS, []),
    ]
