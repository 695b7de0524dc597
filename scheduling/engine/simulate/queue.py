"""The scheduling queue (backend/queue/scheduling_queue.go): activeQ, backoffQ and
unschedulablePods, on a fake clock.

- activeQ pops by PrioritySort: higher priority first, then the earlier queue time.
- A failed pod goes to unschedulablePods, unless an event already made it worth
  retrying; cluster events move pods from there through the plugins' queueing hints,
  to backoffQ while their backoff runs (1 s doubling per attempt, at most 10 s), else
  to activeQ.
- backoffQ pods whose backoff has expired move to activeQ; when activeQ is empty a
  pod is popped from backoffQ anyway (SchedulerPopFromBackoffQ): fewer attempts
  first, then priority, then queue time.
- The leftover flush moves every pod left in unschedulablePods back after 5 minutes.

The clock steps 1 ms per submitted pod and per cycle, so a 1 s backoff only expires
in long runs, and the flush jumps it by 5 minutes. A timeline run keeps the real
clock instead: backoffQ is flushed on whole seconds and the leftover flush looks every
30 s for pods that have waited over 5 minutes (``flush_leftover_at``), as the two
goroutines of the real queue do.
"""

from __future__ import annotations

import enum
import heapq
from dataclasses import dataclass, field

from ..objects import Pod
from .hints import Event, QueueingHints

INITIAL_BACKOFF_MS = 1_000
MAX_BACKOFF_MS = 10_000
# podMaxInUnschedulablePodsDuration: the leftover flush's age.
UNSCHEDULABLE_FLUSH_MS = 5 * 60 * 1_000
# How often the real queue's goroutines run: flushBackoffQCompleted and
# flushUnschedulablePodsLeftover.
BACKOFF_FLUSH_PERIOD_MS = 1_000
LEFTOVER_FLUSH_PERIOD_MS = 30_000


class Where(enum.Enum):
    ACTIVE = "activeQ"
    BACKOFF = "backoffQ"
    UNSCHEDULABLE = "unschedulablePods"
    IN_FLIGHT = "inFlight"
    DONE = "done"
    NOT_CREATED = "notCreated"  # its controller has not made it yet


@dataclass(eq=False)
class QueuedPodInfo:
    """framework.QueuedPodInfo: the pod, when it was (re)queued, how often it was tried,
    and the plugins that rejected it last time."""

    pod: Pod
    seq: int  # submission order
    timestamp: int = 0
    attempts: int = 0
    rejectors: frozenset[str] = field(default_factory=frozenset)
    where: Where = Where.ACTIVE
    moves: int = 0  # bumped on every move: heap entries of an older move are stale

    @property
    def key(self) -> str:
        return self.pod.key

    def backoff_ms(self) -> int:
        """calculateBackoffDuration: 1 s, doubled per further attempt, capped at 10 s."""
        if self.attempts == 0:
            return 0
        d = INITIAL_BACKOFF_MS
        for _ in range(1, self.attempts):
            if d > MAX_BACKOFF_MS - d:
                return MAX_BACKOFF_MS
            d += d
        return d

    def backoff_expiry(self) -> int:
        return self.timestamp + self.backoff_ms()


def _active_key(p: QueuedPodInfo) -> tuple[int, int, int]:
    return (-p.pod.priority, p.timestamp, p.seq)


def _backoff_key(p: QueuedPodInfo) -> tuple[int, int, int, int]:
    return (p.attempts, -p.pod.priority, p.timestamp, p.seq)


# A heap entry: the order key, then the move it belongs to (stale once the pod moved).
Entry = tuple[tuple[int, ...], int, QueuedPodInfo]


class SchedulingQueue:
    def __init__(self, hints: QueueingHints, *, real_clock: bool = False) -> None:
        self.hints = hints
        self.now = 0
        # A timeline run: backoffQ moves on whole seconds, not at each pod's own expiry.
        self.real_clock = real_clock
        self.pods: list[QueuedPodInfo] = []
        # Heaps with lazy deletion: a pod's keys do not change while it sits in a queue
        # (its timestamp and attempts change only between queues).
        self._active: list[Entry] = []
        self._backoff: list[Entry] = []
        self._backoff_expiry: list[Entry] = []
        self.unschedulable: list[QueuedPodInfo] = []

    def tick(self, ms: int = 1) -> None:
        self.now += ms

    def jump_to(self, ms: int) -> None:
        """The clock moves on to ``ms`` (a timeline run waiting for its next event)."""
        self.now = max(self.now, ms)

    def add(self, pod: Pod, *, created: bool = True) -> QueuedPodInfo:
        """A new pending pod (informer Add): straight to activeQ. ``created=False``: a pod
        its controller will only make later (``create`` then queues it)."""
        p = QueuedPodInfo(pod, seq=len(self.pods), where=Where.NOT_CREATED)
        self.pods.append(p)
        if created:
            self.create(p)
        return p

    def create(self, p: QueuedPodInfo) -> None:
        self.tick()
        p.timestamp = self.now
        self._to(p, Where.ACTIVE)

    def _live(self, heap: list[Entry], where: Where) -> QueuedPodInfo | None:
        while heap:
            _, moves, p = heap[0]
            if p.where is where and p.moves == moves:
                return p
            heapq.heappop(heap)
        return None

    @property
    def active(self) -> list[QueuedPodInfo]:
        return [p for _, m, p in self._active if p.where is Where.ACTIVE and p.moves == m]

    @property
    def backoff(self) -> list[QueuedPodInfo]:
        return [p for _, m, p in self._backoff if p.where is Where.BACKOFF and p.moves == m]

    # Pop ---------------------------------------------------------------------
    def _flush_backoff_completed(self) -> None:
        now = self.now
        if self.real_clock:
            now -= now % BACKOFF_FLUSH_PERIOD_MS
        while True:
            p = self._live(self._backoff_expiry, Where.BACKOFF)
            if p is None or p.backoff_expiry() > now:
                return
            self._to(p, Where.ACTIVE)

    def pop(self) -> QueuedPodInfo | None:
        """The next pod to schedule, or None when activeQ and backoffQ are both empty."""
        self._flush_backoff_completed()
        p = self._live(self._active, Where.ACTIVE) or self._live(self._backoff, Where.BACKOFF)
        if p is None:
            return None
        p.moves += 1
        p.where = Where.IN_FLIGHT
        p.attempts += 1
        return p

    # After a cycle -----------------------------------------------------------
    def done(self, p: QueuedPodInfo) -> None:
        p.where = Where.DONE

    def add_unschedulable(self, p: QueuedPodInfo, rejectors: frozenset[str]) -> None:
        """AddUnschedulableIfNotPresent: the timestamp is refreshed; no event arrived while
        the pod was in flight (the loop delivers every event between cycles)."""
        p.timestamp = self.now
        p.rejectors = rejectors
        p.where = Where.UNSCHEDULABLE
        self.unschedulable.append(p)

    def _to(self, p: QueuedPodInfo, where: Where) -> None:
        p.moves += 1
        p.where = where
        if where is Where.ACTIVE:
            heapq.heappush(self._active, (_active_key(p), p.moves, p))
        else:
            heapq.heappush(self._backoff, (_backoff_key(p), p.moves, p))
            heapq.heappush(
                self._backoff_expiry, ((p.backoff_expiry(), *_active_key(p)), p.moves, p)
            )

    def put_back(self, p: QueuedPodInfo) -> None:
        """A popped pod that was not tried after all (the run stopped): back to activeQ."""
        p.attempts -= 1
        self._to(p, Where.ACTIVE)

    def _requeue(self, p: QueuedPodInfo) -> None:
        """requeuePodWithQueueingStrategy(queueAfterBackoff)."""
        self.unschedulable.remove(p)
        self._to(p, Where.BACKOFF if p.backoff_expiry() > self.now else Where.ACTIVE)

    def on_event(
        self,
        event: Event,
        other: Pod,
        gated: frozenset[str] = frozenset(),
        at_most_priority: int | None = None,
    ) -> None:
        """MoveAllToActiveOrBackoffQueue: ask the hints of every pod in unschedulablePods.
        Pods in ``gated`` (a preemptor whose preemption is still running: DefaultPreemption's
        PreEnqueue holds it) stay where they are; with ``at_most_priority`` (the precheck
        getLEPriorityPreCheck), so do pods of a higher priority."""
        for p in list(self.unschedulable):
            if p.key in gated:
                continue
            if at_most_priority is not None and p.pod.priority > at_most_priority:
                continue
            if self.hints.worth_requeuing(p.pod, p.rejectors, event, other):
                self._requeue(p)

    def flush_unschedulable_leftover(self) -> list[QueuedPodInfo]:
        """flushUnschedulablePodsLeftover after 5 minutes: every pod goes back."""
        self.tick(UNSCHEDULABLE_FLUSH_MS)
        moved = list(self.unschedulable)
        for p in moved:
            self._requeue(p)
        return moved

    def next_leftover_flush(self, after: int) -> int | None:
        """The first tick of the leftover flush, at or after ``after``, that finds a pod
        in unschedulablePods for over 5 minutes (None: the pool is empty)."""
        if not self.unschedulable:
            return None
        oldest = min(p.timestamp for p in self.unschedulable)
        due = oldest + UNSCHEDULABLE_FLUSH_MS + 1
        mark = max(after, due)
        return -(-mark // LEFTOVER_FLUSH_PERIOD_MS) * LEFTOVER_FLUSH_PERIOD_MS

    def flush_leftover_at(self, mark: int) -> list[QueuedPodInfo]:
        """flushUnschedulablePodsLeftover's tick at ``mark``: the pods that have been in
        unschedulablePods for over 5 minutes go back."""
        moved = [p for p in self.unschedulable if mark - p.timestamp > UNSCHEDULABLE_FLUSH_MS]
        for p in moved:
            self._requeue(p)
        return moved

    def listing(self) -> dict[Where, list[str]]:
        return {
            Where.ACTIVE: sorted(p.key for p in self.active),
            Where.BACKOFF: sorted(p.key for p in self.backoff),
            Where.UNSCHEDULABLE: sorted(p.key for p in self.unschedulable),
        }
