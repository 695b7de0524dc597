"""A cluster's schedule: its django-celery-beat PeriodicTask, kept in step with its row."""

from __future__ import annotations

import json

from django.db import transaction
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from connected.models import Cluster

TASK_NAME = "connected.cluster_snapshot"


def schedule_sync(cluster: Cluster) -> PeriodicTask:
    """The cluster's PeriodicTask, made or brought in step with its row (beat notices the
    change through django-celery-beat's own change marker). Whether it is enabled stays
    as the admin left it."""
    with transaction.atomic():
        interval, _ = IntervalSchedule.objects.get_or_create(
            every=cluster.schedule_seconds, period=IntervalSchedule.SECONDS
        )
        task = cluster.periodic_task or PeriodicTask()
        task.name = f"snapshot of cluster {cluster.name}"
        task.task = TASK_NAME
        task.interval = interval
        task.args = json.dumps([cluster.pk])
        task.description = f"Reads {cluster.name} ({cluster.source}) into a snapshot."
        task.save()
        if cluster.periodic_task_id != task.pk:
            cluster.periodic_task = task
            Cluster.objects.filter(pk=cluster.pk).update(periodic_task=task)
    return task


def schedule_remove(cluster: Cluster) -> None:
    if cluster.periodic_task_id is not None:
        PeriodicTask.objects.filter(pk=cluster.periodic_task_id).delete()


def schedule_forget(cluster_id: int) -> None:
    """The PeriodicTasks of a cluster that no longer exists."""
    PeriodicTask.objects.filter(task=TASK_NAME, args=json.dumps([cluster_id])).delete()
