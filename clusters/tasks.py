"""Celery tasks: take an id, load the row, call the service (see scheduling/tasks.py
for how messages, leases and the reconciler keep the work from being lost)."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task

from clusters import models, services
from clusters.constants import SNAPSHOT_INGEST_TASK
from operations.faults import DATABASE_FAULTS, database_retry, is_database_fault

log = logging.getLogger(__name__)


class SnapshotIngestTask(Task[Any, Any]):
    """Records any unexpected failure on the snapshot, so its page stops waiting."""

    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        if is_database_fault(exc):
            log.warning(
                "ingest task %s gave up on the database; the reconciler takes over", task_id
            )
            return
        snapshot_id = args[0] if args else kwargs.get("snapshot_id")
        try:
            snapshot = models.Snapshot.objects.filter(pk=snapshot_id).first()
            if snapshot is None or not snapshot.is_ingesting:
                return
            # The exception's own text names code and columns: the log keeps it, the page
            # shows its reference.
            log.error(
                "ingest task %s failed", task_id, exc_info=(type(exc), exc, exc.__traceback__)
            )
            reference = task_id[:8] or "unknown"
            services.snapshot_fail(
                snapshot=snapshot, error=services.unexpected_ingest_error(reference)
            )
        except DATABASE_FAULTS:
            log.warning("could not record the failure of snapshot %s", snapshot_id)


@shared_task(base=SnapshotIngestTask, bind=True, name=SNAPSHOT_INGEST_TASK, max_retries=None)
def snapshot_ingest_task(self: Task[Any, Any], snapshot_id: int) -> str:
    try:
        snapshot = models.Snapshot.objects.filter(pk=snapshot_id).first()
        if snapshot is None:
            log.info("snapshot %s was deleted before its ingest ran", snapshot_id)
            return "gone"
        services.snapshot_ingest(snapshot=snapshot, task_id=str(self.request.id or ""))
    except DATABASE_FAULTS as exc:
        raise database_retry(self, exc) from exc
    return snapshot.status
