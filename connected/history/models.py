"""What a connected cluster's history keeps beside its snapshots: the audit's findings and
the pending pods of each (the charts and /metrics read them without running the audit
again), the preemptions its events recorded, and the alerts sent about it."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class SnapshotDigest(models.Model):
    """One snapshot's numbers, worked out once by a worker after it was taken."""

    snapshot = models.OneToOneField(
        "clusters.Snapshot", on_delete=models.CASCADE, primary_key=True, related_name="digest"
    )
    pending_pods = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    warnings = models.PositiveIntegerField(default=0)
    notes = models.PositiveIntegerField(default=0)
    # [{"rule", "severity", "message", "objects"}] as the audit gave them.
    findings = models.JSONField(default=list)
    # Apps the default first-in-line probe reaches within its limit, read once from the
    # stored ranking when it is done (null: not yet).
    first_in_line_reached = models.PositiveIntegerField(null=True, blank=True)
    # Preempted events left out (not kube-scheduler's text, or names no object can have).
    ignored_events = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"digest of snapshot {self.snapshot_id}"


class ObservedPreemption(models.Model):
    """One victim of a preemption that really happened, read from a snapshot's events."""

    cluster = models.ForeignKey(
        "connected.Cluster", on_delete=models.CASCADE, related_name="preemptions"
    )
    # The snapshot whose events recorded it first. Kept when retention deletes it: the
    # preemption happened all the same (and /metrics counts it, a counter never falls).
    snapshot = models.ForeignKey(
        "clusters.Snapshot",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="observed_preemptions",
    )
    victim = models.CharField(max_length=507)
    victim_uid = models.CharField(max_length=128, blank=True, default="")
    preemptor = models.CharField(max_length=507, blank=True, default="")
    preemptor_uid = models.CharField(max_length=128)
    node = models.CharField(max_length=253)
    at = models.DateTimeField(null=True, blank=True)
    victim_class = models.CharField(max_length=253, blank=True, default="")
    victim_priority = models.IntegerField(null=True, blank=True)
    # Explain: the what-if of the preemptor on the snapshot before it.
    explanation = models.ForeignKey(
        "scheduling.Analysis", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Who asked Explain, and the verdict once its what-if was done: kept here, so the
    # verdict outlives the what-if and its snapshot (connected/explain.py).
    explained_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    verdict_matches = models.BooleanField(null=True, blank=True)
    verdict_said = models.TextField(blank=True, default="")
    verdict_differences = models.JSONField(default=list, blank=True)
    verdict_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-at", "victim")
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "victim", "victim_uid", "preemptor_uid"],
                name="observed_preemption_once",
            )
        ]
        indexes = [models.Index(fields=["cluster", "at"], name="observed_preemption_at")]

    def __str__(self) -> str:
        return f"{self.victim} preempted by {self.preemptor or self.preemptor_uid} on {self.node}"


class DeletedSnapshot(models.Model):
    """A snapshot of the cluster that was deleted (by retention or by a user): Explain
    says the snapshot before a preemption was deleted, and when, instead of that none
    was ever taken."""

    # No database constraint: the record is written while the snapshot is deleted, which
    # may be in the very deletion of its cluster's owner (and so of the cluster);
    # cluster_delete removes a cluster's records itself.
    cluster = models.ForeignKey(
        "connected.Cluster",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="deleted_snapshots",
    )
    snapshot_id = models.BigIntegerField()
    name = models.CharField(max_length=200)
    taken_at = models.DateTimeField()
    deleted_at = models.DateTimeField(default=timezone.now)
    # Deleted by the cluster's retention (else by a user, or with its owner's account).
    by_retention = models.BooleanField(default=False)

    class Meta:
        ordering = ("-taken_at", "-id")
        indexes = [models.Index(fields=["cluster", "taken_at"], name="deleted_snapshot_taken")]

    def __str__(self) -> str:
        return f"{self.name} (deleted {self.deleted_at:%Y-%m-%d %H:%M})"


class AlertDelivery(models.Model):
    """One alert to one webhook: what was sent, and how the receiver answered."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        SENT = "sent"
        FAILED = "failed"

    cluster = models.ForeignKey(
        "connected.Cluster", on_delete=models.CASCADE, related_name="alerts"
    )
    # The rule's kind: "preemption" | "pdb-at-zero" | "finding" | "unreadable"
    kind = models.CharField(max_length=32)
    # What makes it the same alert (never sent twice to one receiver).
    key = models.CharField(max_length=500)
    url = models.TextField()
    text = models.TextField()
    payload = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    created = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created", "-id")
        constraints = [
            models.UniqueConstraint(fields=["cluster", "kind", "key", "url"], name="alert_once")
        ]

    def __str__(self) -> str:
        return f"{self.kind} alert about {self.cluster_id}"

    @property
    def receiver(self) -> str:
        """The receiver's host: a webhook's path often is its secret."""
        from urllib.parse import urlsplit

        return urlsplit(self.url).netloc or "?"
