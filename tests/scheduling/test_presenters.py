"""The result page's wording and grouping, from explanations written out by hand."""

from __future__ import annotations

from typing import Any

from scheduling.engine import (
    CandidateRecord,
    CannotHelp,
    Criterion,
    Explanation,
    HostSelection,
    NodeResources,
    NodeScores,
    NodeVerdict,
    Outcome,
    PDBState,
    PreemptionSampling,
    Scores,
    StatusRecord,
    VictimDetail,
)
from scheduling.engine.preemption.candidate import CRITERIA as ENGINE_CRITERIA
from scheduling.engine.quantity import format_quantity
from scheduling.presenters import pod as pod_presenters

CPU = "Insufficient cpu"
TAINT = "node(s) had untolerated taint {dedicated: gpu}"


def _ex(**kw: Any) -> Explanation:
    base: dict[str, Any] = {
        "pod": "default/web",
        "priority": 100,
        "priority_class": None,
        "preemption_policy": "PreemptLowerPriority",
        "outcome": Outcome.UNSCHEDULABLE,
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
        "num_nodes": 4,
    }
    return Explanation(**(base | kw))


def _rejected(
    node: str,
    reason: str,
    cannot: CannotHelp | None,
    *,
    code: str = "Unschedulable",
    dry_run: list[str] | None = None,
) -> NodeVerdict:
    return NodeVerdict(
        node=node,
        filter=StatusRecord(code=code, reasons=[reason]),
        preemption=StatusRecord(code="UnschedulableAndUnresolvable", reasons=dry_run)
        if dry_run
        else None,
        preemption_can_help=cannot is None,
        cannot_help=cannot,
    )


def _cand(node: str, elim: Criterion | None, **kw: Any) -> CandidateRecord:
    base: dict[str, Any] = {
        "victims": [f"x/{node}"],
        "violating_victims": [],
        "pdb_violations": 0,
        "highest_victim_priority": 10,
        "priority_sum": 10,
        "victim_count": 1,
        "highest_victims_earliest_start": "t1",
    }
    return CandidateRecord(node=node, eliminated_by=elim, **(base | kw))


def _scores(totals: dict[str, int]) -> Scores:
    rows = [
        NodeScores(node=n, plugins={"NodeResourcesFit": t - 100, "TaintToleration": 100}, total=t)
        for n, t in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    best = max(totals.values())
    return Scores(
        plugins=["NodeResourcesFit", "TaintToleration"],
        nodes=rows,
        top=sorted(n for n, t in totals.items() if t == best),
    )


def test_it_says_where_a_pod_fits() -> None:
    one = _ex(
        outcome=Outcome.FITS,
        node="node-3",
        feasible_nodes=["node-3"],
        host_selection=HostSelection.SINGLE_FEASIBLE_NODE,
        tied_nodes=["node-3"],
    )
    assert pod_presenters.outcome_sentence(one) == "Fits on node-3."
    assert pod_presenters.why_sentence(one).startswith("node-3 is the only node that passes")
    ex = _ex(
        outcome=Outcome.FITS,
        node="node-3",
        feasible_nodes=["node-1", "node-3", "node-4"],
        host_selection=HostSelection.SCORED,
        tied_nodes=["node-3"],
        scores=_scores({"node-3": 407, "node-1": 380, "node-4": 300}),
    )
    assert pod_presenters.outcome_sentence(ex) == "Fits on node-3 (2 other nodes would fit too)."
    assert pod_presenters.why_sentence(ex) == (
        "node-3 has the highest score, 407 against 380 for node-1 (NodeResourcesFit gives it "
        "27 more)."
    )


def test_a_score_tie_is_said_to_be_broken_at_random() -> None:
    ex = _ex(
        outcome=Outcome.FITS,
        node="node-3",
        feasible_nodes=["node-1", "node-3", "node-4", "node-5"],
        host_selection=HostSelection.SCORED,
        tied_nodes=["node-3", "node-4", "node-5"],
        scores=_scores({"node-3": 407, "node-4": 407, "node-5": 407, "node-1": 300}),
    )
    assert pod_presenters.outcome_sentence(ex) == (
        "Fits on node-3, node-4 or node-5 (a tie kube-scheduler breaks at random)."
    )
    table = pod_presenters.score_table(ex)
    assert table is not None
    assert table.tie == "node-3, node-4 or node-5: tied at 407, kube-scheduler picks one at random"
    assert [(r.node, r.top, r.total) for r in table.rows] == [
        ("node-3", True, 407),
        ("node-4", True, 407),
        ("node-5", True, 407),
        ("node-1", False, 300),
    ]
    assert table.rows[0].scores == [307, 100]


def test_a_nominated_node_is_taken_without_scores() -> None:
    ex = _ex(
        outcome=Outcome.FITS,
        node="node-2",
        feasible_nodes=["node-1", "node-2"],
        host_selection=HostSelection.NOMINATED_NODE,
        tied_nodes=["node-2"],
        scores=_scores({"node-1": 400, "node-2": 300}),
    )
    assert pod_presenters.outcome_sentence(ex) == "Fits on node-2, its nominated node."
    assert "status.nominatedNodeName node-2" in pod_presenters.why_sentence(ex)
    assert pod_presenters.score_table(ex) is None


def _preempting(**kw: Any) -> Explanation:
    victims = [f"team-a/web-{i}" for i in range(5)]
    base: dict[str, Any] = {
        "outcome": Outcome.PREEMPTS,
        "node": "node-5",
        "victims": victims,
        "candidates": [
            _cand("node-5", None),
            _cand("node-4", Criterion.START_TIME),
            _cand("node-9", Criterion.PDB_VIOLATIONS),
        ],
        "tied_nodes": ["node-5"],
        "victim_details": [
            VictimDetail(key=v, namespace="team-a", name=v[7:], priority=10) for v in victims
        ],
    }
    return _ex(**(base | kw))


def test_it_names_up_to_three_victims_their_budgets_and_the_deciding_criterion() -> None:
    ex = _preempting()
    assert pod_presenters.outcome_sentence(ex) == "Preempts 5 pods on node-5."
    assert pod_presenters.why_sentence(ex) == (
        "It evicts team-a/web-0, team-a/web-1, team-a/web-2 and 2 more (no PodDisruptionBudget "
        "covers them); node-5 beat node-4 on Start time: its highest-priority victim started "
        "most recently."
    )


def test_it_says_which_budget_a_victim_breaks() -> None:
    details = [
        VictimDetail(
            key="a/x",
            namespace="a",
            name="x",
            priority=1,
            pdbs=[PDBState(pdb="a/x-pdb", disruptions_allowed=0)],
            violates_pdb=True,
        )
    ]
    ex = _preempting(
        victims=["a/x"],
        victim_details=details,
        pdb_violations=1,
        candidates=[_cand("node-5", None)],
    )
    assert pod_presenters.outcome_sentence(ex) == (
        "Preempts 1 pod on node-5, violating 1 PodDisruptionBudget."
    )
    assert pod_presenters.why_sentence(ex) == (
        "It evicts a/x (evicting a/x breaks PodDisruptionBudget a/x-pdb); node-5 is the only "
        "node where preemption makes room."
    )


def test_policy_never_is_the_reason_not_the_nodes() -> None:
    ex = _ex(
        eligible=False,
        ineligible_reason="not eligible due to preemptionPolicy=Never.",
        preemption_policy="Never",
        rejected_nodes=[
            _rejected("n1", CPU, CannotHelp.POLICY_NEVER),
            _rejected("n2", CPU, CannotHelp.POLICY_NEVER),
        ],
    )
    assert pod_presenters.why_sentence(ex) == (
        "kube-scheduler does not try to preempt for it: its preemptionPolicy is Never; "
        "2 nodes fail a filter (Insufficient cpu)."
    )
    (group,) = pod_presenters.rejected_groups(ex)
    assert group.verdict == "preemptionPolicy Never: the pod may not preempt"


def test_no_lower_priority_pods_is_named_as_kube_scheduler_does() -> None:
    ex = _ex(
        rejected_nodes=[
            _rejected(
                "n1",
                CPU,
                CannotHelp.NO_LOWER_PRIORITY_PODS,
                dry_run=["No preemption victims found for incoming pod"],
            ),
            _rejected(
                "n2",
                CPU,
                CannotHelp.NO_LOWER_PRIORITY_PODS,
                dry_run=["No preemption victims found for incoming pod"],
            ),
            _rejected("n3", TAINT, CannotHelp.UNRESOLVABLE, code="UnschedulableAndUnresolvable"),
        ]
    )
    assert pod_presenters.outcome_sentence(ex) == "Cannot be scheduled, and preemption cannot help."
    assert pod_presenters.why_sentence(ex) == (
        "Preemption cannot help on any node. 2 nodes: no lower-priority pods to preempt; "
        f"1 node: unresolvable: evicting pods cannot fix it ({TAINT})."
    )


def test_it_groups_other_nodes_by_reason_largest_first_leaving_out_the_chosen_one() -> None:
    ex = _preempting(
        node="n1",
        rejected_nodes=[
            _rejected("n1", CPU, None),
            _rejected("n2", TAINT, CannotHelp.UNRESOLVABLE),
            _rejected("n3", CPU, None),
            _rejected("n4", CPU, None),
        ],
    )
    groups = pod_presenters.rejected_groups(ex)
    assert [(g.label, g.cannot_help, g.nodes) for g in groups] == [
        (CPU, None, ["n3", "n4"]),
        (TAINT, CannotHelp.UNRESOLVABLE, ["n2"]),
    ]
    assert [g.index for g in groups] == [0, 1]


def test_the_tie_break_marks_the_cell_that_eliminated_each_node() -> None:
    cands = [
        _cand("a", None),
        _cand("b", Criterion.HIGHEST_PRIORITY, highest_victim_priority=20, priority_sum=20),
        _cand("c", Criterion.PDB_VIOLATIONS, pdb_violations=1),
    ]
    rows = pod_presenters.candidate_rows(cands, start=10)
    assert [r.rank for r in rows] == [11, 12, 13]
    assert rows[0].winner and not any(c.eliminator for c in rows[0].cells)
    assert [c.eliminator for c in rows[1].cells] == [False, True, False, False, False]
    assert [c.eliminator for c in rows[2].cells] == [True, False, False, False, False]
    assert [c.value for c in rows[1].cells] == [0, 20, 20, 1, "t1"]


def test_the_criteria_explained_are_the_engines_in_its_order() -> None:
    assert [crit for crit, _ in ENGINE_CRITERIA] == pod_presenters.CRITERION_COLUMNS
    assert pod_presenters.CRITERIA_EXPLAINED[-1] == Criterion.TIE
    assert all(c.rule.endswith(".") and len(c.rule) > 40 for c in pod_presenters.CRITERIA_EXPLAINED)


def test_it_notes_where_the_real_scheduler_would_have_sampled() -> None:
    sampled = _ex(
        preemption=PreemptionSampling(
            potential_nodes=500, evaluated_nodes=500, real_scheduler_would_sample=100
        )
    )
    (note,) = pod_presenters.sampling_notes(sampled)
    assert "only 100 of the 500 nodes" in note
    whole = _ex(
        preemption=PreemptionSampling(
            potential_nodes=50, evaluated_nodes=50, real_scheduler_would_sample=50
        )
    )
    assert pod_presenters.sampling_notes(whole) == []
    # A fit has no sampling note (its host selection is not a note).
    fit = _ex(outcome=Outcome.FITS, node="a", host_selection=HostSelection.SCORED)
    assert pod_presenters.sampling_notes(fit) == []


def test_quantities_read_like_kubectl() -> None:
    assert format_quantity(1500, "cpu") == "1500m"
    assert format_quantity(2000, "cpu") == "2"
    assert format_quantity(15500, "cpu") == "15500m"
    assert format_quantity(2 * 1024**3, "memory") == "2Gi"
    assert format_quantity(1536 * 1024**2, "memory") == "1.5Gi"
    assert format_quantity(12_000, "pods") == "12,000"
    assert (
        pod_presenters.format_requests({"memory": 1024**2, "cpu": 250, "nvidia.com/gpu": 1})
        == "cpu 250m, memory 1Mi, nvidia.com/gpu 1"
    )


def _view(node: str, before: dict[str, int], pod: dict[str, int]) -> NodeResources:
    return NodeResources(
        node=node,
        allocatable={"cpu": 4000, "memory": 8 * 1024**3},
        requested_before=before,
        requested_after={},
        pod_count_before=3,
        pod_count_after=3,
        pod_requests=pod,
    )


def test_the_picture_highlights_victims_before_and_places_the_pod_after() -> None:
    view = _view(
        "node-5", {"cpu": 3500, "memory": 6 * 1024**3}, {"cpu": 1000, "memory": 2 * 1024**3}
    )
    victims = [
        VictimDetail(
            key="default/blue-1",
            namespace="default",
            name="blue-1",
            priority=1,
            requests={"cpu": 1000, "memory": 2 * 1024**3},
        )
    ]
    svg = str(pod_presenters.capacity_svg(view, victims, outcome=Outcome.PREEMPTS))
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    # Legend plus one segment per resource: victims on the "before" bar, the pod on "after".
    assert svg.count('class="seg-victim"') == 3
    assert svg.count('class="seg-pod"') == 3
    assert "<title>default/blue-1: 1</title>" in svg
    assert "<title>default/blue-1: 2Gi</title>" in svg
    assert "<title>pending pod: 1</title>" in svg
    assert "3500m / 4" in svg and "2.5 / 4" not in svg
    assert "1 victim evicted" in svg
    assert pod_presenters.capacity_svg(None, [], outcome=Outcome.FITS) == ""


def test_the_picture_of_a_fit_has_no_victims_legend() -> None:
    view = _view("node-5", {"cpu": 500}, {"cpu": 1000})
    svg = str(pod_presenters.capacity_svg(view, [], outcome=Outcome.FITS))
    assert "victims" not in svg and 'class="seg-victim"' not in svg


def test_the_picture_escapes_names() -> None:
    view = _view("<n>", {"cpu": 500}, {"cpu": 500})
    victims = [
        VictimDetail(
            key="a/<script>", namespace="a", name="<script>", priority=1, requests={"cpu": 500}
        )
    ]
    svg = str(pod_presenters.capacity_svg(view, victims, outcome=Outcome.PREEMPTS))
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_input_notices_say_what_was_dropped() -> None:
    from scheduling.engine import InputEffect, InputNotice

    ex = _ex(
        input_notices=[
            InputNotice(
                field="spec.nodeName", value="node-1", effect=InputEffect.IGNORED, why="because"
            )
        ]
    )
    assert pod_presenters.input_notices(ex) == ["spec.nodeName (node-1) was ignored: because."]


def test_it_notes_where_the_real_filter_phase_would_have_stopped() -> None:
    from scheduling.engine import FilterSampling

    fit = _ex(
        outcome=Outcome.FITS,
        node="a",
        host_selection=HostSelection.SCORED,
        filter_sampling=FilterSampling(nodes_evaluated=1000, feasible_nodes=900, nodes_to_find=420),
    )
    (note,) = pod_presenters.sampling_notes(fit)
    assert "stopped filtering after finding 420 feasible nodes of the 1,000" in note
    assert "scored all 900 feasible nodes" in note
    few = _ex(
        outcome=Outcome.FITS,
        node="a",
        host_selection=HostSelection.SCORED,
        filter_sampling=FilterSampling(nodes_evaluated=50, feasible_nodes=50, nodes_to_find=50),
    )
    assert pod_presenters.sampling_notes(few) == []


def test_a_daemonset_victim_is_said_to_come_back_on_the_same_full_node() -> None:
    from clusters.demo import demo_cat3_pod, demo_objects
    from scheduling.engine import analyze

    objects = demo_objects()
    items = objects["items"]
    ex = analyze(objects, demo_cat3_pod()).explanation
    (victim,) = ex.victim_details
    assert pod_presenters.daemon_notes(ex) == []  # a ReplicaSet's pod goes elsewhere
    for obj in items:  # the same victim, owned by a DaemonSet
        if obj.get("kind") == "Pod" and obj["metadata"]["name"] == victim.name:
            obj["metadata"]["ownerReferences"] = [
                {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "log-agent", "uid": "u"}
            ]
    ex = analyze(objects, demo_cat3_pod()).explanation
    (note,) = pod_presenters.daemon_notes(ex)
    assert note.startswith(f"{victim.key} belongs to DaemonSet/log-agent")
    assert f"for {ex.node} itself" in note and "stays pending" in note


def test_does_not_fit_even_without_the_lower_priority_pods_gives_the_numbers() -> None:
    """The words alone left the user guessing by how much the pod misses."""
    from scheduling.engine import analyze
    from scheduling.engine.explanation import CannotHelp
    from tests.engine.builders import as_list, make_node, make_pod

    snapshot = as_list(
        make_node("worker-a").capacity(cpu="4", memory="8Gi", pods="110").obj(),
        make_pod("keeps").priority(100).req(cpu="3").node("worker-a").obj(),
        make_pod("goes").priority(0).req(cpu="500m").node("worker-a").obj(),
    )
    ex = analyze(snapshot, make_pod("wants").priority(50).req(cpu="2").obj()).explanation
    (verdict,) = ex.rejected_nodes
    assert verdict.cannot_help == CannotHelp.DOES_NOT_FIT
    assert verdict.shortfall == {"cpu": [2000, 1000]}
    (group,) = pod_presenters.rejected_groups(ex)
    assert group.verdict == (
        "does not fit even with every lower-priority pod gone "
        "(cpu: it requests 2, at most 1 is free)"
    )


def test_several_daemonset_victims_are_said_in_one_note() -> None:
    from scheduling.engine.explanation import VictimDetail

    victims = [
        VictimDetail(
            key=f"ds/{n}-x", namespace="ds", name=f"{n}-x", priority=0, owner=f"DaemonSet/{n}"
        )
        for n in ("sdn", "dns", "tuned")
    ] + [
        VictimDetail(
            key="ds/web-1", namespace="ds", name="web-1", priority=0, owner="ReplicaSet/web"
        )
    ]
    ex = _ex(outcome=Outcome.PREEMPTS, node="worker-1", victim_details=victims)
    (note,) = pod_presenters.victim_notes(ex)
    assert note.startswith("3 victims belong to DaemonSets (sdn, dns and tuned)")
    assert "again for worker-1 itself" in note


def test_the_victims_grace_period_is_said_with_the_longest_one() -> None:
    from clusters.demo import demo_cat3_pod, demo_objects
    from scheduling.engine import analyze

    objects = demo_objects()
    ex = analyze(objects, demo_cat3_pod()).explanation
    (victim,) = ex.victim_details
    assert victim.grace_seconds == 30  # unset in the demo: the API server's default
    assert pod_presenters.grace_note(ex).startswith("The victims take up to 30 s to go")
    for obj in objects["items"]:
        if obj.get("kind") == "Pod" and obj["metadata"]["name"] == victim.name:
            obj["spec"]["terminationGracePeriodSeconds"] = 125
    ex = analyze(objects, demo_cat3_pod()).explanation
    note = pod_presenters.grace_note(ex)
    assert "up to 2 min 5 s" in note and f"{victim.key}: terminationGracePeriodSeconds 125" in note
    assert "may take the room first" in note
    for obj in objects["items"]:
        if obj.get("kind") == "Pod" and obj["metadata"]["name"] == victim.name:
            obj["spec"]["terminationGracePeriodSeconds"] = 0
    assert pod_presenters.grace_note(analyze(objects, demo_cat3_pod()).explanation) == ""


def test_equally_important_victims_started_in_one_second_are_said_to_be_ordered() -> None:
    from scheduling.engine.explanation import VictimDetail

    same = "2021-08-03T09:26:03Z"
    ex = _ex(outcome=Outcome.PREEMPTS, node="a")
    ex.victim_details = [
        VictimDetail(key=f"ns/p{i}", namespace="ns", name=f"p{i}", priority=100, start_time=same)
        for i in range(3)
    ]
    note = pod_presenters.equal_victims_note(ex)
    assert note.startswith("3 victims have priority 100 and started in the same second")
    assert "sort.Slice" in note
    ex.victim_details[0].start_time = "2021-08-03T09:26:04Z"
    ex.victim_details[1].priority = 90
    assert pod_presenters.equal_victims_note(ex) == ""
