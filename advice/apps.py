"""The advice app: how to avoid what a what-if's answer does (DESIGN.md, flow 9)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.apps import AppConfig
from django.db.models import QuerySet


def _queued() -> QuerySet[Any]:
    from advice.models import Advice
    from scheduling.constants import AnalysisStatus

    return Advice.objects.filter(status=AnalysisStatus.QUEUED)


def _expired(now: datetime) -> QuerySet[Any]:
    from advice.models import Advice
    from scheduling.constants import AnalysisStatus

    return Advice.objects.filter(status=AnalysisStatus.RUNNING, lease_expires_at__lt=now)


def _requeue(now: datetime) -> dict[str, Any]:
    from operations.leases import lease_release_fields
    from scheduling.constants import AnalysisStatus

    return {"status": AnalysisStatus.QUEUED, **lease_release_fields()}


def _publish(pk: int) -> None:
    from advice.services import advice_publish

    advice_publish(pk)


class AdviceConfig(AppConfig):
    name = "advice"
    verbose_name = "Advice"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A worker that dies mid-search, or a lost message, is repaired as for analyses.
        from operations.reconciler import DurableWork, durable_work_register

        durable_work_register(
            DurableWork(
                name="advice",
                queued=_queued,
                expired=_expired,
                requeue=_requeue,
                publish=_publish,
            )
        )
