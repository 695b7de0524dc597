"""Celery tasks of connected clusters: take an id, call the service."""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task

from connected import services
from connected.models import Cluster
from connected.schedule import TASK_NAME, schedule_forget
from operations.faults import DATABASE_FAULTS, database_retry


@shared_task(bind=True, name=TASK_NAME, max_retries=3, ignore_result=True)
def cluster_snapshot_task(self: Task[Any, Any], cluster_id: int) -> None:
    """One read of the cluster (beat sends it on the cluster's schedule; "Take a snapshot
    now" sends it at once). A cluster removed meanwhile is nothing to do, and a schedule
    left behind by it (its owner's account deleted, say) goes."""
    try:
        services.cluster_snapshot_take(cluster_id=cluster_id)
    except Cluster.DoesNotExist:
        schedule_forget(cluster_id)
        return
    except DATABASE_FAULTS as exc:
        raise database_retry(self, exc) from exc
