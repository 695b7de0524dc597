"""The worker's small LRU of parsed clusters."""

from __future__ import annotations

from typing import Any

from scheduling.running import cluster_cache as cc


def _get(key: tuple[int, str], loads: list[Any]) -> tuple[Any, bool]:
    return cc.cluster_cache_get(key=key, load=lambda: loads.append(key) or f"cluster {key}")


def test_it_loads_once_and_then_serves_from_memory(settings: Any) -> None:
    loads: list[Any] = []
    assert _get((1, "a"), loads) == ("cluster (1, 'a')", False)
    assert _get((1, "a"), loads) == ("cluster (1, 'a')", True)
    assert loads == [(1, "a")]


def test_it_drops_the_least_recently_used(settings: Any) -> None:
    settings.PREEMPTLAB_CLUSTER_CACHE_SIZE = 2
    loads: list[Any] = []
    _get((1, ""), loads)
    _get((2, ""), loads)
    _get((1, ""), loads)  # 1 is now the most recent
    _get((3, ""), loads)  # evicts 2
    assert cc.cluster_cache_keys() == [(1, ""), (3, "")]


def test_a_newer_version_of_a_snapshot_replaces_the_old_one(settings: Any) -> None:
    loads: list[Any] = []
    _get((1, "2025-01-01"), loads)
    _get((1, "2025-02-01"), loads)
    assert cc.cluster_cache_keys() == [(1, "2025-02-01")]
