"""The result page's wording and grouping, from stored results written out by hand."""

from __future__ import annotations

from typing import Any

from scheduling import presenters
from scheduling.constants import CRITERIA
from scheduling.engine.preemption.evaluator import CRITERIA as ENGINE_CRITERIA


def _result(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "pod": "default/web",
        "priority": 100,
        "priority_class": None,
        "preemption_policy": "PreemptLowerPriority",
        "outcome": "unschedulable",
        "eligible": True,
        "ineligible_reason": None,
        "node": None,
        "feasible_nodes": [],
        "victims": [],
        "pdb_violations": 0,
        "candidates": [],
        "tied_nodes": [],
        "rejected_nodes": [],
        "message": "",
    }
    return base | kw


def test_it_says_where_a_pod_fits() -> None:
    assert (
        presenters.outcome_sentence(
            _result(outcome="fits", node="node-3", feasible_nodes=["node-3"])
        )
        == "Fits on node-3."
    )
    r = _result(outcome="fits", node="node-3", feasible_nodes=["node-1", "node-3", "node-4"])
    assert presenters.outcome_sentence(r) == "Fits on node-3 (2 other nodes would fit too)."


def test_it_counts_victims_and_broken_budgets() -> None:
    r = _result(outcome="preempts", node="node-7", victims=["a/x", "a/y"], pdb_violations=1)
    assert (
        presenters.outcome_sentence(r)
        == "Preempts 2 pods on node-7, violating 1 PodDisruptionBudget."
    )


def test_it_explains_an_ineligible_pod() -> None:
    r = _result(eligible=False, ineligible_reason="not eligible due to preemptionPolicy=Never.")
    assert presenters.outcome_sentence(r) == (
        "Cannot be scheduled, and preemption would not help because the pod is not eligible "
        "due to preemptionPolicy=Never."
    )


def test_it_explains_reasons_preemption_cannot_fix() -> None:
    r = _result(
        rejected_nodes=[
            {
                "node": "n1",
                "reasons": ["node(s) had untolerated taint {dedicated: gpu}"],
                "preemption_can_help": False,
            },
            {
                "node": "n2",
                "reasons": ["node(s) had untolerated taint {dedicated: gpu}"],
                "preemption_can_help": False,
            },
        ]
    )
    assert presenters.outcome_sentence(r) == (
        "Cannot be scheduled, and preemption would not help because every node fails for a "
        "reason evicting pods cannot fix (node(s) had untolerated taint {dedicated: gpu})."
    )


def test_it_explains_when_even_evicting_everything_is_not_enough() -> None:
    r = _result(
        rejected_nodes=[
            {"node": "n1", "reasons": ["Insufficient cpu"], "preemption_can_help": True}
        ]
    )
    assert "no node where it could help would have room" in presenters.outcome_sentence(r)
    assert "no nodes" in presenters.outcome_sentence(_result())


def test_it_groups_other_nodes_by_reason_largest_first_leaving_out_the_chosen_one() -> None:
    cpu = {"reasons": ["Insufficient cpu"], "preemption_can_help": True}
    taint = {
        "reasons": ["node(s) had untolerated taint {dedicated: gpu}"],
        "preemption_can_help": False,
    }
    r = _result(
        outcome="preempts",
        node="n1",
        rejected_nodes=[
            {"node": "n1", **cpu},
            {"node": "n2", **taint},
            {"node": "n3", **cpu},
            {"node": "n4", **cpu},
        ],
    )
    groups = presenters.rejected_groups(r)
    assert [(g.label, g.preemption_can_help, g.nodes) for g in groups] == [
        ("Insufficient cpu", True, ["n3", "n4"]),
        ("node(s) had untolerated taint {dedicated: gpu}", False, ["n2"]),
    ]
    assert [g.index for g in groups] == [0, 1]


def test_the_tie_break_marks_the_cell_that_eliminated_each_node() -> None:
    cands = [
        {
            "node": "a",
            "pdb_violations": 0,
            "highest_victim_priority": 10,
            "priority_sum": 10,
            "victim_count": 1,
            "highest_victims_earliest_start": "t1",
            "eliminated_by": None,
            "victims": ["x/1"],
        },
        {
            "node": "b",
            "pdb_violations": 0,
            "highest_victim_priority": 20,
            "priority_sum": 20,
            "victim_count": 1,
            "highest_victims_earliest_start": "t1",
            "eliminated_by": "highest_priority",
            "victims": ["x/2"],
        },
        {
            "node": "c",
            "pdb_violations": 1,
            "highest_victim_priority": 10,
            "priority_sum": 10,
            "victim_count": 1,
            "highest_victims_earliest_start": "t1",
            "eliminated_by": "pdb_violations",
            "victims": ["x/3"],
        },
    ]
    rows = presenters.candidate_rows(cands, start=10)
    assert [r.rank for r in rows] == [11, 12, 13]
    assert rows[0].winner and not any(c.eliminator for c in rows[0].cells)
    assert [c.eliminator for c in rows[1].cells] == [False, True, False, False, False]
    assert [c.eliminator for c in rows[2].cells] == [True, False, False, False, False]
    assert [c.value for c in rows[1].cells] == [0, 20, 20, 1, "t1"]


def test_the_criteria_come_in_kube_schedulers_order_each_explained() -> None:
    keys = [c["key"] for c in presenters.criteria_help()]
    assert keys == [
        "pdb_violations",
        "highest_priority",
        "priority_sum",
        "victim_count",
        "start_time",
        "tie",
    ]
    assert all(c["text"].endswith(".") and len(c["text"]) > 40 for c in presenters.criteria_help())


def test_it_notes_where_the_real_scheduler_would_have_sampled() -> None:
    details = {
        "preemption": {
            "potential_nodes": ["n"] * 500,
            "real_scheduler_would_sample": 100,
            "sampled": True,
        }
    }
    (note,) = presenters.sampling_notes(details)
    assert "only 100 of the 500 nodes" in note
    assert presenters.sampling_notes({"preemption": {"sampled": False}}) == []


def test_quantities_read_like_kubectl() -> None:
    assert presenters.format_quantity(1500, "cpu") == "1500m"
    assert presenters.format_quantity(2000, "cpu") == "2"
    assert presenters.format_quantity(2 * 1024**3, "memory") == "2Gi"
    assert presenters.format_quantity(1536 * 1024**2, "memory") == "1.5Gi"
    assert (
        presenters.format_requests({"memory": 1024**2, "cpu": 250, "nvidia.com/gpu": 1})
        == "cpu 250m, memory 1Mi, nvidia.com/gpu 1"
    )


def test_the_picture_highlights_victims_before_and_places_the_pod_after() -> None:
    view = {
        "node": "node-5",
        "allocatable": {"cpu": 4000, "memory": 8 * 1024**3},
        "requested": {"cpu": 3500, "memory": 6 * 1024**3},
        "preemptor_requests": {"cpu": 1000, "memory": 2 * 1024**3},
        "victims": [{"key": "default/blue-1", "requests": {"cpu": 1000, "memory": 2 * 1024**3}}],
    }
    svg = str(presenters.capacity_svg(view, outcome="preempts"))
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    # Legend plus one segment per resource: victims on the "before" bar, the pod on "after".
    assert svg.count('class="seg-victim"') == 3
    assert svg.count('class="seg-pod"') == 3
    assert "<title>default/blue-1: 1</title>" in svg
    assert "<title>default/blue-1: 2Gi</title>" in svg
    assert "<title>pending pod: 1</title>" in svg
    assert "3500m / 4" in svg and "2.5 / 4" not in svg
    assert presenters.capacity_svg(None, outcome="fits") == ""


def test_the_picture_escapes_names() -> None:
    view = {
        "node": "<n>",
        "allocatable": {"cpu": 1000},
        "requested": {"cpu": 500},
        "preemptor_requests": {"cpu": 500},
        "victims": [{"key": "a/<script>", "requests": {"cpu": 500}}],
    }
    svg = str(presenters.capacity_svg(view, outcome="preempts"))
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_the_criteria_explained_are_the_engines_in_its_order() -> None:
    # Each row of the tie-break table names the criterion that eliminated a candidate by
    # the key the engine stores in eliminated_by; the page's list must follow the engine's.
    assert [c[0] for c in CRITERIA] == [key for key, _ in ENGINE_CRITERIA] + ["tie"]
