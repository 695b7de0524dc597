"""What the take-nodes-away page and reports make of an answer in the DESIGN.md shape:
the picture's rows, the counts line, the advice that applies, the gates, the pages."""

from __future__ import annotations

from typing import Any

from scheduling.presenters.take_nodes_away import (
    BLOCKS_PER_ROW,
    NodesAway,
    advice_lines,
    counts_line,
    node_rows,
    picture,
)
from scheduling.reports import take_nodes_away as reports
from scheduling.views.contexts import nodes_away_context


def _answer(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": "take-nodes-away",
        "how": "drain",
        "verdict": "completes",
        "sentence": "Draining node-1 completes.",
        "nodes": [
            {
                "node": "node-1",
                "evicted": ["default/web-a", "default/web-b"],
                "deleted": ["default/bare"],
                "left": ["kube-system/agent"],
                "blocked": [],
                "stopped_at": None,
            }
        ],
        "returning": [
            {"pod": "default/web-x", "replaces": "default/web-a", "node": "node-2", "reason": None},
            {"pod": "default/web-y", "replaces": "default/web-b", "node": "node-2", "reason": None},
        ],
        "preemptions": [
            {
                "preemptor": "default/web-y",
                "node": "node-2",
                "victims": ["default/low-2000"],
                "candidates": [
                    {"node": "node-2", "victims": ["default/low-2000"], "eliminated_by": None},
                    {"node": "node-3", "victims": ["default/low-3000"], "eliminated_by": "tie"},
                ],
            }
        ],
        "pdbs_exceeded": [],
        "pending": [],
    }
    return base | over


def test_the_picture_has_a_row_per_node_taken_then_per_node_receiving() -> None:
    a = NodesAway.from_dict(_answer())
    rows = node_rows(a)
    assert [(r.node, r.taken) for r in rows] == [("node-1", True), ("node-2", False)]
    assert [b.kind for b in rows[0].leaving] == ["evicted", "evicted", "deleted", "left"]
    assert [b.pod for b in rows[1].arriving] == ["default/web-x", "default/web-y"]
    assert [b.pod for b in rows[1].leaving] == ["default/low-2000"]
    html = str(picture(a, max_nodes=40))
    assert html.count('class="pod-block evicted"') == 2
    assert html.count('class="pod-block preempted"') == 1


def test_a_long_row_draws_its_first_blocks_and_counts_the_rest() -> None:
    evicted = [f"default/web-{i}" for i in range(BLOCKS_PER_ROW + 7)]
    answer = _answer(
        nodes=[{"node": "node-1", "evicted": evicted, "deleted": [], "left": [], "blocked": []}],
        returning=[],
        preemptions=[],
    )
    html = str(picture(NodesAway.from_dict(answer), max_nodes=40))
    assert html.count('class="pod-block evicted"') == BLOCKS_PER_ROW
    assert '<span class="more">+7</span>' in html


def test_counts_and_the_advice_that_applies() -> None:
    a = NodesAway.from_dict(_answer())
    assert counts_line(a) == (
        "1 node drained · 2 evicted, 1 deleted, 1 left · 2 of 2 returning pods placed · "
        "0 pending · 1 preemption"
    )
    lines = advice_lines(a, like="node-9")
    assert lines[0].startswith("Add nodes like node-9 before taking these away")
    assert lines[1].startswith("Protect the pods preempted")
    blocked = NodesAway.from_dict(
        _answer(
            verdict="blocked",
            nodes=[
                {
                    "node": "node-1",
                    "evicted": [],
                    "blocked": [{"pod": "default/web-b", "pdb": "default/web-pdb"}],
                }
            ],
            returning=[],
            preemptions=[],
        )
    )
    assert advice_lines(blocked)[0].startswith(
        "Blocked by default/web-pdb: it allows no eviction until another of its pods runs"
    )
    assert advice_lines(a)[0].startswith("Add nodes like node-1 before taking these away")


def test_the_gates_on_the_typed_answer() -> None:
    a = NodesAway.from_dict(_answer())
    assert reports.fail_on_blocked().failure(a) is None
    assert reports.fail_on_pending().failure(a) is None
    assert reports.fail_on_preempt().failure(a) == (
        "--fail-on-preempt: the returning pods would preempt 1 pod: default/low-2000"
    )
    classes = {"default/low-2000": "low"}
    assert reports.protect(["high"], classes).failure(a) is None
    assert "protected class low" in (reports.protect(["low"], classes).failure(a) or "")
    stopped = NodesAway.from_dict(
        _answer(verdict="stopped", nodes=[{"node": "node-1", "stopped_at": "default/bare"}])
    )
    assert reports.fail_on_blocked().failure(stopped) == (
        "--fail-on-blocked: the drain stops at default/bare (no controller; --force deletes it)"
    )


def test_the_page_lists_fifty_returning_pods_a_page_and_the_tie_break() -> None:
    returning = [
        {"pod": f"default/r-{i}", "replaces": f"default/p-{i}", "node": None, "reason": "0/3"}
        for i in range(120)
    ]
    ctx = nodes_away_context(_answer(returning=returning), returning_page="3")
    page = ctx["returning_page"]
    assert page.number == 3 and len(page.object_list) == 20 and page.paginator.num_pages == 3
    ((preemption, rows),) = ctx["preemptions_page"].object_list
    assert preemption.victims == ("default/low-2000",)
    assert [(r.node, r.winner) for r in rows] == [("node-2", True), ("node-3", False)]
    assert rows[1].eliminated_by == "tie"


def test_a_tie_the_engine_broke_by_name_is_said() -> None:
    answer = _answer()
    answer["preemptions"][0] = {
        "preemptor": "default/web-y",
        "node": "node-2",
        "victims": ["default/low-2000"],
        "tied_nodes": ["node-2", "node-3"],
        "tie_break": "by node name",
        "cycle": 4,
        "pdb_violations": 0,
    }
    (p,) = NodesAway.from_dict(answer).preemptions
    assert p.candidates == () and p.cycle == 4
    assert p.tie_sentence.startswith("node-2 tied with node-3 on every criterion")
    assert "    node-2 tied with node-3" in reports.render_text(NodesAway.from_dict(answer))
