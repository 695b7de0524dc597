"""What the kinds share: where a submitted object keeps its pod spec, which objects
hurt, a change proven into an item, and a kind's search wrapped in its budget."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import InvalidInput
from ..patch import diff
from ..question import Asked, Run
from ..result import (
    AdviceItem,
    AdviceKind,
    Change,
    KindSearch,
    Note,
    ObjectPatch,
    Proof,
    StepLess,
)
from ..search import KindBudget, OutOfRuns


@dataclass
class KindAdvice:
    """What one kind's search found: its items, its notes, and what it cost."""

    items: list[AdviceItem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    search: KindSearch | None = None


FITS = "fits"
ALL_RUN = "all-run"


def runs_clean(run: Run | None) -> bool:
    """The pod (every replica) runs and no one is evicted."""
    if run is None:
        return False
    a = run.answer
    return a.outcome in (FITS, ALL_RUN) and not a.victims and not a.pending


def spec_path(obj: Mapping[str, Any]) -> tuple[str, ...]:
    """Where a submitted object keeps the spec of the pods it makes."""
    return ("spec",) if obj.get("kind", "Pod") == "Pod" else ("spec", "template", "spec")


def pod_spec(obj: dict[str, Any]) -> dict[str, Any]:
    """The object's pod spec, to change in place (on a copy)."""
    node: dict[str, Any] = obj
    for key in spec_path(obj):
        node = node.setdefault(key, {})
    return node


def object_patch(asked: Asked, index: int, edit: Callable[[dict[str, Any]], None]) -> ObjectPatch:
    """The patch that ``edit`` (changing a copy of the index-th object) amounts to."""
    before = asked.objects()[index]
    after = copy.deepcopy(before)
    edit(after)
    return ObjectPatch(index, tuple(diff(before, after)))


def hurting_objects(asked: Asked, base: Run) -> list[int]:
    """The submitted objects whose pods preempted or were left pending (0 for a pod)."""
    if asked.is_pod:
        return [0]
    sim = base.simulation
    assert sim is not None
    hurt = {c.pod for c in sim.cycles if c.victims} | set(base.answer.pending)
    workload = asked.expand(asked.objects())
    return [i for i, o in enumerate(workload.objects) if hurt & set(o.pod_keys)]


def answer_or_none(asked: Asked, change: Change | None) -> Run | None:
    """The question with ``change`` answered again; None when the change makes it
    invalid (the API server would refuse it)."""
    try:
        return asked.answer(change)
    except InvalidInput:
        return None


def try_run(asked: Asked, change: Change | None, budget: KindBudget) -> Run | None:
    """One run within the kind's budget (see answer_or_none)."""
    budget.spend()
    return answer_or_none(asked, change)


def step_less(change: Change | None, run: Run | None) -> StepLess:
    if run is None:
        return StepLess(change=change, outcome="invalid", victims=())
    return StepLess(change=change, outcome=run.answer.outcome, victims=run.answer.victims)


class Searching:
    """A kind's search: its items and notes, its runs counted, and, when the budget
    stops it, what it proved so far kept with the reason it stopped."""

    def __init__(self, kind: AdviceKind, budget: KindBudget) -> None:
        self.kind = kind
        self.budget = budget
        self.found = KindAdvice()
        self.stopped = ""
        self._mark = (time.perf_counter(), 0)

    def __enter__(self) -> Searching:
        return self

    def __exit__(self, kind: Any, error: Any, tb: Any) -> bool:
        if isinstance(error, OutOfRuns):
            self.stopped = error.why
        self.found.search = KindSearch(
            self.kind, self.budget.runs, self.budget.seconds, self.stopped
        )
        return isinstance(error, OutOfRuns)

    def mark(self) -> None:
        """Where the next item's proof starts counting."""
        self._mark = (time.perf_counter(), self.budget.runs)

    def add(
        self,
        change: Change,
        run: Run | None,
        *,
        less: StepLess | None,
        summary: str,
        detail: str = "",
    ) -> None:
        """An item: the change, what its run answered, and its proof since ``mark``."""
        assert run is not None, "an item is a change that ran"
        started, runs_before = self._mark
        a = run.answer
        self.found.items.append(
            AdviceItem(
                kind=self.kind,
                change=change,
                outcome=a.outcome,
                node=a.node,
                victims=a.victims,
                pdbs_exceeded=a.pdbs_exceeded,
                proof=Proof(
                    runs=self.budget.runs - runs_before,
                    seconds=time.perf_counter() - started,
                    one_step_less=less,
                ),
                summary=summary,
                detail=detail,
            )
        )
        self.mark()


def each_container(spec: Mapping[str, Any]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    for part in ("initContainers", "containers"):
        for i, c in enumerate(spec.get(part) or []):
            yield part, i, c
