"""What one analysis may take, and how many one user may have waiting.

A workload's run is bounded in scheduling cycles (the engine stops there and says so:
stop_reason "cycle-limit", the run ends done) and in wall-clock time (checked at every
cycle and whenever a timed run's clock moves, on every pool, the embedded default's solo
worker included, which enforces no Celery time limit: the analysis ends failed, naming
the limit). A worker asked to stop (SIGTERM) stops its analysis at the same checks and
queues it again. A stored result is
bounded in size. And one user has at most a few analyses queued or running at once,
so another user's what-if never waits behind more than that many of theirs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from operations.throttling import Busy
from scheduling.constants import AnalysisStatus


@dataclass(frozen=True)
class AnalysisBudget:
    seconds: float
    cycles: int
    result_bytes: int

    @classmethod
    def from_settings(cls) -> AnalysisBudget:
        return cls(
            seconds=float(settings.PREEMPTLAB_ANALYSIS_SECONDS),
            cycles=int(settings.PREEMPTLAB_ANALYSIS_MAX_CYCLES),
            result_bytes=int(settings.PREEMPTLAB_MAX_RESULT_BYTES),
        )

    def cycle_limit(self, default: int) -> int:
        """The engine's own limit for this many pods, within the budget."""
        return min(default, self.cycles)

    def watch(self, on_cycle: Callable[[int], None] | None = None) -> Callable[[int], None]:
        """An on_cycle callback (called after every cycle and whenever a timed run's clock
        moves) that raises OutOfTime once the wall-clock budget is spent, and
        WorkerStopping once the worker is shutting down (after calling ``on_cycle``, the
        progress writer)."""
        deadline = time.monotonic() + self.seconds

        def check(cycle: int) -> None:
            if on_cycle is not None:
                on_cycle(cycle)
            if _stopping.is_set():
                raise WorkerStopping(cycle)
            if time.monotonic() > deadline:
                raise OutOfTime(self, cycle)

        return check


# Set in a worker process that was asked to stop (SIGTERM): the analysis it runs stops at
# its next check and goes back to the queue rather than holding the shutdown up.
_stopping = threading.Event()


def worker_stop() -> None:
    """The worker is shutting down (safe to call from a signal handler)."""
    _stopping.set()


def worker_stopping() -> bool:
    return _stopping.is_set()


class WorkerStopping(Exception):
    """The worker was asked to stop while an analysis ran: it is queued again, not failed."""

    def __init__(self, cycle: int) -> None:
        self.cycle = cycle
        super().__init__(f"the worker is shutting down (at scheduling cycle {cycle:,})")


class OutOfTime(Exception):
    def __init__(self, budget: AnalysisBudget, cycle: int) -> None:
        self.budget, self.cycle = budget, cycle
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return (
            f"The run was stopped after {self.budget.seconds:g} s, at scheduling cycle "
            f"{self.cycle:,}: every analysis gets at most that long "
            "(PREEMPTLAB_ANALYSIS_SECONDS), so no one run holds a worker. Try fewer "
            "replicas, or a smaller snapshot."
        )


def result_too_large(size: int, budget: AnalysisBudget) -> str | None:
    if size <= budget.result_bytes:
        return None
    return (
        f"The result is {size / 2**20:,.1f} MiB; at most {budget.result_bytes / 2**20:,.0f} "
        "MiB are stored (PREEMPTLAB_MAX_RESULT_BYTES). Try fewer replicas."
    )


UNFINISHED = (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING)


class TooManyUnfinished(Busy):
    """The user has as much work queued or running as one user may (429)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(
            f"You have {limit} analyses, first-in-line rankings, advice or snapshot uploads queued "
            "or running, as many as one user may have at once (PREEMPTLAB_UNFINISHED_PER_USER): submit this one "
            "when one of them ends."
        )


def unfinished_count(*, user: Any) -> int:
    """What ``user`` asked that is not finished: analyses (Explain's included), first-in-line
    rankings and advice queued or running, whoever's snapshot they are on; uploads
    ingesting; and deleted analyses whose run has not yet stopped
    (scheduling/running/cancellation.py). A connected cluster's reads and what they queue are
    no user's: one read at a time per cluster is their own slot (connected/services.py),
    so a member's what-ifs never hold up the owner's work or the cluster's schedule."""
    # Imported here: the models import this module's neighbours.
    from advice.models import Advice
    from clusters.constants import SnapshotStatus
    from clusters.models import Snapshot
    from planning.models import FirstInLineRanking
    from scheduling.models import Analysis
    from scheduling.running.cancellation import stopping_count

    analyses = Analysis.objects.filter(requested_by=user, status__in=UNFINISHED).count()
    rankings = FirstInLineRanking.objects.filter(requested_by=user, status__in=UNFINISHED).count()
    ingests = Snapshot.objects.filter(
        owner=user, status=SnapshotStatus.INGESTING, cluster__isnull=True
    ).count()
    advice = Advice.objects.filter(requested_by=user, status__in=UNFINISHED).count()
    return analyses + rankings + advice + ingests + stopping_count(user=user)


def check_unfinished(*, user: Any) -> None:
    """Raises TooManyUnfinished when ``user`` has the most unfinished work one user may
    have. Alone it only counts: a submission takes its place with ``unfinished_slot``,
    which makes the count and the new row one step."""
    limit = int(settings.PREEMPTLAB_UNFINISHED_PER_USER)
    if unfinished_count(user=user) >= limit:
        raise TooManyUnfinished(limit)


@contextmanager
def unfinished_slot(*, user: Any) -> Iterator[None]:
    """A transaction in which ``user``'s unfinished work is counted and the new row (made
    in the block) is written: TooManyUnfinished, and nothing written, past the limit.
    ``user`` None: work no user asked (a connected cluster's read queued it), counted
    against nobody; the block still runs in a transaction.

    The user's row is locked first (SELECT ... FOR UPDATE on PostgreSQL; SQLite runs
    every transaction IMMEDIATE, one writer at a time), so concurrent submissions of one
    user take their places one after another and never pass the limit together.
    """
    user_model = get_user_model()
    with transaction.atomic():
        if user is not None:
            user_model.objects.select_for_update().filter(pk=user.pk).first()
            check_unfinished(user=user)
        yield
