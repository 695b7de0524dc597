"""Go's sort.Slice, ported: the order it leaves equal elements in is Go's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scheduling.engine.gosort import slice_sort


def _by_content(length: int) -> list[int]:
    """The published demonstration of sort.Slice's instability: one "x" note first, then
    length-1 "test" notes numbered 0.., sorted by content; the ids in the order Go leaves."""
    notes = [(-1, "x")] + [(i, "test") for i in range(length - 1)]
    slice_sort(notes, lambda a, b: a[1] < b[1])
    return [n[0] for n in notes]


def test_it_leaves_equal_elements_where_go_does() -> None:
    # Go's output for these lengths (insertion sort up to 12, pdqsort from 13).
    assert _by_content(11) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1]
    assert _by_content(12) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1]
    assert _by_content(13) == [5, 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, -1]


@given(st.lists(st.tuples(st.integers(0, 4), st.integers()), max_size=300))
def test_it_sorts_and_keeps_every_element(items: list[tuple[int, int]]) -> None:
    got = list(items)
    slice_sort(got, lambda a, b: a[0] < b[0])
    assert [k for k, _ in got] == sorted(k for k, _ in items)
    assert sorted(got) == sorted(items)


@given(st.lists(st.tuples(st.integers(0, 2), st.integers()), max_size=12))
def test_up_to_twelve_elements_it_is_stable(items: list[tuple[int, int]]) -> None:
    got = list(items)
    slice_sort(got, lambda a, b: a[0] < b[0])
    assert got == sorted(items, key=lambda kv: kv[0])


@given(st.lists(st.integers(0, 3), min_size=13, max_size=400))
def test_long_runs_of_equal_elements_are_reordered_deterministically(keys: list[int]) -> None:
    first = [(k, i) for i, k in enumerate(keys)]
    second = list(first)
    slice_sort(first, lambda a, b: a[0] < b[0])
    slice_sort(second, lambda a, b: a[0] < b[0])
    assert first == second
