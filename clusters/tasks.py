"""Celery tasks: take an id, load the row, call the service."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task

from clusters import models, services

log = logging.getLogger(__name__)


class SnapshotIngestTask(Task[Any, Any]):
    """Records any unexpected failure on the snapshot, so its page stops waiting."""

    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        snapshot_id = args[0] if args else kwargs.get("snapshot_id")
        snapshot = models.Snapshot.objects.filter(pk=snapshot_id).first()
        if snapshot is None or not snapshot.is_ingesting:
            return
        services.snapshot_fail(
            snapshot=snapshot,
            error=f"The ingest stopped unexpectedly ({type(exc).__name__}: {exc}). "
            "Nothing was stored; upload the files again.",
        )


@shared_task(base=SnapshotIngestTask, name="clusters.snapshot_ingest")
def snapshot_ingest_task(snapshot_id: int) -> str:
    snapshot = models.Snapshot.objects.filter(pk=snapshot_id).first()
    if snapshot is None:
        log.info("snapshot %s was deleted before its ingest ran", snapshot_id)
        return "gone"
    services.snapshot_ingest(snapshot=snapshot)
    return snapshot.status
