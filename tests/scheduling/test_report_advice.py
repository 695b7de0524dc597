"""The advice's text and Markdown: what a reviewer reads, and names from files that
cannot break out of it."""

from __future__ import annotations

from scheduling.engine.advice import (
    AddNodes,
    Advice,
    AdviceItem,
    AdviceKind,
    Answer,
    CreateObjects,
    Proof,
    StepLess,
)
from scheduling.reports.advice import render_advice_markdown, render_advice_text

BASE = Answer(outcome="preempts", node="n1", victims=("ns/a",), pdbs_exceeded=())


def _item(
    kind: AdviceKind, change: object, summary: str, victims: tuple[str, ...] = ()
) -> AdviceItem:
    return AdviceItem(
        kind=kind,
        change=change,  # type: ignore[arg-type]
        outcome="fits" if not victims else "preempts",
        node="n2",
        victims=victims,
        pdbs_exceeded=(),
        proof=Proof(2, 0.1, StepLess(None, "preempts", ("ns/a",))),
        summary=summary,
    )


def test_the_gate_sentence_names_each_change_that_evicts_no_one() -> None:
    advice = Advice(
        items=(
            _item(AdviceKind.ADD_NODES, AddNodes(1, "worker-a"), "add 1 node like worker-a"),
            _item(
                AdviceKind.PROTECT,
                CreateObjects(({"kind": "PodDisruptionBudget"},)),
                "create a budget",
                ("ns/b",),
            ),
        ),
        baseline=BASE,
    )
    md = render_advice_markdown(advice, gate_failed=True)
    assert "To pass the gate, add 1 node like worker-a.\n" in md
    assert (
        "To run everything without evicting anyone, add 1 node like worker-a."
        in render_advice_markdown(advice, gate_failed=False)
    )
    text = render_advice_text(advice)
    assert "  - add 1 node like worker-a: fits on n2, evicts no one\n" in text
    assert "    proven in 2 runs; as asked: preempts, evicts 1 pod\n" in text


def test_a_label_with_backticks_stays_inside_its_fence() -> None:
    budget = {"metadata": {"name": "x"}, "spec": {"selector": {"matchLabels": {"a": "````\n# hi"}}}}
    advice = Advice(
        items=(_item(AdviceKind.PROTECT, CreateObjects((budget,)), "create a budget"),),
        baseline=BASE,
    )
    md = render_advice_markdown(advice, gate_failed=False)
    assert "  `````yaml" in md and md.rstrip().endswith("`````")
    assert "\n# hi" not in md


def test_nothing_to_avoid_says_so() -> None:
    calm = Answer(outcome="fits", node="n1", victims=(), pdbs_exceeded=())
    assert render_advice_markdown(Advice(items=(), baseline=calm), gate_failed=False) == ""
    assert render_advice_text(Advice(items=(), baseline=calm)).startswith(
        "How to avoid it: nothing to avoid"
    )


def test_the_headline_matches_a_rollout_that_leaves_replicas_pending() -> None:
    # 2 of 4 replicas stay pending and no one is evicted: the lead is about running
    # them all, and a class that waits is not listed as a way to do it.
    pending = Answer(
        outcome="some-run",
        node="n1",
        victims=(),
        pdbs_exceeded=(),
        pending=("ns/web-3", "ns/web-4"),
    )
    smaller = _item(AdviceKind.SMALLER_REQUEST, None, "request at most 790m cpu")
    smaller = AdviceItem(**{**smaller.__dict__, "outcome": "all-run"})
    wait = _item(
        AdviceKind.WAIT_INSTEAD, None, "use PriorityClass low-waiting (10, Never) and wait"
    )
    wait = AdviceItem(**{**wait.__dict__, "outcome": "some-run"})
    advice = Advice(items=(smaller, wait), baseline=pending)
    md = render_advice_markdown(advice, gate_failed=False)
    assert "To run every pod, request at most 790m cpu.\n" in md
    assert "To evict no one" not in md
    assert md.index("**Everything runs:**") < md.index("**The pod waits instead:**")
    assert md.index("**The pod waits instead:**") < md.index("use PriorityClass low-waiting")
    text = render_advice_text(advice)
    assert "  The pod waits instead:\n  - use PriorityClass low-waiting" in text
