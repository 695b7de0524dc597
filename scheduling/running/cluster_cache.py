"""Parsed clusters kept by a worker process, so a second what-if on one snapshot skips the load.

Keyed by the snapshot's id and the time it was ingested: a snapshot is never
re-ingested in place today, but if it were, the stale entry would simply miss.
A small least-recently-used cache: a 5,000-node/150,000-pod cluster holds a few
hundred MiB, so a worker keeps only a handful.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings

from operations.recent import Recent
from scheduling.constants import CLUSTER_CACHE_SIZE

# Counters for tests and the benchmark: how often a lookup was served or loaded.
stats = {"hits": 0, "misses": 0}


def _capacity() -> int:
    return int(getattr(settings, "PREEMPTLAB_CLUSTER_CACHE_SIZE", CLUSTER_CACHE_SIZE))


_clusters: Recent[tuple[int, str], Any] = Recent(_capacity)


def cluster_cache_key(*, snapshot: Any) -> tuple[int, str]:
    marker = snapshot.ingested_at.isoformat() if snapshot.ingested_at else ""
    return (snapshot.pk, marker)


def _same_snapshot(key: tuple[int, str]) -> Callable[[tuple[int, str]], bool]:
    return lambda other: other[0] == key[0]


def cluster_cache_get(*, key: tuple[int, str], load: Callable[[], Any]) -> tuple[Any, bool]:
    """The cached value for ``key``, or ``load()`` stored under it; and whether it was cached.

    Loads outside the lock (a load can take seconds); two concurrent misses on
    one key both load and the second result wins, which is harmless.
    """
    value, cached = _clusters.get(key, load, replaces=_same_snapshot(key))
    stats["hits" if cached else "misses"] += 1
    return value, cached


def cluster_cache_put(*, key: tuple[int, str], value: Any) -> None:
    """Keeps ``value`` under ``key`` (a load's result, or a cluster this process just
    built at ingest), dropping other versions of the same snapshot, then the least
    recently used."""
    _clusters.put(key, value, replaces=_same_snapshot(key))


def cluster_cache_clear() -> None:
    _clusters.clear()
    stats["hits"] = stats["misses"] = 0


def cluster_cache_keys() -> list[tuple[int, str]]:
    return _clusters.keys()
