"""The planning app: priority plans of a snapshot and answers compared side by side."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.apps import AppConfig
from django.db.models import QuerySet


def _queued() -> QuerySet[Any]:
    from planning.models import FirstInLineRanking
    from scheduling.constants import AnalysisStatus

    return FirstInLineRanking.objects.filter(status=AnalysisStatus.QUEUED)


def _expired(now: datetime) -> QuerySet[Any]:
    from planning.models import FirstInLineRanking
    from scheduling.constants import AnalysisStatus

    return FirstInLineRanking.objects.filter(
        status=AnalysisStatus.RUNNING, lease_expires_at__lt=now
    )


def _requeue(now: datetime) -> dict[str, Any]:
    from operations.leases import lease_release_fields
    from scheduling.constants import AnalysisStatus

    return {"status": AnalysisStatus.QUEUED, **lease_release_fields()}


def _publish(pk: int) -> None:
    from planning.first_in_line import first_in_line_publish

    first_in_line_publish(pk)


class PlanningConfig(AppConfig):
    name = "planning"
    verbose_name = "Priority planning"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A worker that dies mid-ranking, or a lost message, is repaired as for analyses.
        from operations.reconciler import DurableWork, durable_work_register

        durable_work_register(
            DurableWork(
                name="first-in-line rankings",
                queued=_queued,
                expired=_expired,
                requeue=_requeue,
                publish=_publish,
            )
        )
