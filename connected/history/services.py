"""A connected cluster's history: each snapshot's digest (findings, pending pods, the
preemptions its events recorded, its first-in-line ranking queued), and the drift between
two snapshots built from what the pages already keep.

The digest is worked out once by a worker (connected/history/tasks.py) after a snapshot is
taken; a page that finds one missing queues it and shows what is there.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet

from clusters.models import Snapshot
from connected.drift import ClassFacts, Drift, FindingFacts, Side, drift
from connected.history.models import ObservedPreemption, SnapshotDigest
from connected.models import Cluster
from connected.preemptions import PodFacts, PodLookup, Preemption, first_of, read_preemptions
from operations.throttling import Busy
from planning.models import FirstInLineRanking
from planning.services import snapshot_plan
from scheduling.constants import AnalysisStatus
from scheduling.engine.plan import ERROR, INFO, WARNING
from scheduling.engine.plan.first_in_line import (
    DEFAULT_CPU_MILLIS,
    DEFAULT_LIMIT,
    DEFAULT_MEMORY_BYTES,
)

log = logging.getLogger(__name__)

DEFAULT_PROBE = {
    "cpu_millis": DEFAULT_CPU_MILLIS,
    "memory_bytes": DEFAULT_MEMORY_BYTES,
    "limit": DEFAULT_LIMIT,
}


def ready_snapshots(cluster: Cluster) -> QuerySet[Snapshot]:
    """The cluster's ready snapshots, oldest first."""
    return (
        Snapshot.objects.filter(cluster=cluster, status="ready", taken_at__isnull=False)
        .order_by("taken_at", "id")
        .defer("events")
    )


def snapshot_before(snapshot: Snapshot) -> Snapshot | None:
    """The cluster's ready snapshot taken last before ``snapshot``."""
    if snapshot.cluster_id is None or snapshot.taken_at is None:
        return None
    return (
        Snapshot.objects.filter(
            cluster_id=snapshot.cluster_id, status="ready", taken_at__lt=snapshot.taken_at
        )
        .order_by("-taken_at", "-id")
        .defer("events")
        .first()
    )


def _row_lookup(snapshot: Snapshot | None) -> PodLookup:
    """A pod of the snapshot's browse rows, by uid else by "namespace/name"."""

    def lookup(uid: str, key: str) -> PodFacts | None:
        if snapshot is None:
            return None
        rows = snapshot.pods.all()
        match = Q(uid=uid) if uid else Q(pk__in=[])
        if key and "/" in key:
            namespace, name = key.split("/", 1)
            match |= Q(namespace=namespace, name=name)
        row = rows.filter(match).only("namespace", "name", "uid", "priority", "priority_class")
        found = sorted(row[:2], key=lambda p: p.uid != uid)
        if not found:
            return None
        p = found[0]
        return PodFacts(p.key, p.uid, p.priority, p.priority_class or None)

    return lookup


def _findings(snapshot: Snapshot) -> list[dict[str, Any]]:
    plan = snapshot_plan(snapshot=snapshot)
    return [
        {"rule": f.rule, "severity": f.severity, "message": f.message, "objects": list(f.objects)}
        for f in plan.findings
    ]


def first_in_line_queue(snapshot: Snapshot) -> FirstInLineRanking | None:
    """The default probe's ranking of the snapshot, queued when it has none (None when the
    broker is away: asked again next time). The cluster's history asks it, no user: it
    counts against no one's unfinished work."""
    from planning.first_in_line import first_in_line_request

    try:
        return first_in_line_request(
            snapshot=snapshot,
            cpu_millis=DEFAULT_CPU_MILLIS,
            memory_bytes=DEFAULT_MEMORY_BYTES,
            limit=DEFAULT_LIMIT,
            by_the_cluster=True,
        )
    except Busy:
        return None
    except Exception:  # the broker away: the next page view or snapshot asks again
        log.warning("first-in-line of snapshot %s not queued", snapshot.pk, exc_info=True)
        return None


def digest_snapshot(snapshot: Snapshot) -> SnapshotDigest:
    """Works out (or reads back) the snapshot's digest and records the preemptions its
    events hold. Idempotent."""
    found = SnapshotDigest.objects.filter(snapshot=snapshot).first()
    if found is not None:
        return found
    findings = _findings(snapshot)
    before = snapshot_before(snapshot)
    events = Snapshot.objects.values_list("events", flat=True).get(pk=snapshot.pk) or []
    read = read_preemptions(
        events, first_of(_row_lookup(before), _row_lookup(snapshot)), seen_at=snapshot.taken_at
    )
    if snapshot.cluster_id is not None:
        _record(snapshot, read.preemptions)
    digest = SnapshotDigest(
        snapshot=snapshot,
        pending_pods=snapshot.pods.filter(phase="Pending", node_name="").count(),
        errors=sum(1 for f in findings if f["severity"] == ERROR),
        warnings=sum(1 for f in findings if f["severity"] == WARNING),
        notes=sum(1 for f in findings if f["severity"] == INFO),
        findings=findings,
        ignored_events=read.ignored,
    )
    try:
        with transaction.atomic():
            digest.save(force_insert=True)
    except IntegrityError:
        return SnapshotDigest.objects.get(snapshot=snapshot)
    if snapshot.cluster_id is not None:
        first_in_line_queue(snapshot)
    return digest


def _record(snapshot: Snapshot, preemptions: Iterable[Preemption]) -> None:
    assert snapshot.cluster_id is not None
    for p in preemptions:
        ObservedPreemption.objects.get_or_create(
            cluster_id=snapshot.cluster_id,
            victim=p.victim,
            victim_uid=p.victim_uid,
            preemptor_uid=p.preemptor_uid,
            defaults={
                "snapshot": snapshot,
                "preemptor": p.preemptor,
                "node": p.node,
                "at": p.at,
                "victim_class": p.victim_class or "",
                "victim_priority": p.victim_priority,
            },
        )


def ranked_apps(snapshot_id: int) -> list[str] | None:
    """The apps the default probe reaches within its limit, first first (None: not
    ranked yet)."""
    ranking = (
        FirstInLineRanking.objects.filter(snapshot_id=snapshot_id, status=AnalysisStatus.DONE)
        .filter(**DEFAULT_PROBE)
        .first()
    )
    line = ranking.line if ranking is not None else None
    if line is None:
        return None
    return [a.app for a in line.apps if a.absorbed is not None]


def first_in_line_count(digest: SnapshotDigest) -> int | None:
    """The apps the default probe reaches in the digest's snapshot: kept in the digest once
    the ranking is done (the charts read it for every snapshot)."""
    if digest.first_in_line_reached is None:
        apps = ranked_apps(digest.snapshot_id)
        if apps is None:
            return None
        digest.first_in_line_reached = len(apps)
        SnapshotDigest.objects.filter(pk=digest.pk).update(first_in_line_reached=len(apps))
    return digest.first_in_line_reached


def side_of(snapshot: Snapshot) -> Side:
    digest = digest_snapshot(snapshot)
    return Side(
        taken_at=snapshot.taken_at,
        classes={
            pc.name: ClassFacts(pc.name, pc.value, pc.preemption_policy, pc.global_default)
            for pc in snapshot.priority_classes.all()
        },
        findings=[FindingFacts.from_dict(f) for f in digest.findings],
        pdbs={
            f"{ns}/{name}": allowed
            for ns, name, allowed in snapshot.pdbs.values_list(
                "namespace", "name", "disruptions_allowed"
            )
        },
        nodes=frozenset(snapshot.nodes.values_list("name", flat=True)),
        first_in_line=_ranked_or_queued(snapshot),
    )


def _ranked_or_queued(snapshot: Snapshot) -> list[str] | None:
    """The ranked apps, or None with the ranking queued (again, if it failed or the
    owner's unfinished work was full when the snapshot was taken)."""
    apps = ranked_apps(snapshot.pk)
    if apps is None:
        first_in_line_queue(snapshot)
    return apps


def preemptions_between(before: Snapshot, after: Snapshot) -> list[ObservedPreemption]:
    """The real preemptions of the cluster after ``before`` was taken, up to ``after``."""
    assert after.cluster_id is not None
    rows = ObservedPreemption.objects.filter(cluster_id=after.cluster_id)
    if before.taken_at is not None:
        rows = rows.filter(at__gt=before.taken_at)
    if after.taken_at is not None:
        rows = rows.filter(at__lte=after.taken_at)
    return list(rows.order_by("at", "victim"))


def as_preemption(row: ObservedPreemption) -> Preemption:
    return Preemption(
        victim=row.victim,
        victim_uid=row.victim_uid,
        preemptor=row.preemptor,
        preemptor_uid=row.preemptor_uid,
        node=row.node,
        at=row.at,
        victim_class=row.victim_class or None,
        victim_priority=row.victim_priority,
        id=row.pk,
    )


@dataclass(frozen=True)
class ClusterDrift:
    cluster: Cluster
    before: Snapshot
    after: Snapshot
    drift: Drift
    rows: list[ObservedPreemption]


def cluster_drift(before: Snapshot, after: Snapshot) -> ClusterDrift:
    """The drift from ``before`` to ``after`` (two snapshots of one cluster). Every snapshot
    of the cluster in between is digested first, so its events' preemptions count."""
    assert after.cluster is not None
    between = ready_snapshots(after.cluster).filter(
        taken_at__gt=before.taken_at, taken_at__lte=after.taken_at
    )
    for snapshot in between:
        digest_snapshot(snapshot)
    rows = preemptions_between(before, after)
    answer = drift(side_of(before), side_of(after), [as_preemption(r) for r in rows])
    return ClusterDrift(after.cluster, before, after, answer, rows)
