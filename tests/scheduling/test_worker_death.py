"""A worker process that dies mid-analysis does not lose it: the broker hands it back and it runs again.

A real `celery worker` with the prefork pool (one child) on Redis; the child
executing the analysis is killed with SIGKILL while the analysis is running.
acks_late + task_reject_on_worker_lost (config/settings.py) make the main
process put the message back on the queue, a fresh child takes it, and
analysis_run runs the analysis again from its 'running' state.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from rest_framework.test import APIClient

from clusters.models import Node, Snapshot
from clusters.selectors import snapshot_objects
from clusters.services import UploadedFile, snapshot_create
from scheduling.engine import analyze
from scheduling.models import Analysis
from tests.verdict import without_verdict

pytestmark = pytest.mark.worker

ROOT = Path(__file__).resolve().parents[2]
NODES = 500  # with 30 pods each: a cold load of well over 100 ms, so the task is caught in flight


def _children(pid: int) -> list[int]:
    """The direct children of a process, from /proc (Linux)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out.extend(int(c) for c in (task / "children").read_text().split())
        except FileNotFoundError:  # the thread ended while we looked
            continue
    return out


def generated_snapshot(owner: Any, nodes: int) -> Snapshot:
    """A ready snapshot of ``nodes`` generated nodes with 30 pods each."""
    sys.path.insert(0, str(ROOT))
    from bench.generate_cluster import generate

    snapshot = snapshot_create(
        owner=owner,
        name=f"generated-{nodes}",
        files=[
            UploadedFile(
                name="cluster.json", data=orjson.dumps(generate(nodes, nodes * 30, nodes // 5, 3))
            )
        ],
        run_async=False,
    )
    assert snapshot.is_ready, snapshot.error
    return snapshot


def wait_for(predicate: Any, timeout: float, what: str, interval: float = 0.002) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not seen after {timeout}s")
        time.sleep(interval)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_pool_process_does_not_lose_the_analysis(
    celery_worker_factory: Any, owner: Any
) -> None:
    from bench.generate_cluster import preemptor_pod

    snapshot = generated_snapshot(owner, NODES)

    worker = celery_worker_factory(pool="prefork", concurrency=1)
    pool = wait_for(lambda: _children(worker.pid), 30, "the worker's pool process")
    assert len(pool) == 1, pool
    child = pool[0]

    # A little more CPU than any node has free: every node big enough is a preemption candidate.
    free = max(n.cpu_allocatable - n.cpu_requested for n in Node.objects.filter(snapshot=snapshot))
    pod = preemptor_pod("survivor", most_free_millicpu=free)
    api = APIClient()
    api.force_authenticate(owner)
    r = api.post(f"/api/snapshots/{snapshot.pk}/analyses/", {"pod": pod}, format="json")
    assert r.status_code == 202, r.content
    analysis_id = r.json()["id"]

    wait_for(
        lambda: Analysis.objects.filter(pk=analysis_id, status="running").exists(),
        60,
        "the analysis running",
    )
    os.kill(child, signal.SIGKILL)
    # Not finished when its process was killed: this really is a run in flight.
    assert Analysis.objects.get(pk=analysis_id).status == "running"

    analysis = wait_for(
        lambda: Analysis.objects.filter(pk=analysis_id, status__in=("done", "failed")).first(),
        120,
        "the analysis finished",
        interval=0.05,
    )
    assert analysis.status == "done", analysis.error
    assert analysis.attempts >= 2
    expected = analyze(snapshot_objects(snapshot=snapshot), pod).to_dict()
    assert analysis.result is not None
    assert without_verdict(analysis.result) == expected
    assert expected["outcome"] == "preempts" and len(expected["candidates"]) > 1

    # The worker itself lived on with a fresh pool process.
    assert worker.poll() is None
    assert child not in _children(worker.pid)
