"""The scheduling queue (backend/queue/scheduling_queue.go): activeQ, backoffQ and
unschedulablePods, on a fake clock.

- activeQ pops by PrioritySort: higher priority first, then the earlier queue time.
- A failed pod goes to unschedulablePods, unless an event already made it worth
  retrying; cluster events move pods from there through the plugins' queueing hints,
  to backoffQ while their backoff runs (1 s doubling per attempt, at most 10 s), else
  to activeQ.
- backoffQ (backoff_queue.go, SchedulerPopFromBackoffQ on by default) holds two heaps.
  podBackoffQ orders by each pod's backoff expiry truncated to its 1-second ordering
  window, then as activeQ does (priority, then queue time): within a window the
  higher priority goes first. podErrorBackoffQ holds the pods that failed with no
  rejecting plugin (an error, such as no nodes at all), ordered by expiry only.
  A pod still backs off while its aligned expiry is not before the current window's
  start (isPodBackingoff); the flush moves whole windows to activeQ, podBackoffQ
  first. When activeQ is empty, Pop takes podBackoffQ's head anyway; the pods of
  podErrorBackoffQ only leave through the flush.
- The leftover flush moves every pod left in unschedulablePods back after 5 minutes.

The clock steps 1 ms per submitted pod and per cycle, so a 1 s backoff only expires
in long runs, and the flush jumps it by 5 minutes. The windows are the same whole
seconds of that clock: a backoff that has not reached the second after its expiry
still holds the pod back, as it does in the real queue. A timeline run keeps the
real clock instead: backoffQ is flushed on whole seconds and the leftover flush looks
every 30 s for pods that have waited over 5 minutes (``flush_leftover_at``), as the
two goroutines of the real queue do.
"""

from __future__ import annotations

import enum
import heapq
from dataclasses import dataclass, field
from typing import Any

from ..objects import Pod
from .hints import Event, QueueingHints

INITIAL_BACKOFF_MS = 1_000
MAX_BACKOFF_MS = 10_000
# podMaxInUnschedulablePodsDuration: the leftover flush's age.
UNSCHEDULABLE_FLUSH_MS = 5 * 60 * 1_000
# backoffQOrderingWindowDuration: podBackoffQ orders by windows of a whole second,
# and flushBackoffQCompleted runs on each whole second to move whole windows.
BACKOFF_ORDERING_WINDOW_MS = 1_000
# How often the real queue's goroutines run: flushBackoffQCompleted and
# flushUnschedulablePodsLeftover.
BACKOFF_FLUSH_PERIOD_MS = BACKOFF_ORDERING_WINDOW_MS
LEFTOVER_FLUSH_PERIOD_MS = 30_000


def align_to_window(ms: int) -> int:
    """alignToWindow: the start of the ordering window holding ``ms``."""
    return ms - ms % BACKOFF_ORDERING_WINDOW_MS


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
        """getBackoffTime: the end of the backoff aligned to its window (BackoffExpiration);
        0 for a pod never tried, which owes no backoff."""
        if self.attempts == 0:
            return 0
        return align_to_window(self.timestamp + self.backoff_ms())

    def is_backing_off(self, now: int) -> bool:
        """isPodBackingoff: the aligned expiry is not before the current window's start,
        so a pod whose backoff ends within the current window still waits for the next."""
        return self.attempts > 0 and self.backoff_expiry() >= align_to_window(now)

    @property
    def failed_with_error(self) -> bool:
        """No plugin rejected it (nor left it pending): the attempt ended in an error."""
        return not self.rejectors


def _active_key(p: QueuedPodInfo) -> tuple[int, int, int]:
    return (-p.pod.priority, p.timestamp, p.seq)


def _backoff_key(p: QueuedPodInfo) -> tuple[int, ...]:
    """lessBackoffCompletedWithPriority: the aligned expiry, then as activeQ orders."""
    return (p.backoff_expiry(), *_active_key(p))


def _error_backoff_key(p: QueuedPodInfo) -> tuple[int, ...]:
    """lessBackoffCompleted (podErrorBackoffQ): the aligned expiry only (submission order
    breaks a tie, where the real heap's order is arbitrary)."""
    return (p.backoff_expiry(), p.seq)


# A heap entry: the order key, then the move it belongs to (stale once the pod moved).
Entry = tuple[tuple[int, ...], int, QueuedPodInfo]


class SchedulingQueue:
    def __init__(self, hints: QueueingHints, *, real_clock: bool = False) -> None:
        self.hints = hints
        self.now = 0
        # A timeline run: the clock is the real one. backoffQ's windows are whole seconds
        # of either clock, so the queue's rules do not depend on it.
        self.real_clock = real_clock
        self.pods: list[QueuedPodInfo] = []
        # Heaps with lazy deletion: a pod's keys do not change while it sits in a queue
        # (its timestamp and attempts change only between queues).
        self._active: list[Entry] = []
        # backoffQ's two heaps: podBackoffQ and podErrorBackoffQ.
        self._backoff: list[Entry] = []
        self._error_backoff: list[Entry] = []
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
        """Both heaps of backoffQ (its list())."""
        return [
            p
            for heap in (self._backoff, self._error_backoff)
            for _, m, p in heap
            if p.where is Where.BACKOFF and p.moves == m
        ]

    # Pop ---------------------------------------------------------------------
    def _pop_each_backoff_completed(self, heap: list[Entry]) -> list[QueuedPodInfo]:
        """popEachBackoffCompletedWithQueue: from the head, every pod done backing off."""
        moved: list[QueuedPodInfo] = []
        while True:
            p = self._live(heap, Where.BACKOFF)
            if p is None or p.is_backing_off(self.now):
                return moved
            heapq.heappop(heap)
            self._to(p, Where.ACTIVE)
            moved.append(p)

    def pop_all_backoff_completed(self) -> list[QueuedPodInfo]:
        """flushBackoffQCompleted: every pod done backing off goes to activeQ, podBackoffQ
        first, then podErrorBackoffQ, each from its head; returned in that order. Backing
        off changes only on whole seconds, so flushing at every pop is flushing on each
        second's tick."""
        moved = self._pop_each_backoff_completed(self._backoff)
        moved.extend(self._pop_each_backoff_completed(self._error_backoff))
        return moved

    def add_backoff(self, p: QueuedPodInfo) -> None:
        """backoffQueue.add: into podBackoffQ, or podErrorBackoffQ for a pod that failed
        with an error."""
        self._to(p, Where.BACKOFF)

    def _wait_for_error_backoff(self) -> None:
        """Nothing to pop but pods of podErrorBackoffQ: the real Pop blocks until the
        flush on the second after the first one's window moves it; the clock goes there."""
        p = self._live(self._error_backoff, Where.BACKOFF)
        if p is not None:
            self.jump_to(p.backoff_expiry() + BACKOFF_ORDERING_WINDOW_MS)
            self.pop_all_backoff_completed()

    def pop(self) -> QueuedPodInfo | None:
        """The next pod to schedule, or None when activeQ and backoffQ are both empty:
        activeQ's head, else podBackoffQ's (SchedulerPopFromBackoffQ)."""
        self.pop_all_backoff_completed()
        p = self._live(self._active, Where.ACTIVE) or self._live(self._backoff, Where.BACKOFF)
        if p is None and self._error_backoff:
            self._wait_for_error_backoff()
            p = self._live(self._active, Where.ACTIVE)
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
        the pod was in flight (the loop delivers every event between cycles). A pod no
        plugin rejected failed with an error: determineSchedulingHintForInFlightPod
        queues it after its backoff instead of in unschedulablePods."""
        p.timestamp = self.now
        p.rejectors = rejectors
        if p.failed_with_error:
            self._to(p, Where.BACKOFF if p.is_backing_off(self.now) else Where.ACTIVE)
            return
        p.where = Where.UNSCHEDULABLE
        self.unschedulable.append(p)

    def _to(self, p: QueuedPodInfo, where: Where) -> None:
        p.moves += 1
        p.where = where
        if where is Where.ACTIVE:
            heapq.heappush(self._active, (_active_key(p), p.moves, p))
        elif p.failed_with_error:
            heapq.heappush(self._error_backoff, (_error_backoff_key(p), p.moves, p))
        else:
            heapq.heappush(self._backoff, (_backoff_key(p), p.moves, p))

    def put_back(self, p: QueuedPodInfo) -> None:
        """A popped pod that was not tried after all (the run stopped): back to activeQ."""
        p.attempts -= 1
        self._to(p, Where.ACTIVE)

    def _requeue(self, p: QueuedPodInfo) -> None:
        """requeuePodWithQueueingStrategy(queueAfterBackoff)."""
        self.unschedulable.remove(p)
        self._to(p, Where.BACKOFF if p.is_backing_off(self.now) else Where.ACTIVE)

    def on_event(
        self,
        event: Event,
        other: Any,
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
