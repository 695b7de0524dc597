"""A worker asked to stop (SIGTERM) during a long timed analysis exits within seconds,
and the analysis goes back to the queue rather than being lost or marked failed.

A real `celery worker` on Redis, as `preemptlab serve` runs it (the solo pool) and as a
deployment does (prefork, two processes); SIGTERM goes to the worker's main process
only, as `docker stop` and `preemptlab serve` send it.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import time
from typing import Any

import pytest
import redis
from rest_framework.test import APIClient

from config.celery import app
from scheduling.models import Analysis
from tests.clusters.builders import make_deployment
from tests.scheduling.test_worker_death import generated_snapshot, wait_for

pytestmark = pytest.mark.worker

# A cascade of 1,000 critical replicas on 300 nodes, keeping time: well over a minute of
# scheduling cycles, so the analysis is still running when the worker is told to stop.
NODES = 300
STOPS_WITHIN = 10.0  # seconds


def _flood() -> dict[str, Any]:
    container = {"name": "c", "image": "x", "resources": {"requests": {"cpu": "3"}}}
    spec = {"priorityClassName": "critical-apps", "containers": [container]}
    return make_deployment("flood", spec, replicas=1000)


def _queued_runs(queue: str) -> list[list[Any]]:
    """The analysis_run messages waiting in the worker's Redis queue: their arguments."""
    r = redis.Redis.from_url(app.conf.broker_url)
    out = []
    for raw in r.lrange(queue, 0, -1):
        message = json.loads(raw)
        if message["headers"]["task"] == "scheduling.analysis_run":
            out.append(json.loads(base64.b64decode(message["body"]))[0])
    return out


@pytest.mark.parametrize(("pool", "concurrency"), [("solo", 1), ("prefork", 2)])
def test_a_worker_told_to_stop_mid_analysis_exits_in_seconds_and_requeues_it(
    celery_worker_factory: Any, owner: Any, pool: str, concurrency: int
) -> None:
    snapshot = generated_snapshot(owner, NODES)
    worker = celery_worker_factory(
        pool=pool, concurrency=concurrency, env={"PREEMPTLAB_ANALYSIS_SECONDS": "600"}
    )
    queue = app.conf.task_default_queue

    api = APIClient()
    api.force_authenticate(owner)
    r = api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/",
        {"objects": [_flood()], "recreate_victims": True, "timeline": True},
        format="json",
    )
    assert r.status_code == 202, r.content
    analysis_id = r.json()["id"]
    wait_for(
        lambda: Analysis.objects.filter(
            pk=analysis_id, status="running", progress_cycle__gt=50
        ).exists(),
        120,
        "the analysis well under way",
    )

    os.kill(worker.pid, signal.SIGTERM)
    started = time.monotonic()
    worker.wait(timeout=60)
    took = time.monotonic() - started
    assert took < STOPS_WITHIN, f"the worker took {took:.1f} s to stop"

    analysis = Analysis.objects.get(pk=analysis_id)
    # Not lost, not failed: queued again, free for the next worker, with its message.
    assert analysis.status == "queued", analysis.error
    assert analysis.error == "" and analysis.lease_task_id == ""
    assert analysis.result is None
    assert _queued_runs(queue) == [[analysis_id]]
