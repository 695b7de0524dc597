"""The analyses app: what-if runs of a pod on a snapshot, their results and share links."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.apps import AppConfig
from django.db.models import Q, QuerySet


def _queued() -> QuerySet[Any]:
    from scheduling.constants import AnalysisStatus
    from scheduling.models import Analysis

    return Analysis.objects.filter(status=AnalysisStatus.QUEUED)


def _expired(now: datetime) -> QuerySet[Any]:
    from operations.leases import lease_seconds
    from scheduling.constants import AnalysisStatus
    from scheduling.models import Analysis

    # A running row without a lease was started before leases existed: give it one lease's time.
    legacy = now - timedelta(seconds=lease_seconds())
    return Analysis.objects.filter(status=AnalysisStatus.RUNNING).filter(
        Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True, started_at__lt=legacy)
    )


def _requeue(now: datetime) -> dict[str, Any]:
    from operations.leases import lease_release_fields
    from scheduling.constants import AnalysisStatus

    return {"status": AnalysisStatus.QUEUED, **lease_release_fields()}


def _publish(pk: int) -> None:
    from scheduling.services import analysis_publish

    analysis_publish(pk)


class SchedulingConfig(AppConfig):
    name = "scheduling"
    verbose_name = "What-if analyses"

    def ready(self) -> None:
        from operations.reconciler import DurableWork, durable_work_register

        durable_work_register(
            DurableWork(
                name="analyses",
                queued=_queued,
                expired=_expired,
                requeue=_requeue,
                publish=_publish,
            )
        )
