"""Celery tasks: take an id, load the row, call the service.

acks_late and reject_on_worker_lost are set globally: a worker that dies
mid-run leaves the message unacknowledged, the broker hands it to a worker
again, and analysis_run (idempotent) simply runs the analysis again.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from scheduling import services
from scheduling.models import Analysis

log = logging.getLogger(__name__)


def failure_message(exc: BaseException) -> str:
    if isinstance(exc, SoftTimeLimitExceeded):
        return (
            "The analysis took longer than the worker's time limit and was stopped. "
            "Try again; if it keeps happening the snapshot may be too large for one worker."
        )
    return (
        f"The analysis stopped unexpectedly ({type(exc).__name__}: {exc}). "
        "This is a bug in preemptlab, not in your pod; run it again or report it."
    )


class AnalysisRunTask(Task[Any, Any]):
    """Records any unexpected failure on the analysis, so its page stops waiting."""

    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        analysis_id = args[0] if args else kwargs.get("analysis_id")
        if analysis_id is None or not Analysis.objects.filter(pk=analysis_id).exists():
            return
        services.analysis_fail(analysis_id=analysis_id, error=failure_message(exc))


@shared_task(base=AnalysisRunTask, name="scheduling.analysis_run")
def analysis_run_task(analysis_id: int) -> str:
    if not Analysis.objects.filter(pk=analysis_id).exists():
        log.info("analysis %s was deleted before it ran", analysis_id)
        return "gone"
    return str(services.analysis_run(analysis_id=analysis_id).status)
