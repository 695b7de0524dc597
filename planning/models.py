"""Stored answers of the planning app: a snapshot's first-in-line ranking per probe size
and limit, computed once by a worker and kept with the snapshot.

A ranking takes seconds on a large cluster (one simulated run per priority level), so
the web process never computes one: it finds the row for the parameters, or queues it,
and the page and the API follow the row as they follow an analysis.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from operations.leases import LeasedWork
from scheduling.constants import ACTIVE_STATUSES, AnalysisStatus
from scheduling.engine.plan.first_in_line import FirstInLine


class FirstInLineRanking(LeasedWork):
    """One ranking: the snapshot, the probe's size and the limit are its key."""

    snapshot = models.ForeignKey(
        "clusters.Snapshot", on_delete=models.CASCADE, related_name="first_in_line_rankings"
    )
    cpu_millis = models.BigIntegerField()
    memory_bytes = models.BigIntegerField()
    limit = models.PositiveIntegerField()
    status = models.CharField(
        max_length=16, choices=AnalysisStatus.choices, default=AnalysisStatus.QUEUED
    )
    error = models.TextField(blank=True, default="")
    created = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # Progress while running: probe runs done of those the ranking needs (one per level).
    runs_done = models.PositiveIntegerField(default=0)
    runs_total = models.PositiveIntegerField(default=0)
    engine_seconds = models.FloatField(null=True, blank=True)
    engine_version = models.CharField(max_length=64, blank=True, default="")
    # FirstInLine.to_dict() once done.
    answer = models.JSONField(null=True, blank=True)
    # Who asked: it counts against their unfinished work (scheduling/running/budgets.py). Null:
    # a connected cluster's read queued it (the cluster's own slot, no user's).
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="requested_rankings",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["snapshot", "cpu_millis", "memory_bytes", "limit"],
                name="first_in_line_one_per_question",
            )
        ]
        indexes = [
            # The reconciler's look-ups: queued or running rows, oldest message first.
            models.Index(fields=["status", "enqueued_at"], name="first_in_line_status_enq"),
        ]

    def __str__(self) -> str:
        return (
            f"first in line on {self.snapshot_id}: {self.cpu_millis}m, "
            f"{self.memory_bytes} bytes, limit {self.limit}"
        )

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
    def line(self) -> FirstInLine | None:
        """The typed ranking; None until done."""
        if not self.is_done or self.answer is None:
            return None
        return FirstInLine.from_dict(self.answer)

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__.pop("line", None)
        super().refresh_from_db(*args, **kwargs)
