"""Writes: define, change and remove connected clusters; take their snapshots; keep the
retention. The admin, the API, the command and the Celery task all go through these."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from clusters.constants import SnapshotStatus
from clusters.models import Snapshot
from clusters.services import SnapshotRejected, snapshot_create, snapshot_delete
from connected import alerts
from connected.alert_rules import RuleInvalid, parse_rules
from connected.models import IN_CLUSTER, Cluster, DeletedSnapshot
from connected.reading import cluster_read, kubeconfig_contexts
from connected.schedule import TASK_NAME, schedule_remove, schedule_sync
from connected.signing import SECRET_MIN_CHARS, new_secret
from connected.webhooks import webhook_urls_refusal
from operations.faults import is_database_fault, publish
from operations.incidents import record_incident
from operations.throttling import Busy
from preemptlab.kube import KubeError

log = logging.getLogger(__name__)

# Retention beside the newest `keep`: the newest snapshot of each of these last days
# (both counted among the snapshots not in use; see in_use).
DAILY_DAYS = 30
# A failure's reason is kept to this many characters (kubectl may quote what it read).
REASON_CHARS = 1000


class ClusterInvalid(Exception):
    """A cluster definition refused: the field and why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def cluster_check(cluster: Cluster) -> None:
    if not cluster.source.strip() or any(c.isspace() for c in cluster.source):
        raise ClusterInvalid("source", "Name a kubeconfig context of the workers, or in-cluster.")
    if cluster.schedule_seconds < 1:
        raise ClusterInvalid("schedule_seconds", "The schedule is at least one second.")
    if cluster.keep < 1:
        raise ClusterInvalid("keep", "Keep at least one snapshot.")
    urls = cluster.webhook_urls
    if not isinstance(urls, list) or not all(
        isinstance(u, str) and u.startswith(("http://", "https://")) for u in urls
    ):
        raise ClusterInvalid("webhook_urls", "Webhooks are a list of http(s) URLs.")
    refused = webhook_urls_refusal(urls)
    if refused is not None:
        raise ClusterInvalid("webhook_urls", refused)
    try:
        if cluster.alert_rules is not None:
            if not isinstance(cluster.alert_rules, list):
                raise RuleInvalid("Alert rules are a list of rules, or null for the defaults.")
            cluster.alert_rules = [str(r) for r in parse_rules(cluster.alert_rules)]
    except RuleInvalid as err:
        raise ClusterInvalid("alert_rules", str(err)) from None
    if cluster.webhook_secret and len(cluster.webhook_secret) < SECRET_MIN_CHARS:
        raise ClusterInvalid(
            "webhook_secret",
            f"A webhook secret holds at least {SECRET_MIN_CHARS} characters "
            "(or let one be generated).",
        )
    others = Cluster.objects.filter(name=cluster.name).exclude(pk=cluster.pk)
    if others.exists():
        raise ClusterInvalid("name", f'A cluster named "{cluster.name}" exists already.')


def cluster_save(cluster: Cluster) -> Cluster:
    """Stores a new or changed cluster and keeps its schedule in step. A cluster without
    a webhook secret gets one (read it from the cluster before it is shown no more)."""
    cluster_check(cluster)
    if not cluster.webhook_secret:
        cluster.webhook_secret = new_secret()
    with transaction.atomic():
        cluster.save()
        schedule_sync(cluster)
    return cluster


def cluster_create(
    *,
    name: str,
    source: str,
    owner: Any,
    schedule_seconds: int = 15 * 60,
    keep: int = 96,
    team: Any = None,
    webhook_urls: Sequence[str] = (),
    alert_rules: Sequence[str] | None = None,
    webhook_secret: str = "",
) -> Cluster:
    cluster = Cluster(
        name=name,
        source=source,
        owner=owner,
        schedule_seconds=schedule_seconds,
        keep=keep,
        team=team,
        webhook_urls=list(webhook_urls),
        alert_rules=None if alert_rules is None else list(alert_rules),
        webhook_secret=webhook_secret,
    )
    return cluster_save(cluster)


def context_check(source: str) -> None:
    """A kubeconfig context must be one of the workers' kubeconfig (CONNECTED_KUBECONFIG,
    else kubectl's own default); ClusterInvalid naming those there. Nothing is checked
    for in-cluster, or where kubectl cannot list them (said by the caller's first read)."""
    if source == IN_CLUSTER:
        return
    contexts = kubeconfig_contexts()
    if contexts is None or source in contexts:
        return
    where = settings.CONNECTED_KUBECONFIG or "kubectl's default kubeconfig"
    there = ", ".join(contexts) if contexts else "none"
    raise ClusterInvalid(
        "source", f'No context "{source}" in {where}; its contexts: {there} (or in-cluster).'
    )


def cluster_delete(*, cluster: Cluster) -> None:
    """Removes the cluster and its schedule; its snapshots stay, as ordinary ones."""
    with transaction.atomic():
        schedule_remove(cluster)
        DeletedSnapshot.objects.filter(cluster_id=cluster.pk).delete()
        cluster.delete()


# -- taking snapshots -------------------------------------------------------------------


def cluster_snapshot_request(*, cluster: Cluster) -> None:
    """Queues a read now ("Take a snapshot now"); BrokerUnavailable when it cannot."""
    publish(TASK_NAME, cluster.pk)


def _claim(cluster_id: int, now: datetime) -> bool:
    """Marks a read under way; False when another is (a read older than the task time
    limit is one that died, and is taken over)."""
    stale = now - timedelta(seconds=int(settings.CELERY_TASK_TIME_LIMIT))
    free = Q(reading_since__isnull=True) | Q(reading_since__lt=stale)
    return bool(Cluster.objects.filter(free, pk=cluster_id).update(reading_since=now))


def cluster_snapshot_take(*, cluster_id: int) -> Snapshot | None:
    """Reads the cluster into a new snapshot owned by its owner, then applies the
    retention. A read that fails records why on the cluster and stores nothing: no
    snapshot is deleted or replaced. None when it failed or another read is under way;
    Cluster.DoesNotExist when the cluster is gone."""
    now = timezone.now()
    if not _claim(cluster_id, now):
        if not Cluster.objects.filter(pk=cluster_id).exists():
            raise Cluster.DoesNotExist(f"cluster {cluster_id} was removed")
        log.info("cluster %s is being read already", cluster_id)
        return None
    cluster = Cluster.objects.select_related("owner").get(pk=cluster_id)
    try:
        snapshot = _take(cluster, now)
    except (KubeError, SnapshotRejected, Busy) as err:
        cluster_failed(cluster, str(err), at=now)
        return None
    except Exception as exc:
        if is_database_fault(exc):
            Cluster.objects.filter(pk=cluster.pk).update(reading_since=None)
            raise
        reference = record_incident("snapshot of cluster %s", cluster.pk)
        cluster_failed(cluster, f"an unexpected error (reference {reference})", at=now)
        return None
    # A success clears the last failure's reason: it no longer says how the cluster is.
    Cluster.objects.filter(pk=cluster.pk).update(
        reading_since=None, last_success_at=timezone.now(), last_failure_reason=""
    )
    cluster_retention_apply(cluster=cluster)
    alerts.after_snapshot(snapshot)
    return snapshot


def _take(cluster: Cluster, now: datetime) -> Snapshot:
    with tempfile.TemporaryDirectory(prefix="preemptlab-cluster-") as tmp:
        read = cluster_read(cluster, Path(tmp), now=now)
    # A team's cluster's snapshots are the team's: its members read them.
    fields: dict[str, Any] = {"cluster": cluster, "team": cluster.team, "events": read.events}
    if read.preset:
        fields |= {
            "scheduler_preset": read.preset,
            "scheduler_origin": f"OpenShift's Scheduler profile ({read.preset})",
        }
    snapshot = snapshot_create(
        owner=cluster.owner,
        name=f"{cluster.name} {timezone.localtime(now):%Y-%m-%d %H:%M:%S}",
        files=read.files,
        run_async=False,  # this is the worker already
        fields=fields,
    )
    # When it was read, not its objects' latest timestamp: the cluster's history runs on it.
    snapshot.taken_at = now
    # What the cluster would not give (no resource.k8s.io/v1, a role without storage):
    # its what-ifs ignore those objects, and the snapshot says so.
    snapshot.warnings = list(snapshot.warnings) + [
        f"Left out of the read, so what-ifs on this snapshot ignore them: {line}"
        for line in read.left_out
    ]
    Snapshot.objects.filter(pk=snapshot.pk).update(taken_at=now, warnings=snapshot.warnings)
    return snapshot


def cluster_failed(cluster: Cluster, reason: str, *, at: datetime) -> None:
    reason = reason.replace("\x00", "")[:REASON_CHARS]
    log.warning("cluster %s could not be read: %s", cluster.name, reason)
    cluster.last_failure_at, cluster.last_failure_reason, cluster.reading_since = at, reason, None
    Cluster.objects.filter(pk=cluster.pk).update(
        last_failure_at=at, last_failure_reason=reason, reading_since=None
    )


# -- retention ---------------------------------------------------------------------------


def retained(taken: Sequence[tuple[int, datetime]], *, keep: int, now: datetime) -> set[int]:
    """Of (id, taken_at) pairs, the ids kept: the newest ``keep``, and the newest of each
    day of the last DAILY_DAYS days."""
    newest_first = sorted(taken, key=lambda pair: (pair[1], pair[0]), reverse=True)
    kept = {pk for pk, _ in newest_first[:keep]}
    since = now - timedelta(days=DAILY_DAYS)
    days: set[Any] = set()
    for pk, at in newest_first:
        day = timezone.localtime(at).date()
        if at >= since and day not in days:
            days.add(day)
            kept.add(pk)
    return kept


def in_use(snapshots: QuerySet[Snapshot], *, now: datetime) -> set[int]:
    """Of ``snapshots``, the ids retention never deletes: pinned ones, and those holding
    work people still use, younger than PREEMPTLAB_RETENTION_IN_USE_DAYS: an analysis
    (Explain's what-ifs are analyses too), advice, or a share link not revoked."""
    from advice.models import Advice
    from scheduling.models import Analysis, ShareLink

    since = now - timedelta(days=int(settings.PREEMPTLAB_RETENTION_IN_USE_DAYS))
    ids = snapshots.values("pk")
    held = set(snapshots.filter(pinned_at__isnull=False).values_list("pk", flat=True))
    held |= set(
        Analysis.objects.filter(snapshot__in=ids, created__gte=since).values_list(
            "snapshot_id", flat=True
        )
    )
    held |= set(
        Advice.objects.filter(analysis__snapshot__in=ids, created__gte=since).values_list(
            "analysis__snapshot_id", flat=True
        )
    )
    held |= set(
        ShareLink.objects.active()
        .filter(analysis__snapshot__in=ids, created__gte=since)
        .values_list("analysis__snapshot_id", flat=True)
    )
    return held


def cluster_retention_apply(*, cluster: Cluster, now: datetime | None = None) -> list[int]:
    """Deletes (through the snapshot's own delete) the cluster's ready snapshots that the
    retention does not keep; the ids deleted. Snapshots in use (``in_use``) are kept and
    left out of the count: ``keep`` and the daily ones are counted among the others. The
    verdicts of Explain are stored first, so they outlive their what-ifs, and each
    deletion is recorded (Explain says the snapshot before a preemption was deleted)."""
    from connected.explain import verdicts_keep

    now = now or timezone.now()
    snapshots = Snapshot.objects.filter(
        cluster=cluster, status=SnapshotStatus.READY, taken_at__isnull=False
    )
    held = in_use(snapshots, now=now)
    taken = [
        (pk, at)
        for pk, at in snapshots.values_list("pk", "taken_at")
        if at is not None and pk not in held
    ]
    kept = retained(taken, keep=cluster.keep, now=now)
    gone = [pk for pk, _ in taken if pk not in kept]
    if gone:
        verdicts_keep(cluster)
    for snapshot in snapshots.filter(pk__in=gone).select_related("owner").defer("events"):
        snapshot_deleted_record(snapshot, by_retention=True)
        snapshot_delete(snapshot=snapshot)
    return gone


def snapshot_deleted_record(snapshot: Snapshot, *, by_retention: bool = False) -> None:
    """Remembers that a snapshot of a connected cluster was deleted, and when (once)."""
    if snapshot.cluster_id is None or snapshot.taken_at is None:
        return
    if DeletedSnapshot.objects.filter(snapshot_id=snapshot.pk).exists():
        return
    DeletedSnapshot.objects.create(
        cluster_id=snapshot.cluster_id,
        snapshot_id=snapshot.pk,
        name=snapshot.name[:200],
        taken_at=snapshot.taken_at,
        by_retention=by_retention,
    )
