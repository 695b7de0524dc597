"""A timeline run's pending happenings: what the clock is waiting for.

Outside the scheduling loop, three things happen at given times: a pending pod is
created (preemptlab.io/arrival-seconds), someone deletes a running pod
(preemptlab.io/delete-at-seconds), and a deleted pod is gone once its grace period
has run out (deletionTimestamp). The loop delivers each once the clock reaches it,
and jumps the clock to the next one when nothing can be popped.
"""

from __future__ import annotations

import enum
import heapq
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from ..objects import TIMELINE_SPAN_SECONDS, Pod

# The clock never goes past this (milliseconds since time zero).
SPAN_MS = TIMELINE_SPAN_SECONDS * 1000


class Happening(enum.IntEnum):
    """In this order when several fall on the same millisecond."""

    GONE = 0  # a terminating pod's grace period has ended: the informer's Delete
    DELETE = 1  # someone other than the scheduler deletes a running pod
    ARRIVAL = 2  # a pending pod is created


@dataclass(order=True)
class Due:
    at: int  # milliseconds since time zero
    kind: Happening
    seq: int
    pod: Pod = field(compare=False)


class Agenda:
    """The happenings still to come, earliest first."""

    def __init__(self) -> None:
        self._heap: list[Due] = []
        self._seq = 0

    def add(self, at: int, kind: Happening, pod: Pod) -> None:
        self._seq += 1
        heapq.heappush(self._heap, Due(at, kind, self._seq, pod))

    def next_at(self) -> int | None:
        return self._heap[0].at if self._heap else None

    def pop_due(self, now: int) -> Due | None:
        if self._heap and self._heap[0].at <= now:
            return heapq.heappop(self._heap)
        return None


def seconds(ms: int) -> float:
    """The contract's times: seconds since time zero, to the millisecond."""
    return round(ms / 1000, 3)


def rfc3339(origin: datetime, ms: int = 0) -> str:
    """``ms`` after ``origin``; a time past year 9999 (a grace period of centuries, which
    int64 seconds allow) reads as the last millisecond Python's datetime holds."""
    try:
        t = (origin + timedelta(milliseconds=ms)).astimezone(UTC)
    except OverflowError:
        t = datetime.max.replace(tzinfo=UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{t.microsecond // 1000:03d}Z"
