"""A member's what-ifs count against the member: with the workers that run what-ifs paused
(their queue unread), a member's 4 what-ifs on the owner's team snapshot fill the
member's limit, never the owner's: the owner's upload is accepted, and the cluster's
scheduled read runs on a real worker (its slot is the cluster's) and succeeds."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from clusters.demo import demo_cat3_pod
from clusters.models import Snapshot
from config.celery import app
from connected.models import Cluster
from connected.services import cluster_snapshot_take
from connected.tasks import cluster_snapshot_task
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis
from tests.clusters.builders import as_list, make_node
from tests.conftest import WorkerFactory

pytestmark = pytest.mark.worker


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_members_four_what_ifs_leave_the_owners_upload_and_the_scheduled_read_accepted(
    served: Path,
    demo_cluster: Cluster,
    owner: Any,
    teammate: Any,
    celery_worker_factory: WorkerFactory,
    settings: Any,
) -> None:
    settings.PREEMPTLAB_UNFINISHED_PER_USER = 4
    first = cluster_snapshot_take(cluster_id=demo_cluster.pk)
    assert first is not None and first.team is not None  # the team's snapshot, the owner's
    celery_worker_factory(
        env={
            "CONNECTED_KUBECONFIG": str(served),
            "CONNECTED_READ_TIMEOUT": "20",
            "PREEMPTLAB_UNFINISHED_PER_USER": "4",
        }
    )
    worker_queue = app.conf.task_default_queue
    # What-ifs go to a queue no worker reads: they stay queued, as behind paused workers.
    paused = f"paused-{uuid.uuid4().hex[:12]}"
    app.conf.task_default_queue = paused
    try:
        member = _api(teammate)
        url = f"/api/snapshots/{first.pk}/analyses/"
        for _ in range(4):
            asked = member.post(url, {"pod": demo_cat3_pod()}, format="json")
            assert asked.status_code == 202, asked.content
        fifth = member.post(url, {"pod": demo_cat3_pod()}, format="json")
        assert fifth.status_code == 429 and "You have 4 analyses" in fifth.json()["detail"]
        assert int(fifth["Retry-After"]) > 0
        queued = Analysis.objects.filter(snapshot=first, status=AnalysisStatus.QUEUED)
        assert queued.count() == 4 and {a.requested_by for a in queued} == {teammate}

        # The owner's own upload is accepted: the member's work is not the owner's.
        upload = _api(owner).post(
            "/api/snapshots/",
            {"name": "mine", "objects": as_list([make_node("node-x")])},
            format="json",
        )
        assert upload.status_code == 201, upload.content

        # The schedule's read, as beat sends it, on the real worker.
        before = Cluster.objects.get(pk=demo_cluster.pk).last_success_at
        assert before is not None
        cluster_snapshot_task.apply_async(args=[demo_cluster.pk], queue=worker_queue)
        deadline = time.monotonic() + 90
        while True:
            cluster = Cluster.objects.get(pk=demo_cluster.pk)
            if cluster.last_failure_at or (cluster.last_success_at or before) > before:
                break
            assert time.monotonic() < deadline, "the scheduled read did not end in 90 s"
            time.sleep(0.5)
        assert not cluster.failing and cluster.last_failure_reason == ""
        read = Snapshot.objects.filter(cluster=demo_cluster).exclude(pk=first.pk).get()
        assert read.is_ready and read.owner == owner
        # Still queued, still the member's: nothing ran them meanwhile.
        assert queued.count() == 4
    finally:
        url = os.environ.get("REDIS_URL") or django_settings.REDIS_URL
        if url:
            import redis

            redis.Redis.from_url(url).delete(paused)
