"""A cluster the workers read on a schedule into ordinary snapshots.

No credential is kept here: `source` names a context of the worker's own
kubeconfig, or `in-cluster` (the pod's ServiceAccount, as kubectl finds it).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models
from django.urls import reverse

from connected.every import format_every

# The source that reads the cluster the worker runs in, with its ServiceAccount.
IN_CLUSTER = "in-cluster"


class Cluster(models.Model):
    name = models.SlugField(max_length=63, unique=True)
    # A context of the worker's kubeconfig, or IN_CLUSTER.
    source = models.CharField(max_length=253)
    # Seconds between two snapshots (the PeriodicTask follows it).
    schedule_seconds = models.PositiveIntegerField(default=15 * 60)
    # Retention: the newest `keep` snapshots, and one a day for 30 days.
    keep = models.PositiveIntegerField(default=96)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="connected_clusters"
    )
    # Members of the team read the cluster and its snapshots and ask what-ifs on them.
    team = models.ForeignKey(
        Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="connected_clusters"
    )
    # ["https://hooks.example/...", ...]: where alerts about the cluster are sent.
    webhook_urls = models.JSONField(default=list, blank=True)
    # ["preemption>=1000000000", "pdb-at-zero", ...] (connected/alert_rules.py); null: the
    # defaults.
    alert_rules = models.JSONField(null=True, blank=True, default=None)
    # Signs every alert POST (connected/signing.py). Generated when the cluster is
    # defined, shown once to staff, never shown again.
    webhook_secret = models.CharField(max_length=256, blank=True, default="", editable=False)
    # The database-stored schedule that takes its snapshots (kept in step on save).
    periodic_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="connected_cluster",
        editable=False,
    )
    created = models.DateTimeField(auto_now_add=True)
    # A read under way since (null: none): the page shows progress while it is set.
    reading_since = models.DateTimeField(null=True, blank=True, editable=False)
    last_success_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_failure_at = models.DateTimeField(null=True, blank=True, editable=False)
    # When someone last asked for a read now ("Take a snapshot now"): at most one a
    # minute, and none while one is under way or waiting for a worker (connected/take_now.py).
    read_requested_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Why the last attempt failed ("forbidden: list events", "timed out after 60 s", ...).
    last_failure_reason = models.TextField(blank=True, default="", editable=False)

    class Meta:
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("connected:cluster-detail", args=[self.pk])

    @property
    def every(self) -> str:
        """The schedule in words ("15m")."""
        return format_every(self.schedule_seconds)

    @property
    def in_cluster(self) -> bool:
        return self.source == IN_CLUSTER

    @property
    def failing(self) -> bool:
        """The last attempt failed (after the last success, if any)."""
        if self.last_failure_at is None:
            return False
        return self.last_success_at is None or self.last_failure_at > self.last_success_at


# What the history, the drift, the alerts and /metrics keep (connected/history/services.py).
from connected.history.models import (  # noqa: E402
    AlertDelivery,
    DeletedSnapshot,
    ObservedPreemption,
    SnapshotDigest,
)

__all__ = [
    "IN_CLUSTER",
    "AlertDelivery",
    "Cluster",
    "DeletedSnapshot",
    "ObservedPreemption",
    "SnapshotDigest",
]
