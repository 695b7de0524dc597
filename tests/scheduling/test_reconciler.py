"""The reconciler queues again what the broker lost: the row is the truth, the message a wake-up.

In-process passes against the real broker (Redis under `make test`, the
filesystem broker on the SQLite pass) on a queue of the test's own, then a real
worker whose own reconciler finishes an analysis whose message was dropped.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from clusters.constants import SnapshotStatus
from clusters.models import Snapshot
from config.celery import app
from operations.reconciler import broker_queue_size, reconcile
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis


@pytest.fixture
def private_queue(settings: Any) -> Iterator[str]:
    """Messages of this test go to (and are counted on) a queue nobody consumes."""
    previous = app.conf.task_default_queue
    queue = f"test-reconciler-{uuid.uuid4().hex[:10]}"
    app.conf.task_default_queue = queue
    try:
        yield queue
    finally:
        # never declared: nothing to purge
        with app.connection_for_write() as conn, contextlib.suppress(Exception):
            conn.default_channel.queue_purge(queue)
        app.conf.task_default_queue = previous


def _queued_analysis(snapshot: Any, pod: dict[str, Any], *, seconds_ago: float) -> Analysis:
    """A queued row as analysis_create leaves it, whose message the broker then lost."""
    return Analysis.objects.create(
        snapshot=snapshot,
        pod=pod,
        pod_key="default/p",
        status=AnalysisStatus.QUEUED,
        enqueued_at=timezone.now() - timedelta(seconds=seconds_ago),
    )


@pytest.mark.django_db
def test_a_queued_analysis_without_a_message_is_queued_again(
    private_queue: str, demo_snapshot: Any, cat3_pod: Any
) -> None:
    lost = _queued_analysis(demo_snapshot, cat3_pod, seconds_ago=600)
    fresh = _queued_analysis(demo_snapshot, cat3_pod, seconds_ago=0)
    assert broker_queue_size() == 0

    report = reconcile()

    assert report.lost.get("analyses") == 1 and not report.lost.get("ingests")
    assert broker_queue_size() == 1  # one new message, for the lost one only
    lost.refresh_from_db()
    fresh.refresh_from_db()
    assert lost.enqueued_at is not None and lost.enqueued_at > timezone.now() - timedelta(
        seconds=60
    )
    assert fresh.enqueued_at is not None

    # A second pass finds as many messages as queued rows past their grace: nothing more is sent.
    assert reconcile().lost.get("analyses", 0) == 0
    assert broker_queue_size() == 1


@pytest.mark.django_db
def test_rows_whose_messages_are_waiting_are_left_alone(
    private_queue: str, demo_snapshot: Any, cat3_pod: Any
) -> None:
    from scheduling.services import analysis_publish

    waiting = _queued_analysis(demo_snapshot, cat3_pod, seconds_ago=600)
    analysis_publish(waiting.pk)  # its message is in the queue: a busy worker, not a lost one
    assert reconcile().lost.get("analyses", 0) == 0
    assert broker_queue_size() == 1


@pytest.mark.django_db
def test_a_running_analysis_whose_lease_expired_is_queued_again(
    private_queue: str, demo_snapshot: Any, cat3_pod: Any
) -> None:
    now = timezone.now()
    dead = _queued_analysis(demo_snapshot, cat3_pod, seconds_ago=600)
    Analysis.objects.filter(pk=dead.pk).update(
        status=AnalysisStatus.RUNNING,
        started_at=now - timedelta(seconds=60),
        lease_task_id="task-of-a-dead-worker",
        lease_expires_at=now - timedelta(seconds=1),
    )
    alive = _queued_analysis(demo_snapshot, cat3_pod, seconds_ago=600)
    Analysis.objects.filter(pk=alive.pk).update(
        status=AnalysisStatus.RUNNING,
        started_at=now - timedelta(seconds=60),
        lease_task_id="task-of-a-live-worker",
        lease_expires_at=now + timedelta(seconds=20),
    )

    report = reconcile()

    assert report.expired["analyses"] == 1
    dead.refresh_from_db()
    alive.refresh_from_db()
    assert dead.status == AnalysisStatus.QUEUED and dead.lease_task_id == ""
    assert alive.status == AnalysisStatus.RUNNING
    assert broker_queue_size() == 1


@pytest.mark.django_db
def test_a_queued_ingest_without_a_message_is_queued_again(
    private_queue: str, owner: Any, settings: Any
) -> None:
    Snapshot.objects.create(
        owner=owner,
        name="big",
        status=SnapshotStatus.INGESTING,
        enqueued_at=timezone.now() - timedelta(seconds=600),
    )
    assert reconcile().lost["ingests"] == 1
    assert broker_queue_size() == 1


@pytest.mark.django_db
def test_an_ingest_whose_web_process_died_is_marked_failed(
    private_queue: str, owner: Any, settings: Any
) -> None:
    orphan = Snapshot.objects.create(owner=owner, name="sync", status=SnapshotStatus.INGESTING)
    Snapshot.objects.filter(pk=orphan.pk).update(created=timezone.now() - timedelta(hours=1))
    assert reconcile().abandoned["ingests"] == 1
    orphan.refresh_from_db()
    assert orphan.is_failed and "upload the files again" in orphan.error
    assert broker_queue_size() == 0


def _wait_for(predicate: Any, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    return predicate()


FAST_RECONCILER = {
    "PREEMPTLAB_RECONCILE_SECONDS": "1",
    "PREEMPTLAB_QUEUED_GRACE_SECONDS": "1",
    "PREEMPTLAB_LEASE_SECONDS": "4",
}


@pytest.mark.worker
def test_a_worker_finishes_an_analysis_whose_message_was_dropped(
    celery_worker_factory: Any, owner: Any
) -> None:
    from clusters.demo import demo_cat3_pod
    from clusters.services import snapshot_load_demo

    snapshot = snapshot_load_demo(owner=owner)
    celery_worker_factory(env=FAST_RECONCILER)
    # Queued, its message gone (Redis restarted without keeping it), and a running
    # one whose worker died without a trace (its lease ran out).
    dropped = _queued_analysis(snapshot, demo_cat3_pod(), seconds_ago=30)
    orphaned = _queued_analysis(snapshot, demo_cat3_pod(), seconds_ago=30)
    Analysis.objects.filter(pk=orphaned.pk).update(
        status=AnalysisStatus.RUNNING,
        attempts=1,
        lease_task_id="task-of-a-dead-worker",
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )

    def finished() -> bool:
        return not Analysis.objects.filter(
            pk__in=[dropped.pk, orphaned.pk], status__in=["queued", "running"]
        ).exists()

    assert _wait_for(finished, 30), list(Analysis.objects.values("pk", "status", "error"))
    for analysis in Analysis.objects.filter(pk__in=[dropped.pk, orphaned.pk]):
        assert analysis.status == AnalysisStatus.DONE, analysis.error
        assert analysis.result["outcome"] == "preempts"
        assert analysis.lease_task_id == "" and analysis.lease_expires_at is None
    assert Analysis.objects.get(pk=orphaned.pk).attempts == 2
