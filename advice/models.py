"""The advice stored with an analysis: one row per analysis, computed by a worker.

Advice re-runs the engine many times (each single change proven, and one step less of it),
so the web process never computes it: ``advice/services.py`` queues the row, a Celery
task claims it under a lease (as an analysis is claimed; the reconciler queues it again
when its worker dies), writes the engine runs done as it goes, and stores the answer.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from operations.leases import LeasedWork
from scheduling.constants import ACTIVE_STATUSES, AnalysisStatus
from scheduling.engine.advice import Advice as EngineAdvice


class Advice(LeasedWork):
    """How to avoid what one analysis' answer does: the row follows its analysis (deleted
    with it) and is computed once per engine version."""

    analysis = models.OneToOneField(
        "scheduling.Analysis", on_delete=models.CASCADE, related_name="advice"
    )
    status = models.CharField(
        max_length=16, choices=AnalysisStatus.choices, default=AnalysisStatus.QUEUED
    )
    error = models.TextField(blank=True, default="")
    created = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # Progress while running: the engine runs made so far (the question's own first).
    runs_done = models.PositiveIntegerField(default=0)
    load_seconds = models.FloatField(null=True, blank=True)
    engine_seconds = models.FloatField(null=True, blank=True)
    engine_version = models.CharField(max_length=64, blank=True, default="")
    # The whole advice budget was spent before every kind was searched.
    stopped_early = models.BooleanField(default=False)
    # scheduling.engine.advice.Advice.to_dict() once done: the contract, then the notes
    # and what the search cost.
    answer = models.JSONField(null=True, blank=True)
    # Who asked: it counts against their unfinished work (scheduling/running/budgets.py).
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="requested_advice",
    )

    class Meta:
        verbose_name_plural = "advice"
        indexes = [
            # The reconciler's look-ups: queued or running rows, oldest message first.
            models.Index(fields=["status", "enqueued_at"], name="advice_status_enqueued"),
        ]

    def __str__(self) -> str:
        return f"advice on analysis {self.analysis_id}"

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    @property
    def is_done(self) -> bool:
        return self.status == AnalysisStatus.DONE

    @property
    def is_failed(self) -> bool:
        return self.status == AnalysisStatus.FAILED

    @cached_property
    def advice(self) -> EngineAdvice | None:
        """The typed advice; None until done."""
        if not self.is_done or self.answer is None:
            return None
        return EngineAdvice.from_dict(self.answer)

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__.pop("advice", None)
        super().refresh_from_db(*args, **kwargs)
