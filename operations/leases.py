"""Leases: the database row says who is working on it, and until when.

The row is the truth about a piece of work (an analysis, a snapshot ingest);
a broker message is only a wake-up. A task that starts the work *claims* the
row: it writes its task id and a lease that expires a few seconds ahead, and
renews the lease while it runs (a heartbeat thread). A worker that dies stops
renewing; once the lease has expired, the reconciler (operations/reconciler.py)
queues the work again, and the next task claims it.

A broker that redelivers the very message whose holder died (a killed pool
process under acks_late) brings the same task id: that task may take the row
over at once, without waiting for the lease to run out.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, models
from django.utils import timezone

log = logging.getLogger(__name__)


def lease_seconds() -> int:
    return int(settings.PREEMPTLAB_LEASE_SECONDS)


def lease_deadline() -> datetime:
    return timezone.now() + timedelta(seconds=lease_seconds())


class LeasedWork(models.Model):
    """The fields a row of durable work carries (an abstract model)."""

    # When a message to run it was last sent (null: it never goes through the broker).
    enqueued_at = models.DateTimeField(null=True, blank=True)
    # The task holding it and until when; null while nobody does.
    lease_task_id = models.CharField(max_length=64, blank=True, default="")
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    def lease_taken_by_other(self, task_id: str) -> bool:
        """Whether another task holds a lease that has not yet expired."""
        if self.lease_expires_at is None or self.lease_expires_at <= timezone.now():
            return False
        return bool(self.lease_task_id) and self.lease_task_id != task_id

    def lease_take(self, task_id: str) -> list[str]:
        """Claims the row for ``task_id`` (the caller holds the row lock); the fields to save."""
        self.lease_task_id = task_id[:64]
        self.lease_expires_at = lease_deadline()
        return ["lease_task_id", "lease_expires_at"]


def lease_release_fields() -> dict[str, object]:
    """What an update that ends the work writes, so no one renews or reclaims it."""
    return {"lease_task_id": "", "lease_expires_at": None}


@contextmanager
def lease_heartbeat(
    model: type[LeasedWork], pk: int, task_id: str, *, interval: float | None = None
) -> Iterator[None]:
    """Renews the lease of row ``pk`` every ``interval`` seconds while the block runs.

    A thread of its own, with a database connection of its own (Django's are per
    thread), so the lease stays fresh while the engine or the ingest keeps the
    main thread busy. A failed renewal (the database is down) is logged and tried
    again at the next beat; if the lease lapses meanwhile, the worst case is the
    work running twice, which the tasks are written to allow.
    """
    every = interval if interval is not None else max(1.0, lease_seconds() / 4)
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(every):
                try:
                    model._default_manager.filter(pk=pk, lease_task_id=task_id[:64]).update(
                        lease_expires_at=lease_deadline()
                    )
                except Exception:
                    log.warning("could not renew the lease of %s %s", model.__name__, pk)
                    connection.close()
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"lease-{model.__name__}-{pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=every + 5)
