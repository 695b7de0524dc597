"""Deleting a running analysis stops its run within a second or so, and its owner's slot
of unfinished work stays taken until it has: a real `celery worker` runs a long
workload, the API deletes it mid-run."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from rest_framework.test import APIClient

from clusters.demo import demo_cat3_pod
from clusters.services import UploadedFile, snapshot_create
from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis, StoppingRun

pytestmark = pytest.mark.worker

ROOT = Path(__file__).resolve().parents[2]


def _wait_for(predicate: Any, timeout: float, what: str) -> float:
    """Seconds until ``predicate`` holds."""
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"{what} not seen after {timeout} s")
        time.sleep(0.05)
    return time.monotonic() - start


def test_a_deleted_running_analysis_holds_its_slot_until_its_run_stops(
    celery_worker_factory: Any, owner: Any, settings: Any
) -> None:
    sys.path.insert(0, str(ROOT))
    from bench.generate_cluster import generate, spread_deployment

    snapshot = snapshot_create(
        owner=owner,
        name="long",
        files=[UploadedFile(name="c.json", data=orjson.dumps(generate(400, 4000, 80, 3)))],
        run_async=False,
    )
    assert snapshot.is_ready, snapshot.error
    settings.PREEMPTLAB_UNFINISHED_PER_USER = 1
    celery_worker_factory(pool="prefork", concurrency=1)

    analysis = services.analysis_create_workload(
        snapshot=snapshot, objects=[spread_deployment(1000)], recreate_victims=True
    )
    _wait_for(
        lambda: Analysis.objects.filter(
            pk=analysis.pk, status=AnalysisStatus.RUNNING, progress_cycle__gt=0
        ).exists(),
        60,
        "the run under way",
    )

    api = APIClient()
    api.force_authenticate(owner)
    assert api.delete(f"/api/analyses/{analysis.pk}/").status_code == 204
    assert not Analysis.objects.filter(pk=analysis.pk).exists()  # gone from every page
    # The run still holds the worker: the slot is still taken.
    url = f"/api/snapshots/{snapshot.pk}/analyses/"
    pod = demo_cat3_pod()
    del pod["spec"]["priorityClassName"]  # a class the generated cluster lacks
    r = api.post(url, {"pod": pod}, format="json")
    assert r.status_code == 429, r.content
    assert StoppingRun.objects.filter(analysis_id=analysis.pk).exists()

    # The run notices at its next progress write (every half second) and stops.
    stopped_after = _wait_for(
        lambda: not StoppingRun.objects.filter(analysis_id=analysis.pk).exists(),
        10,
        "the run stopped",
    )
    assert stopped_after < 5
    r = api.post(url, {"pod": pod}, format="json")
    assert r.status_code == 202, r.content
    # The worker is free again: it runs the next what-if to its end.
    _wait_for(
        lambda: Analysis.objects.filter(pk=r.json()["id"], status=AnalysisStatus.DONE).exists(),
        60,
        "the next what-if done",
    )
