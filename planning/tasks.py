"""Celery tasks of the planning app: take an id, load the row, call the service (as
scheduling/tasks.py does for analyses, whose module docstring says how a lost worker or
a lost message is recovered)."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task

from config.faults import DATABASE_FAULTS, database_retry, is_database_fault
from planning import first_in_line as rankings
from planning.models import FirstInLineRanking
from scheduling.constants import AnalysisStatus
from scheduling.tasks import failure_message

log = logging.getLogger(__name__)


class FirstInLineRunTask(Task[Any, Any]):
    """Records any unexpected failure on the ranking, so its page stops waiting (a
    database that stayed down is left to the lease and the reconciler)."""

    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        if is_database_fault(exc):
            log.warning(
                "ranking task %s gave up on the database; the reconciler takes over", task_id
            )
            return
        ranking_id = args[0] if args else kwargs.get("ranking_id")
        try:
            if ranking_id is None or not FirstInLineRanking.objects.filter(pk=ranking_id).exists():
                return
            reference = task_id[:8] or "unknown"
            log.error(
                "ranking task %s (reference %s) failed",
                task_id,
                reference,
                exc_info=(type(exc), exc, exc.__traceback__),
            )
            rankings.first_in_line_fail(
                ranking_id=ranking_id, error=failure_message(exc, reference)
            )
        except DATABASE_FAULTS:
            log.warning("could not record the failure of ranking %s", ranking_id)


@shared_task(
    base=FirstInLineRunTask,
    bind=True,
    name="planning.first_in_line_run",
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
