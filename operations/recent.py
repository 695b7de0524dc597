"""The last few values a process computed, by key: the least recently asked dropped first.

One helper for every per-process memo of expensive answers (parsed clusters in a worker,
plans and first-in-line rankings in the web process). Thread-safe; a value is computed
outside the lock, since a computation can take seconds: two first askers of one key
may both compute it, and the later value stays, which is harmless for pure answers.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    def __init__(self, size: int | Callable[[], int]) -> None:
        # A callable size is read at every store (a setting a test may change).
        self._size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def size(self) -> int:
        return max(self._size() if callable(self._size) else self._size, 1)

    def get(
        self, key: K, compute: Callable[[], V], *, replaces: Callable[[K], bool] | None = None
    ) -> tuple[V, bool]:
        """The value kept for ``key``, or ``compute()`` kept under it; and whether it was
        kept already. ``replaces``: see :meth:`put`."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key], True
        value = compute()
        self.put(key, value, replaces=replaces)
        return value, False

    def put(self, key: K, value: V, *, replaces: Callable[[K], bool] | None = None) -> None:
        """Keeps ``value`` under ``key``, dropping first the keys ``replaces`` says it
        supersedes (another version of the same thing), then the least recently used."""
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            if replaces is not None:
                for other in [k for k in self._values if k != key and replaces(k)]:
                    del self._values[other]
            while len(self._values) > self.size():
                self._values.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

    def keys(self) -> list[K]:
        with self._lock:
            return list(self._values)
