"""Celery tasks of the planning app: take an id, load the row, call the service (as
scheduling/tasks.py does for analyses, whose module docstring says how a lost worker or
a lost message is recovered)."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task

from operations.faults import DATABASE_FAULTS, database_retry
from planning import first_in_line as rankings
from planning.models import FirstInLineRanking
from scheduling.constants import AnalysisStatus
from scheduling.tasks import RecordsFailureTask

log = logging.getLogger(__name__)


class FirstInLineRunTask(RecordsFailureTask):
    noun = "ranking"
    id_argument = "ranking_id"

    def row_exists(self, pk: int) -> bool:
        return FirstInLineRanking.objects.filter(pk=pk).exists()

    def record_failure(self, pk: int, error: str) -> None:
        rankings.first_in_line_fail(ranking_id=pk, error=error)


@shared_task(
    base=FirstInLineRunTask,
    bind=True,
    name=rankings.FIRST_IN_LINE_RUN_TASK,
    max_retries=None,  # bounded by PREEMPTLAB_DATABASE_RETRIES in database_retry
)
def first_in_line_run_task(self: Task[Any, Any], ranking_id: int) -> str:
    task_id = str(self.request.id or "")
    try:
        if not FirstInLineRanking.objects.filter(pk=ranking_id).exists():
            log.info("ranking %s was deleted (with its snapshot) before it ran", ranking_id)
            return "gone"
        ranking = rankings.first_in_line_run(ranking_id=ranking_id, task_id=task_id)
    except DATABASE_FAULTS as exc:
        raise database_retry(self, exc) from exc
    if ranking.status == AnalysisStatus.RUNNING and ranking.lease_task_id != task_id[:64]:
        return "busy"  # another live task holds it: this message was a duplicate
    return str(ranking.status)
