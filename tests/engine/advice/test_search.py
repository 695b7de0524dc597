"""The search loop alone: no engine, a step's run is a number."""

from __future__ import annotations

import pytest

from scheduling.engine.advice.search import Budget, OutOfRuns, Probe, least_passing


def probe(threshold: int, max_runs: int = 20) -> Probe[int]:
    return Probe(
        run=lambda step: step,
        passes=lambda step: step >= threshold,
        budget=Budget(deadline=None, max_runs=max_runs).for_kind(),
    )


@pytest.mark.parametrize("threshold", [0, 1, 7, 399, 400])
def test_least_passing_finds_the_threshold_and_runs_the_step_below(threshold: int) -> None:
    p = probe(threshold)
    found = least_passing(p, 0, 400)
    assert found is not None
    assert found.step == threshold
    if threshold == 0:
        assert found.below is None
    else:
        assert found.below == threshold - 1
        assert threshold - 1 in p.seen  # run, not inferred
    assert p.budget.runs <= 11  # log2(401) + the step below


def test_nothing_passes() -> None:
    p = probe(1000)
    assert least_passing(p, 0, 400) is None
    assert p.budget.runs == 1  # the last step failed: nothing below can pass


def test_a_right_guess_costs_two_runs() -> None:
    p = probe(123)
    found = least_passing(p, 0, 400, guess=123)
    assert found is not None and found.step == 123
    assert sorted(p.seen) == [122, 123]


@pytest.mark.parametrize("guess", [0, 50, 122, 124, 300, 400])
def test_a_wrong_guess_still_finds_it(guess: int) -> None:
    p = probe(123)
    found = least_passing(p, 0, 400, guess=guess)
    assert found is not None and found.step == 123 and found.below == 122


def test_runs_per_kind_are_bounded() -> None:
    p = probe(123, max_runs=3)
    with pytest.raises(OutOfRuns) as stopped:
        least_passing(p, 0, 400)
    assert stopped.value.why == "runs"
    assert p.budget.runs == 3


def test_the_deadline_stops_every_kind() -> None:
    now = [0.0]
    budget = Budget(deadline=10.0, max_runs=20, clock=lambda: now[0])
    kind = budget.for_kind()
    kind.spend()
    now[0] = 10.0
    with pytest.raises(OutOfRuns) as stopped:
        kind.spend()
    assert stopped.value.why == "budget"


@pytest.mark.parametrize("distance", [1, 2, 5, 17, 100])
def test_a_near_guess_costs_few_runs(distance: int) -> None:
    for guess in (1000 - distance, 1000 + distance):
        p = probe(1000)
        found = least_passing(p, 0, 4000, guess=guess)
        assert found is not None and (found.step, found.below) == (1000, 999)
        assert p.budget.runs <= 2 * distance.bit_length() + 4


@pytest.mark.parametrize("threshold", [0, 1, 2, 3, 50, 399, 400])
@pytest.mark.parametrize("guess", [0, 1, 2, 3, 49, 51, 398, 399, 400])
def test_any_guess_finds_any_threshold(threshold: int, guess: int) -> None:
    p = probe(threshold)
    found = least_passing(p, 0, 400, guess=guess)
    assert found is not None and found.step == threshold
    assert found.below == (None if threshold == 0 else threshold - 1)


def test_a_guess_when_nothing_passes() -> None:
    p = probe(1000)
    assert least_passing(p, 0, 400, guess=3) is None
    assert sorted(p.seen) == [3, 400]  # no gallop towards a last step that fails
