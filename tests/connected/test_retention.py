"""Retention: the newest N, and the newest of each of the last 30 days; deleted through
the snapshot's own delete, and never by a failed read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from clusters import services as snapshot_services
from clusters.models import Snapshot
from connected.models import Cluster
from connected.services import cluster_retention_apply, cluster_snapshot_take, retained

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def test_the_newest_n_and_one_a_day_for_30_days(settings: Any) -> None:
    settings.TIME_ZONE = "UTC"
    hourly = [(i, NOW - timedelta(hours=i)) for i in range(24 * 40)]  # 40 days, every hour
    kept = retained(hourly, keep=3, now=NOW)
    # The newest three, and the newest (23:00) of each earlier day back to 30 days ago;
    # today's newest is among the three.
    since = NOW - timedelta(days=30)
    daily = {pk for pk, at in hourly if at.hour == 23 and at >= since}
    assert kept == {0, 1, 2} | daily and len(daily) == 30
    assert retained([], keep=3, now=NOW) == set()


def _snapshot(cluster: Cluster, at: datetime, status: str = "ready") -> Snapshot:
    return Snapshot.objects.create(
        owner=cluster.owner, name=f"{at}", cluster=cluster, status=status, taken_at=at
    )


def test_apply_deletes_through_the_snapshots_delete(
    demo_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = timezone.now()
    Cluster.objects.filter(pk=demo_cluster.pk).update(keep=2)
    demo_cluster.keep = 2
    taken = [_snapshot(demo_cluster, now - timedelta(minutes=m)) for m in (0, 1, 2, 3)]
    old_day = _snapshot(demo_cluster, now - timedelta(days=3))
    too_old = _snapshot(demo_cluster, now - timedelta(days=45))
    ingesting = _snapshot(demo_cluster, now - timedelta(minutes=9), status="ingesting")
    uploaded = Snapshot.objects.create(owner=demo_cluster.owner, name="mine", status="ready")
    deleted: list[int] = []
    real = snapshot_services.snapshot_delete
    monkeypatch.setattr(
        "connected.services.snapshot_delete",
        lambda *, snapshot: (deleted.append(snapshot.pk), real(snapshot=snapshot)),
    )
    gone = cluster_retention_apply(cluster=demo_cluster, now=now)
    expect_gone = {taken[2].pk, taken[3].pk, too_old.pk}
    if timezone.localtime(taken[3].taken_at).date() != timezone.localtime(now).date():
        expect_gone.discard(taken[2].pk)  # just past midnight: the newest of yesterday
    assert set(gone) == set(deleted) == expect_gone
    left = set(Snapshot.objects.values_list("pk", flat=True))
    assert {taken[0].pk, taken[1].pk, old_day.pk, ingesting.pk, uploaded.pk} <= left
    assert not left & expect_gone


def test_a_failed_read_deletes_nothing(served: Path, demo_cluster: Cluster) -> None:
    Cluster.objects.filter(pk=demo_cluster.pk).update(keep=1)
    first = cluster_snapshot_take(cluster_id=demo_cluster.pk)
    assert first is not None
    Cluster.objects.filter(pk=demo_cluster.pk).update(source="elsewhere")
    assert cluster_snapshot_take(cluster_id=demo_cluster.pk) is None
    assert list(Snapshot.objects.filter(cluster=demo_cluster)) == [first]
    Cluster.objects.filter(pk=demo_cluster.pk).update(source="fake")
    second = cluster_snapshot_take(cluster_id=demo_cluster.pk)
    # keep=1, and the first is no longer the newest of its day.
    assert second is not None
    assert list(Snapshot.objects.filter(cluster=demo_cluster)) == [second]
