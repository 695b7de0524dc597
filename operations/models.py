"""What the operations app keeps in the database: the workers' heartbeats (/readyz)."""

from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """A worker's main process writes its row every PREEMPTLAB_HEARTBEAT_SECONDS
    (operations/heartbeat.py); /readyz asks whether any row is fresh."""

    worker = models.CharField(max_length=255, primary_key=True)
    seen_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.worker} at {self.seen_at:%Y-%m-%d %H:%M:%S}"
