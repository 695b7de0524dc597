"""Celery task of the advice app: take an id, load the row, call the service (as
scheduling/tasks.py does for analyses, whose module docstring says how a lost worker or
a lost message is recovered)."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from celery.exceptions import Reject

from advice import services
from advice.models import Advice
from operations.faults import DATABASE_FAULTS, database_retry
from scheduling.constants import AnalysisStatus
from scheduling.running.budgets import worker_stopping
from scheduling.tasks import RecordsFailureTask

log = logging.getLogger(__name__)


class AdviceRunTask(RecordsFailureTask):
    noun = "advice"
    id_argument = "advice_id"

    def row_exists(self, pk: int) -> bool:
        return Advice.objects.filter(pk=pk).exists()

    def record_failure(self, pk: int, error: str) -> None:
        services.advice_fail(advice_id=pk, error=error)


@shared_task(
    base=AdviceRunTask,
    bind=True,
    name=services.ADVICE_RUN_TASK,
    max_retries=None,  # bounded by PREEMPTLAB_DATABASE_RETRIES in database_retry
)
def advice_run_task(self: Task[Any, Any], advice_id: int) -> str:
    task_id = str(self.request.id or "")
    if worker_stopping():
        # Taken while the worker shuts down: back to the broker for the next worker.
        raise Reject("the worker is shutting down", requeue=True)
    try:
        if not Advice.objects.filter(pk=advice_id).exists():
            log.info("advice %s was deleted (with its analysis) before it ran", advice_id)
            return "gone"
        advice = services.advice_run(advice_id=advice_id, task_id=task_id)
    except DATABASE_FAULTS as exc:
        raise database_retry(self, exc) from exc
    if advice.status == AnalysisStatus.RUNNING and advice.lease_task_id != task_id[:64]:
        return "busy"  # another live task holds it: this message was a duplicate
    return str(advice.status)
