"""The preemption split: the Evaluator's steps, callable one by one on a cluster and a
pod, and a policy other than DefaultPreemption plugged in through ``Interface``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scheduling.engine import analyze, load_cluster
from scheduling.engine.analysis import parse_pending_pod
from scheduling.engine.cluster import NodeInfo
from scheduling.engine.framework import Code, CycleState, Status
from scheduling.engine.objects import Pod
from scheduling.engine.preemption.candidate import CRITERIA, Candidate, Criterion
from scheduling.engine.preemption.defaultpreemption import DefaultPreemption
from scheduling.engine.preemption.evaluator import Evaluator
from scheduling.engine.preemption.interface import Interface, ScoreFunc
from scheduling.engine.preemption.victims import Victims
from scheduling.engine.schedule import schedule_pod

from .builders import as_list, make_node, make_pod


def _cluster() -> dict[str, Any]:
    """Three full 2-CPU nodes; c's victims started last, b's victims are two pods."""
    items = []
    for node, pods, start in (
        ("a", [("a-0", 2)], "2025-01-01T00:00:00Z"),
        ("b", [("b-0", 1), ("b-1", 1)], "2025-01-01T00:00:00Z"),
        ("c", [("c-0", 2)], "2025-03-01T00:00:00Z"),
    ):
        items.append(make_node(node).capacity(cpu="2").obj())
        for name, cpu in pods:
            items.append(
                make_pod(name).priority(1).req(cpu=str(cpu)).node(node).start_time(start).obj()
            )
    return as_list(*items)


def _cycle(objects: dict[str, Any], pod: dict[str, Any]) -> tuple[Evaluator, CycleState, Pod, Any]:
    cluster = load_cluster(objects)
    evaluator = Evaluator.for_cluster(cluster)
    pending = parse_pending_pod(cluster, pod)
    state = CycleState()
    sched = schedule_pod(evaluator.fw, state, pending)
    return evaluator, state, pending, sched.diagnosis


def test_the_steps_one_by_one_give_what_analyze_gives() -> None:
    pod = make_pod("p").priority(10).req(cpu="2").obj()
    evaluator, state, pending, diagnosis = _cycle(_cluster(), pod)
    candidates, statuses, potential = evaluator.find_candidates(state, pending, diagnosis)
    assert [ni.name for ni in potential] == ["a", "b", "c"] and statuses == {}
    again, _ = evaluator.dry_run_preemption(state, pending, potential)
    assert [(c.node, [p.key for p in c.victims.pods]) for c in again] == [
        (c.node, [p.key for p in c.victims.pods]) for c in candidates
    ]
    chosen, tied = evaluator.select_candidate(candidates)
    assert chosen is not None and chosen.node == "c" and tied == ["c"]
    why = {c.node: c.eliminated_by for c in candidates}
    # b has two victims: out on the sum of priorities (each adds 2^31); a on start time.
    assert why == {"a": Criterion.START_TIME, "b": Criterion.PRIORITY_SUM, "c": None}
    result = analyze(_cluster(), pod).to_dict()
    assert result["node"] == "c"
    assert {c["node"]: c["eliminated_by"] for c in result["candidates"]} == why


class FewestVictimsFirst:
    """A policy that differs from DefaultPreemption only in its criteria."""

    def __init__(self, default: DefaultPreemption) -> None:
        self.default = default

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return self.default.get_offset_and_num_candidates(num_nodes)

    def pod_eligible_to_preempt_others(self, pod: Pod, status: Status) -> tuple[bool, str]:
        return self.default.pod_eligible_to_preempt_others(pod, status)

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[Victims | None, Status]:
        return self.default.select_victims_on_node(state, pod, node_info)

    def ordered_score_funcs(self) -> Sequence[tuple[Criterion, ScoreFunc]]:
        by_name = dict(CRITERIA)
        return [(Criterion.VICTIM_COUNT, by_name[Criterion.VICTIM_COUNT])]


def test_another_policy_plugs_in_through_the_interface() -> None:
    pod = make_pod("p").priority(10).req(cpu="2").obj()
    evaluator, state, pending, diagnosis = _cycle(_cluster(), pod)
    policy: Interface = FewestVictimsFirst(DefaultPreemption(evaluator.fw))
    custom = Evaluator(evaluator.fw, policy)
    result = custom.preempt(state, pending, diagnosis)
    # One criterion only: a and c tie on one victim each; a comes first by name.
    assert result.chosen is not None and result.chosen.node == "a"
    assert result.tied == ["a", "c"]
    assert {c.node: c.eliminated_by for c in result.candidates}["b"] == Criterion.VICTIM_COUNT


def test_a_node_without_lower_priority_pods_says_so() -> None:
    pod = make_pod("p").priority(1).req(cpu="2").obj()
    evaluator, state, pending, diagnosis = _cycle(_cluster(), pod)
    candidates, statuses, _ = evaluator.find_candidates(state, pending, diagnosis)
    assert candidates == []
    assert {n: (s.code, s.reasons) for n, s in statuses.items()} == {
        n: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["No preemption victims found for incoming pod"])
        for n in ("a", "b", "c")
    }


def test_candidates_carry_their_victims() -> None:
    pod = make_pod("p").priority(10).req(cpu="1").obj()
    evaluator, state, pending, diagnosis = _cycle(_cluster(), pod)
    candidates, _, _ = evaluator.find_candidates(state, pending, diagnosis)
    assert all(isinstance(c, Candidate) and c.victims.pods for c in candidates)
    # On b one of its two 1-CPU pods is enough: the reprieve keeps the first of two equally
    # important pods (a stable sort), so the second goes.
    assert [p.key for c in candidates if c.node == "b" for p in c.victims.pods] == ["default/b-1"]
