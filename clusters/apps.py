"""The snapshots app: uploads, their ingest, and the rows the pages browse."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.db.models import QuerySet


def _ingesting() -> QuerySet[Any]:
    from clusters.constants import SnapshotStatus
    from clusters.models import Snapshot

    return Snapshot.objects.filter(status=SnapshotStatus.INGESTING)


def _queued() -> QuerySet[Any]:
    # Queued for a worker (it has a message) and not yet claimed by one.
    return _ingesting().filter(enqueued_at__isnull=False, lease_expires_at__isnull=True)


def _expired(now: datetime) -> QuerySet[Any]:
    return _ingesting().filter(lease_expires_at__lt=now)


def _requeue(now: datetime) -> dict[str, Any]:
    from operations.leases import lease_release_fields

    return {**lease_release_fields(), "progress_note": "Waiting for a worker (queued again)"}


def _publish(pk: int) -> None:
    from clusters.services import snapshot_publish

    snapshot_publish(pk)


def _abandon(now: datetime) -> int:
    """Snapshots ingested inside a request whose web process died mid-ingest: no message
    will ever run them and their files are gone with the request."""
    from clusters.constants import SnapshotStatus

    cutoff = now - timedelta(seconds=int(settings.PREEMPTLAB_ORPHAN_INGEST_SECONDS))
    return (
        _ingesting()
        .filter(enqueued_at__isnull=True, created__lt=cutoff)
        .update(
            status=SnapshotStatus.FAILED,
            error="The ingest was interrupted (the web process stopped) and nothing was "
            "stored; upload the files again.",
            progress=0,
            progress_note="",
        )
    )


def _drop_pods(sender: Any, instance: Any, using: str, **kwargs: Any) -> None:
    """A snapshot's pods go with their partition's table, not row by row."""
    from django.db import connections

    from clusters.pod_partitions import drop_partition

    drop_partition(instance.pk, connections[using])


class ClustersConfig(AppConfig):
    name = "clusters"
    verbose_name = "Cluster snapshots"

    def ready(self) -> None:
        from django.db.models.signals import pre_delete

        from clusters.models import Snapshot
        from operations.reconciler import DurableWork, durable_work_register

        pre_delete.connect(_drop_pods, sender=Snapshot, dispatch_uid="clusters.drop_pods")

        durable_work_register(
            DurableWork(
                name="ingests",
                queued=_queued,
                expired=_expired,
                requeue=_requeue,
                publish=_publish,
                abandon=_abandon,
            )
        )
