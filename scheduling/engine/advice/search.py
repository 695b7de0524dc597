"""The search loop, pure: no engine, no cluster; ``ok(step)`` is the caller's run.

Where a kind's outcome is monotone in its step (a smaller request never fits worse, one
node more never evicts more), ``least_passing`` finds the least step that passes by
binary search, galloping from a guess first when the caller has one (the guess and
the step below it: two runs when the guess is right). The step below the answer is always run
explicitly, never inferred: a kind's advice is minimal only if one step less fails,
and the proof reports what it then does.

Budget: each kind makes at most ``max_runs`` runs, and the whole advice stops at its
deadline; running out raises :class:`OutOfRuns`, caught by the kind, which keeps what
it proved and says that it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


class OutOfRuns(Exception):
    """The kind's runs, or the advice's time, are spent (``why``: "runs" or "budget")."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass
class Budget:
    """The advice's bounds: a deadline for all of it, a number of runs per kind."""

    deadline: float | None
    max_runs: int
    on_run: Callable[[int], None] | None = None
    clock: Callable[[], float] = time.perf_counter
    runs: int = 0

    def question_run(self) -> None:
        """The question's own run: counted, never refused (there is no advice without it)."""
        self.runs += 1
        if self.on_run is not None:
            self.on_run(self.runs)

    def before_run(self) -> None:
        if self.deadline is not None and self.clock() >= self.deadline:
            raise OutOfRuns("budget")
        self.runs += 1
        if self.on_run is not None:
            self.on_run(self.runs)

    def for_kind(self) -> KindBudget:
        return KindBudget(self)


@dataclass
class KindBudget:
    """One kind's share: its runs counted against ``max_runs``, then the advice's."""

    advice: Budget
    runs: int = 0
    started: float = field(default_factory=time.perf_counter)

    def spend(self) -> None:
        if self.runs >= self.advice.max_runs:
            raise OutOfRuns("runs")
        self.advice.before_run()
        self.runs += 1

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started


@dataclass
class Found(Generic[T]):
    """The least passing step, what its run gave, and the run of the step below it
    (None when the step is the least there is: nothing less to try)."""

    step: int
    run: T
    below: T | None


@dataclass
class Probe(Generic[T]):
    """Runs each step at most once, within the budget."""

    run: Callable[[int], T]
    passes: Callable[[T], bool]
    budget: KindBudget
    seen: dict[int, T] = field(default_factory=dict)

    def __call__(self, step: int) -> T:
        if step not in self.seen:
            self.budget.spend()
            self.seen[step] = self.run(step)
        return self.seen[step]

    def ok(self, step: int) -> bool:
        return self.passes(self(step))


def least_passing(
    probe: Probe[T], lo: int, hi: int, *, guess: int | None = None
) -> Found[T] | None:
    """The least step in [lo, hi] that passes, assuming ``passes`` is monotone (false
    below some step, true from it on); None when even ``hi`` fails. ``lo`` is the least
    step there is: its run has no step below. The step below the answer is run.

    With a guess, the search gallops from it (1, 2, 4... steps away, on the side its
    run points to) before it halves: an answer d steps from the guess costs about
    2 log2(d) runs, a right guess two."""
    if lo > hi:
        return None
    low, good = lo, None
    if guess is not None and lo <= guess <= hi:
        if probe.ok(guess):
            good, stride = guess, 1
            while good > lo:
                step = max(lo, good - stride)
                if not probe.ok(step):
                    low = step + 1
                    break
                good, stride = step, stride * 2
        else:
            # Does anything pass at all? One run, before a gallop that could climb to hi.
            if guess == hi or not probe.ok(hi):
                return None
            low, stride = guess + 1, 1
            while good is None:
                if low > hi:
                    return None
                step = min(hi, low + stride - 1)
                if probe.ok(step):
                    good = step
                else:
                    low, stride = step + 1, stride * 2
    if good is None:
        if not probe.ok(hi):
            return None
        good = hi
    # Invariant: ``good`` passes; every step below ``low`` that was run failed.
    while low < good:
        mid = (low + good) // 2
        if probe.ok(mid):
            good = mid
        else:
            low = mid + 1
    return _found(probe, good, lo)


def _found(probe: Probe[T], step: int, lo: int) -> Found[T]:
    below = probe(step - 1) if step > lo else None
    return Found(step=step, run=probe(step), below=below)
