"""The reconciler: queues again the work whose broker message was lost.

The database row is the truth, the broker only a wake-up. Every few seconds
each worker compares the two and repairs what the broker lost:

- work *running* whose lease expired (its worker died: OOM kill, container
  stop, kill -9 of the whole worker) goes back to queued with a new message;
- work *queued* for longer than a grace period while the broker's queue holds
  fewer messages than there are queued rows (Redis restarted and kept nothing,
  a message was dropped) gets a new message, oldest first, one per missing one.

Why a check inside the worker rather than Celery beat: it needs no extra
process (docker-compose and `make run`'s Procfile.dev stay as they are, and the
embedded filesystem broker works the same), it needs no broker to wake it up
(beat's own messages are lost with the broker), and it runs exactly when and
where there is a worker to do the work. Several workers may run it at once: a
row is queued again only by the worker whose compare-and-set on ``enqueued_at``
(or the lease) wins, so each lost message is replaced once.

The tasks are idempotent (they lock the row, skip finished work and leave work
leased by a live task alone), so an extra message costs one no-op.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import close_old_connections, connection
from django.db.models import QuerySet
from django.utils import timezone

from operations.faults import BrokerUnavailable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DurableWork:
    """One kind of work the reconciler watches (analyses, snapshot ingests)."""

    name: str
    # Rows waiting for a worker, with a message sent at ``enqueued_at``.
    queued: Callable[[], QuerySet[Any]]
    # Rows a task claimed whose lease expired before ``now``.
    expired: Callable[[datetime], QuerySet[Any]]
    # The update that puts an expired row back in the queue.
    requeue: Callable[[datetime], dict[str, Any]]
    # Sends the message that runs row ``pk`` (raises BrokerUnavailable).
    publish: Callable[[int], None]
    # Rows that no message will ever run and no one can recover: failed with a reason.
    abandon: Callable[[datetime], int] = field(default=lambda now: 0)


_kinds: dict[str, DurableWork] = {}


def durable_work_register(kind: DurableWork) -> None:
    """Called by each app's AppConfig.ready()."""
    _kinds[kind.name] = kind


@dataclass
class Report:
    """What one pass did, per kind: rows queued again after a lost lease or message."""

    expired: dict[str, int] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)
    abandoned: dict[str, int] = field(default_factory=dict)
    queue_size: int | None = None

    @property
    def changed(self) -> bool:
        return any(self.expired.values()) or any(self.lost.values()) or any(self.abandoned.values())


def queued_grace() -> timedelta:
    return timedelta(seconds=int(settings.PREEMPTLAB_QUEUED_GRACE_SECONDS))


def broker_queue_size() -> int | None:
    """Messages waiting in the default queue, or None when the broker cannot say."""
    # Celery's current app (the worker's): importing config.celery here would import the
    # module that starts this reconciler.
    app = current_app
    try:
        with app.connection_for_write() as conn:
            # kombu's virtual transports (Redis, filesystem) count a queue's messages so.
            size = getattr(conn.default_channel, "_size")  # noqa: B009
            return int(size(app.conf.task_default_queue))
    except Exception as exc:
        log.info("could not read the broker's queue length: %s", type(exc).__name__)
        return None


def reconcile(now: datetime | None = None) -> Report:
    """One pass over every kind of durable work; safe to run from several workers at once."""
    now = now or timezone.now()
    report = Report()
    for kind in _kinds.values():
        report.abandoned[kind.name] = kind.abandon(now)
        report.expired[kind.name] = _requeue_expired(kind, now)
    report.queue_size = broker_queue_size()
    waiting = sum(kind.queued().count() for kind in _kinds.values())
    missing = waiting - (report.queue_size or 0)
    if missing > 0:
        _requeue_lost(now, missing, report)
    if report.changed:
        log.warning("reconciler: %s", report)
    return report


def _requeue_expired(kind: DurableWork, now: datetime) -> int:
    done = 0
    for pk, expires in kind.expired(now).values_list("pk", "lease_expires_at")[:500]:
        won = (
            kind.expired(now)
            .filter(pk=pk, lease_expires_at=expires)
            .update(**kind.requeue(now), enqueued_at=now)
        )
        if won:
            kind.publish(pk)
            done += 1
    return done


def _requeue_lost(now: datetime, missing: int, report: Report) -> None:
    cutoff = now - queued_grace()
    stale: list[tuple[datetime, str, int, datetime | None]] = []
    for kind in _kinds.values():
        rows = kind.queued().filter(enqueued_at__lt=cutoff) | kind.queued().filter(
            enqueued_at__isnull=True
        )
        for pk, enqueued in rows.order_by("enqueued_at").values_list("pk", "enqueued_at")[:missing]:
            stale.append(
                (enqueued or datetime.min.replace(tzinfo=now.tzinfo), kind.name, pk, enqueued)
            )
    stale.sort(key=lambda row: (row[0], row[1], row[2]))
    for _, name, pk, enqueued in stale[:missing]:
        kind = _kinds[name]
        won = kind.queued().filter(pk=pk, enqueued_at=enqueued).update(enqueued_at=now)
        if won:
            kind.publish(pk)
            report.lost[name] = report.lost.get(name, 0) + 1


# --- the worker-side loop -------------------------------------------------------------------


class ReconcilerThread(threading.Thread):
    """Runs reconcile() every PREEMPTLAB_RECONCILE_SECONDS inside a worker's main process."""

    def __init__(self, interval: float | None = None) -> None:
        super().__init__(name="reconciler", daemon=True)
        self.interval = (
            interval if interval is not None else float(settings.PREEMPTLAB_RECONCILE_SECONDS)
        )
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            self.tick()
            self.stopping.wait(self.interval)
        connection.close()

    def tick(self) -> None:
        try:
            close_old_connections()
            reconcile()
        except BrokerUnavailable:
            log.warning("reconciler: the broker is unavailable; trying again shortly")
        except Exception:  # the database is down, or a bug: never let the loop die
            log.exception("reconciler pass failed; trying again shortly")
            connection.close()

    def stop(self) -> None:
        self.stopping.set()


_thread: ReconcilerThread | None = None


def reconciler_start(**_: Any) -> None:
    """celery.signals.worker_ready: start the loop (once per worker process)."""
    global _thread
    if not getattr(settings, "PREEMPTLAB_RECONCILER", True) or _thread is not None:
        return
    _thread = ReconcilerThread()
    _thread.start()


def reconciler_stop(**_: Any) -> None:
    """celery.signals.worker_shutdown."""
    global _thread
    if _thread is not None:
        _thread.stop()
        _thread = None
