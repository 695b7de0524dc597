"""Celery tasks: take an id, load the row, call the service.

The database row is the truth; a message only wakes a worker up. acks_late
and reject_on_worker_lost are set globally: a pool process that dies mid-run
leaves its message unacknowledged, the broker hands the same message back at
once, and the task (same id) takes the row over. A whole worker that dies
stops renewing its lease, and the reconciler (operations/reconciler.py) sends a new
message once the lease has expired. A task that loses the database retries
with backoff instead of being acknowledged as done. A worker asked to stop
(SIGTERM) stops its running analysis within seconds and queues it again
(config/celery.py, scheduling/running/budgets.py).
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from celery.exceptions import Reject, SoftTimeLimitExceeded

from operations.faults import DATABASE_FAULTS, database_retry, is_database_fault
from scheduling import services
from scheduling.constants import ANALYSIS_RUN_TASK, AnalysisStatus
from scheduling.models import Analysis
from scheduling.running.budgets import worker_stopping

log = logging.getLogger(__name__)


def failure_message(exc: BaseException, reference: str, noun: str = "analysis") -> str:
    """What the page says of work that failed, naming the work (an analysis, its advice, a
    ranking) so an advice that failed is not reported as a failed analysis."""
    if isinstance(exc, SoftTimeLimitExceeded):
        return (
            f"The {noun} took longer than the worker's time limit and was stopped. "
            "Try again; if it keeps happening the snapshot may be too large for one worker."
        )
    # The exception's own text names code and data: the log keeps it under the reference.
    return (
        f"The {noun} stopped unexpectedly (reference {reference}). This is a bug in "
        "preemptlab, not in your pod; run it again, or give the reference to whoever runs "
        "preemptlab."
    )


class RecordsFailureTask(Task[Any, Any]):
    """A task over one row of leased work that records any unexpected failure on the row,
    so its page stops waiting.

    A database that stayed down through every retry is not recorded (it cannot be): the
    lease then lapses and the reconciler queues the work again. A subclass names the
    work (``noun``, the task's ``id_argument``) and says whether the row is still there
    and how a failure is recorded.
    """

    noun = "work"
    id_argument = "id"

    def row_exists(self, pk: int) -> bool:
        raise NotImplementedError

    def record_failure(self, pk: int, error: str) -> None:
        raise NotImplementedError

    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        if is_database_fault(exc):
            log.warning(
                "%s task %s gave up on the database; the reconciler takes over",
                self.noun,
                task_id,
            )
            return
        pk = args[0] if args else kwargs.get(self.id_argument)
        try:
            if pk is None or not self.row_exists(pk):
                return
            reference = task_id[:8] or "unknown"
            log.error(
                "%s task %s (reference %s) failed",
                self.noun,
                task_id,
                reference,
                exc_info=(type(exc), exc, exc.__traceback__),
            )
            self.record_failure(pk, failure_message(exc, reference, self.noun))
        except DATABASE_FAULTS:
            log.warning("could not record the failure of %s %s", self.noun, pk)


class AnalysisRunTask(RecordsFailureTask):
    noun = "analysis"
    id_argument = "analysis_id"

    def row_exists(self, pk: int) -> bool:
        return Analysis.objects.filter(pk=pk).exists()

    def record_failure(self, pk: int, error: str) -> None:
        services.analysis_fail(analysis_id=pk, error=error)


@shared_task(
    base=AnalysisRunTask,
    bind=True,
    name=ANALYSIS_RUN_TASK,
    max_retries=None,  # bounded below by PREEMPTLAB_DATABASE_RETRIES
)
def analysis_run_task(self: Task[Any, Any], analysis_id: int) -> str:
    task_id = str(self.request.id or "")
    if worker_stopping():
        # Taken while the worker shuts down: back to the broker for the next worker.
        raise Reject("the worker is shutting down", requeue=True)
    try:
        if not Analysis.objects.filter(pk=analysis_id).exists():
            log.info("analysis %s was deleted before it ran", analysis_id)
            return "gone"
        analysis = services.analysis_run(analysis_id=analysis_id, task_id=task_id)
    except DATABASE_FAULTS as exc:
        raise database_retry(self, exc) from exc
    if analysis.status == AnalysisStatus.RUNNING and analysis.lease_task_id != task_id[:64]:
        return "busy"  # another live task holds it: this message was a duplicate
    return str(analysis.status)
