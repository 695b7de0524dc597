"""The typed explanation: what it says of each node, of the input, of sampling, and
that it comes back from its JSON form unchanged."""

from __future__ import annotations

import json

import pytest

from scheduling.engine import (
    SCHEMA_VERSION,
    CannotHelp,
    EngineConfig,
    Explanation,
    InputEffect,
    InvalidInput,
    Outcome,
    analyze,
)
from scheduling.engine.schedule import num_feasible_nodes_to_find

from .builders import as_list, make_node, make_pod


@pytest.mark.parametrize(
    ("percentage", "nodes", "expected"),
    [
        # TestNumFeasibleNodesToFind in pkg/scheduler/schedule_one_test.go.
        (0, 10, 10),
        (40, 10, 10),
        (0, 1000, 420),
        (40, 1000, 400),
        (0, 6000, 300),
        (20, 6000, 1200),
    ],
)
def test_num_feasible_nodes_to_find(percentage: int, nodes: int, expected: int) -> None:
    assert num_feasible_nodes_to_find(percentage, nodes) == expected


def test_why_preemption_cannot_help_on_each_node() -> None:
    snapshot = as_list(
        # Tainted: UnschedulableAndUnresolvable, never dry-run.
        make_node("tainted").taint("dedicated", "gpu").obj(),
        # Full of pods as important as the pod: nothing to preempt.
        make_node("peers").capacity(cpu="2").obj(),
        make_pod("peer").priority(10).req(cpu="2").node("peers").obj(),
        # A lower-priority pod, but even without it a pod as important as this one
        # leaves too little room.
        make_node("small").capacity(cpu="2").obj(),
        make_pod("keep").priority(10).req(cpu="1").node("small").obj(),
        make_pod("low").priority(1).req(cpu="500m").node("small").obj(),
        # Room once the lower-priority pod goes: a candidate.
        make_node("roomy").capacity(cpu="2").obj(),
        make_pod("low2").priority(1).req(cpu="2").node("roomy").obj(),
    )
    ex = analyze(snapshot, make_pod("p").priority(10).req(cpu="2").obj()).explanation
    assert ex.outcome == Outcome.PREEMPTS and ex.node == "roomy"
    verdicts = {r.node: r.cannot_help for r in ex.rejected_nodes}
    assert verdicts == {
        "tainted": CannotHelp.UNRESOLVABLE,
        "peers": CannotHelp.NO_LOWER_PRIORITY_PODS,
        "small": CannotHelp.DOES_NOT_FIT,
        "roomy": None,
    }
    never = analyze(
        snapshot, make_pod("p").priority(10).req(cpu="2").preemption_policy("Never").obj()
    ).explanation
    assert {r.cannot_help for r in never.rejected_nodes} == {CannotHelp.POLICY_NEVER}
    fits = analyze(snapshot, make_pod("p").priority(10).req(cpu="100m").obj()).explanation
    assert {r.cannot_help for r in fits.rejected_nodes} == {CannotHelp.NOT_ATTEMPTED}


def test_a_pasted_running_pod_is_analysed_as_pending_and_says_so() -> None:
    snapshot = as_list(make_node("n1").obj())
    pod = make_pod("web").req(cpu="1").node("elsewhere").start_time("2025-01-01T00:00:00Z").obj()
    ex = analyze(snapshot, pod).explanation
    assert ex.outcome == Outcome.FITS and ex.node == "n1"
    assert [(n.field, n.value, n.effect) for n in ex.input_notices] == [
        ("spec.nodeName", "elsewhere", InputEffect.IGNORED),
        ("status", "phase Running: phase, startTime", InputEffect.IGNORED),
    ]
    nominated = analyze(snapshot, make_pod("web").req(cpu="1").nominated("n1").obj()).explanation
    assert [(n.field, n.effect) for n in nominated.input_notices] == [
        ("status.nominatedNodeName", InputEffect.USED)
    ]
    fresh = analyze(snapshot, make_pod("web").req(cpu="1").obj()).explanation
    assert fresh.input_notices == []


def test_a_pod_without_containers_is_refused_as_the_api_server_does() -> None:
    pod = make_pod("empty").obj()
    pod["spec"]["containers"] = []
    with pytest.raises(InvalidInput, match=r"Pod default/empty: spec.containers: Required value"):
        analyze(as_list(make_node("n1").obj()), pod)


def test_filtering_that_the_real_scheduler_would_cut_short_is_noted() -> None:
    nodes = [make_node(f"n{i:03}").obj() for i in range(200)]
    ex = analyze(as_list(*nodes), make_pod("p").req(cpu="1").obj()).explanation
    assert ex.filter_sampling is not None
    assert (ex.filter_sampling.nodes_to_find, ex.filter_sampling.feasible_nodes) == (100, 200)
    assert ex.filter_sampling.sampled
    every = analyze(
        as_list(*nodes),
        make_pod("p").req(cpu="1").obj(),
        EngineConfig(percentage_of_nodes_to_score=100),
    ).explanation
    assert every.filter_sampling is not None and not every.filter_sampling.sampled


def test_the_json_form_reads_back_the_same() -> None:
    snapshot = as_list(
        make_node("a").capacity(cpu="1").obj(),
        make_pod("low").priority(1).req(cpu="1").node("a").start_time("2025-01-01T00:00:00Z").obj(),
        make_node("b").taint("x").obj(),
    )
    ex = analyze(snapshot, make_pod("p").priority(5).req(cpu="1").obj()).explanation
    stored = json.loads(json.dumps(ex.to_json()))
    assert stored["schema_version"] == SCHEMA_VERSION
    again = Explanation.from_json(stored)
    assert again == ex
    assert (
        again.to_contract()
        == analyze(snapshot, make_pod("p").priority(5).req(cpu="1").obj()).to_dict()
    )
    with pytest.raises(ValueError, match="schema version"):
        Explanation.from_json({**stored, "schema_version": 99})
