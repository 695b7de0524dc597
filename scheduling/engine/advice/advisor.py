"""Advice: the smallest single changes that stop a what-if from hurting, each proven by
running the engine again (DESIGN.md, flow 9 and "Advice contract").

For a pod or workload what-if whose answer evicts, exceeds a PodDisruptionBudget or
leaves replicas pending, :func:`advise` tries one kind of change at a time, each applied
to the same question and answered again through the analyses' own entry points
(``analyze``; ``simulate`` for a workload). A kind's module proposes; ``search`` (pure,
tested alone) finds the least change within the kind's granularity and checks the run of
one step less explicitly. Imports nothing of Django.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..cluster import Cluster
from ..profile.profile_map import SchedulerConfigInput
from .kinds.registry import KINDS
from .question import Asked, Question
from .result import (
    Achieves,
    Advice,
    AdviceItem,
    AdviceKind,
    KindSearch,
    Note,
    achieves,
)
from .search import Budget

# At most this many engine re-runs per kind.
MAX_RUNS_PER_KIND = 20


def advise(
    cluster: Cluster,
    question: Question,
    *,
    priority_classes: Sequence[Mapping[str, Any]] = (),
    scheduler_config: SchedulerConfigInput | None = None,
    kinds: Iterable[AdviceKind] = tuple(AdviceKind),
    max_runs_per_kind: int = MAX_RUNS_PER_KIND,
    budget_seconds: float | None = None,
    on_run: Callable[[int], None] | None = None,
) -> Advice:
    """The advice for ``question`` on ``cluster``: proven single changes, most useful
    first; ``Advice.items`` is empty when the answer evicts no one, exceeds no budget
    and leaves nothing pending.

    ``cluster``: a loaded Cluster (never changed; add-nodes runs on a copy).
    ``question``: a :class:`PodQuestion` (the pod as submitted, its preemption
    arguments) or a :class:`WorkloadQuestion` (the submitted objects, recreate_victims,
    timeline). ``priority_classes`` and ``scheduler_config`` as for ``analyze`` and
    ``simulate``: the what-if's own classes and the scheduler configuration it ran
    under. ``kinds``: the kinds to search (all by default). Each kind makes at most
    ``max_runs_per_kind`` engine runs; ``budget_seconds`` bounds the whole advice (a
    kind whose search it stops says so in ``Advice.searches``; what was proven before
    is kept). ``on_run(n)`` is called before each engine run, n counting from 1 (a
    caller's watch: it may raise to stop the work).

    Raises InvalidInput where the question itself is invalid (as analyze does)."""
    started = time.perf_counter()
    asked = Asked(
        cluster=cluster,
        question=question,
        priority_classes=priority_classes,
        scheduler_config=scheduler_config,
    )
    budget = Budget(
        deadline=None if budget_seconds is None else started + budget_seconds,
        max_runs=max_runs_per_kind,
        on_run=on_run,
    )
    budget.question_run()
    base = asked.run(asked.objects())
    items: list[AdviceItem] = []
    notes: list[Note] = []
    searches: list[KindSearch] = []
    if base.answer.hurts:
        wanted = set(kinds)
        for kind, search in KINDS:
            if kind not in wanted:
                continue
            found = search(asked, base, budget.for_kind())
            items.extend(found.items)
            notes.extend(found.notes)
            if found.search is not None:
                searches.append(found.search)
    return Advice(
        items=tuple(sorted(items, key=usefulness)),
        baseline=base.answer,
        notes=tuple(notes),
        searches=tuple(searches),
        seconds=time.perf_counter() - started,
    )


def usefulness(item: AdviceItem) -> tuple[int, int, int]:
    """Most useful first: by what the change achieves (everything runs, no one evicted,
    the pod waits, fewer evictions), then fewer victims, then the kinds' own order (a
    stable sort keeps each kind's order)."""
    return (
        list(Achieves).index(achieves(item)),
        len(item.victims),
        list(AdviceKind).index(item.kind),
    )
