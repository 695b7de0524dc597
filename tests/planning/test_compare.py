"""The comparison on hand-written answers: each expected sentence, list and count below
was worked out by hand from the two answers it compares."""

from __future__ import annotations

from typing import Any

from planning.compare import OwnerCount, broken_budgets, compare, pod_answer, workload_answer
from tests.planning.builders import pod_result, victim, workload_run


def test_more_victims_on_another_node_are_named_with_the_nodes() -> None:
    a = pod_answer(pod_result("preempts", "node-2", ["default/green-0"]))
    b = pod_answer(
        pod_result("preempts", "node-4", ["default/purple-1", "default/green-0", "default/blue-3"])
    )
    c = compare(a, b)
    assert c.sentence == (
        "B preempts 2 more pods than A: default/blue-3 and default/purple-1, "
        "on node-4 instead of node-2."
    )
    assert not c.same
    # Sorted, whatever order the result listed them in.
    assert c.victims_added == ("default/blue-3", "default/purple-1")
    assert c.victims_removed == ()
    assert c.victims_kept == ("default/green-0",)
    assert b.victims == ("default/blue-3", "default/green-0", "default/purple-1")


def test_the_same_answer_says_so() -> None:
    a = pod_answer(pod_result("fits", "node-3"), analysis=1)
    b = pod_answer(pod_result("fits", "node-3", priority_class="cat-2"), analysis=2)
    c = compare(a, b)
    assert c.same
    assert c.sentence == "Both fit on node-3: same answer."


def test_different_outcomes_are_said_side_by_side() -> None:
    a = pod_answer(pod_result("preempts", "node-2", ["default/blue-1"]))
    b = pod_answer(pod_result("unschedulable", priority_class="cat-1"))
    c = compare(a, b)
    assert c.sentence == "A preempts 1 pod on node-2; B is unschedulable."
    assert c.victims_removed == ("default/blue-1",)
    assert (a.placed, b.placed) == (1, 0)
    # An unschedulable pod is on no node, even if a node was named.
    assert b.nodes == ()


def test_fewer_victims_say_whom_b_spares() -> None:
    a = pod_answer(pod_result("preempts", "node-1", ["default/a-1", "default/b-1"]))
    b = pod_answer(pod_result("preempts", "node-1", ["default/b-1"]))
    assert compare(a, b).sentence == "B preempts 1 fewer pod than A: it spares default/a-1."


def test_as_many_other_victims() -> None:
    a = pod_answer(pod_result("preempts", "node-1", ["default/a-1"]))
    b = pod_answer(pod_result("preempts", "node-1", ["default/b-1"]))
    c = compare(a, b)
    assert c.sentence == "B preempts other pods than A: default/b-1 instead of default/a-1."


def test_the_same_fit_on_two_nodes() -> None:
    c = compare(pod_answer(pod_result("fits", "node-3")), pod_answer(pod_result("fits", "node-1")))
    assert c.sentence == "Both fit, A on node-3 and B on node-1."


def test_a_long_list_is_cut_in_the_sentence_only() -> None:
    many = [f"default/p-{i}" for i in range(6)]
    c = compare(
        pod_answer(pod_result("preempts", "n", [])),
        pod_answer(pod_result("preempts", "n", many)),
    )
    assert c.sentence == (
        "B preempts 6 more pods than A: default/p-0, default/p-1, default/p-2 and 3 more."
    )
    assert len(c.victims_added) == 6


def test_budgets_are_broken_when_more_pods_go_than_they_allow() -> None:
    victims = [
        victim("default/blue-1", "ReplicaSet/blue", {"default/blue-pdb": 1}),
        victim("default/blue-2", "ReplicaSet/blue", {"default/blue-pdb": 1}),
        victim("default/red-1", "ReplicaSet/red", {"default/red-pdb": 2}),
        # An analysis stored before allowances were kept: its violating victim says so.
        victim("default/old-1", None, {"default/old-pdb": None}, violates_pdb=True),
        victim("default/old-2", None, {"default/calm-pdb": None}),
    ]
    assert broken_budgets(victims) == ("default/blue-pdb", "default/old-pdb")


def test_a_pod_answer_reads_owners_and_budgets_from_its_victims() -> None:
    keys = ["default/blue-1", "default/blue-2", "default/debug"]
    details = [
        victim("default/blue-1", "ReplicaSet/blue", {"default/blue-pdb": 1}),
        victim("default/blue-2", "ReplicaSet/blue", {"default/blue-pdb": 1}),
        victim("default/debug"),
    ]
    a = pod_answer(pod_result("preempts", "node-1", keys, pdb_violations=1), details)
    assert a.pdbs == ("default/blue-pdb",)
    assert a.pdb_violations == 1
    assert a.owners == {
        "Pod default/debug": OwnerCount(running=None, change=-1),
        "ReplicaSet default/blue": OwnerCount(running=None, change=-2),
    }
    b = pod_answer(pod_result("preempts", "node-1", keys[:1]), details[:1])
    c = compare(a, b)
    assert c.sentence == (
        "B preempts 2 fewer pods than A: it spares default/blue-2 and default/debug; "
        "PDBs broken: default/blue-pdb in A, none in B."
    )
    assert c.pdbs_removed == ("default/blue-pdb",) and c.pdbs_added == ()


def test_a_workload_counts_its_replicas_and_its_victims_owners() -> None:
    run = workload_run(
        bound={"default/web-1": "node-1", "default/web-2": "node-2", "default/web-3": None},
        victims=[("default/blue-x", "ReplicaSet/blue", "node-1")],
        owners=[("ReplicaSet/blue", 4, 3)],
        pdb_report=[
            {
                "pdb": "default/blue-pdb",
                "disruptions_allowed": 0,
                "deleted_matching_victims": ["default/blue-x"],
                "exceeded": True,
                "cycles_beyond_budget": [],
            }
        ],
    )
    w = workload_answer(run, analysis=7, snapshot_id=3, snapshot="today")
    assert (w.kind, w.outcome, w.placed, w.asked) == ("workload", "some-run", 2, 3)
    assert w.nodes == ("node-1", "node-2")
    assert w.pod == "Deployment default/web"
    assert (w.pdbs, w.pdb_violations) == (("default/blue-pdb",), 1)
    assert w.owners == {
        "Deployment default/web": OwnerCount(running=2, change=2),
        "ReplicaSet default/blue": OwnerCount(running=3, change=-1),
    }
    d = w.to_dict()
    assert d["snapshot"] == {"id": 3, "name": "today"} and d["analysis"] == 7


def test_with_and_without_the_cascade() -> None:
    common = {
        "bound": {"default/web-1": "node-1"},
        "victims": [("default/blue-x", "ReplicaSet/blue", "node-1")],
    }
    without = workload_answer(workload_run(**common, owners=[("ReplicaSet/blue", 4, 3)]))
    # The recreated victim runs again elsewhere: its owner is whole again.
    cascade = workload_answer(
        workload_run(
            **common,
            owners=[("ReplicaSet/blue", 4, 4)],
            recreated=[("default/blue-x", "default/blue-y", "ReplicaSet/blue", "node-2")],
        )
    )
    assert (cascade.recreated, cascade.recreated_running) == (1, 1)
    assert without.recreated is None
    c = compare(without, cascade)
    assert not c.same
    assert c.sentence == (
        "Both run their replica on node-1, preempting 1 pod; the owners end differently: "
        "ReplicaSet default/blue 3 running in A, 4 running in B."
    )
    # The recreated pod is not one of the workload's replicas.
    assert cascade.asked == 1


def test_recreated_victims_left_pending_change_nothing_but_are_said() -> None:
    common = {
        "bound": {"default/web-1": "node-1"},
        "victims": [("default/blue-x", "ReplicaSet/blue", "node-1")],
        "owners": [("ReplicaSet/blue", 4, 3)],
    }
    cascade = workload_run(
        **common, recreated=[("default/blue-x", "default/blue-y", "ReplicaSet/blue", None)]
    )
    c = compare(workload_answer(workload_run(**common)), workload_answer(cascade))
    assert c.same
    assert c.sentence == (
        "Both run their replica on node-1, preempting 1 pod: same answer, "
        "though B recreates 1 victim (0 of them running again)."
    )


def test_a_pod_against_a_workload() -> None:
    a = pod_answer(
        pod_result("preempts", "node-2", ["default/blue-x"]),
        [victim("default/blue-x", "ReplicaSet/blue")],
    )
    b = workload_answer(
        workload_run(
            bound={"default/web-1": "node-1", "default/web-2": None},
            victims=[("default/blue-x", "ReplicaSet/blue", "node-1")],
            owners=[("ReplicaSet/blue", 4, 3)],
        )
    )
    c = compare(a, b)
    assert c.sentence == (
        "A preempts 1 pod on node-2; B runs 1 of 2 replicas on node-1, preempting 1 pod."
    )
    assert c.victims_kept == ("default/blue-x",)
    rows = {r.owner: (r.a, r.b) for r in c.owners}
    assert rows["ReplicaSet default/blue"] == (
        OwnerCount(running=None, change=-1),
        OwnerCount(running=3, change=-1),
    )
    # A single pod has no replicas of an owner: the workload's own row is B's only.
    assert rows["Deployment default/web"] == (None, OwnerCount(running=1, change=1))


def test_to_dict_is_plain_json() -> None:
    c = compare(
        pod_answer(pod_result("fits", "node-3")),
        pod_answer(pod_result("preempts", "node-4", ["default/z", "default/a"])),
    )
    d = c.to_dict()
    assert d["victims_added"] == ["default/a", "default/z"]
    assert d["a"]["outcome"] == "fits" and d["b"]["node"] == "node-4"
    assert d["owners"][0] == {
        "owner": "Pod default/a",
        "a": None,
        "b": {"running": None, "change": -1},
    }
    assert d["sentence"] == "A fits on node-3; B preempts 2 pods on node-4."


def tied(outcome: str, nodes: list[str], victims: list[str] | None = None) -> dict[str, Any]:
    """A pod's result whose node is the first by name of ``nodes``, all tied."""
    return pod_result(outcome, nodes[0], victims) | {"tied_nodes": nodes}


def test_a_tie_is_said_whole() -> None:
    a = pod_answer(pod_result("unschedulable"))
    b = pod_answer(tied("fits", ["node-1", "node-2"]))
    assert b.tied == ("node-1", "node-2")
    assert compare(a, b).sentence == (
        "A is unschedulable; B fits on node-1 or node-2 (tied; kube-scheduler picks one at random)."
    )
    assert compare(b, b).sentence == (
        "Both fit on node-1 or node-2 (tied; kube-scheduler picks one at random): same answer."
    )
    # A node chosen without a tie (its tied_nodes the node alone) has no tie set.
    assert pod_answer(pod_result("fits", "node-1") | {"tied_nodes": ["node-1"]}).tied == ()


def test_overlapping_ties_are_not_a_move() -> None:
    # The real scheduler may put A on node-2, as B is.
    a = pod_answer(tied("fits", ["node-1", "node-2"]))
    b = pod_answer(pod_result("fits", "node-2"))
    c = compare(a, b)
    assert not c.same
    assert c.sentence == (
        "Both fit, A on node-1 or node-2 (tied; kube-scheduler picks one at random) and B on "
        "node-2: both may land on node-2."
    )
    assert "instead of" not in compare(b, a).sentence
    # Preempting on two tied nodes: more victims, no "on node-2 instead of node-1".
    a = pod_answer(tied("preempts", ["node-1", "node-2"], ["default/a-1"]))
    b = pod_answer(tied("preempts", ["node-2", "node-3"], ["default/b-1", "default/b-2"]))
    assert compare(a, b).sentence == (
        "B preempts 1 more pod than A: default/b-1 and default/b-2 instead of default/a-1."
    )


def test_ties_that_share_no_node_are_a_move() -> None:
    a = pod_answer(tied("preempts", ["node-1", "node-2"], ["default/a-1"]))
    b = pod_answer(pod_result("preempts", "node-3", ["default/a-1", "default/b-1"]))
    assert compare(a, b).sentence == (
        "B preempts 1 more pod than A: default/b-1, on node-3 instead of node-1 or node-2 "
        "(tied; kube-scheduler picks one at random)."
    )
