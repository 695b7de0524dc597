"""How many fit, end to end on a real Celery worker on Redis: POST, the worker runs it,
GET the answer, the same as the engine gives in this process."""

from __future__ import annotations

from typing import Any

import pytest

from clusters.demo import demo_cat3_pod, demo_objects
from clusters.services import snapshot_load_demo
from scheduling.engine.capacity import capacity, capacity_by_class
from tests.scheduling.test_worker import _api, _wait_done

pytestmark = pytest.mark.worker


def test_the_worker_answers_how_many_fit(celery_worker_process: Any, owner: Any) -> None:
    snapshot = snapshot_load_demo(owner=owner)
    api = _api(owner)
    pod = demo_cat3_pod()
    r = api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/",
        {"kind": "capacity", "pod": pod, "limit": 20},
        format="json",
    )
    assert r.status_code == 202, r.content
    body = _wait_done(api, r.json()["id"])
    assert body["status"] == "done", body["error"]
    assert body["kind"] == "capacity"
    # The worker's answer, from the stored snapshot, is the engine's on the demo's objects.
    assert body["result"] == capacity(demo_objects(), pod, limit=20).to_dict()
    assert (body["result"]["fit_now"], body["result"]["fit_by_preempting"]) == (0, 14)
    assert body["progress_cycle"] > 0  # it reported the cycles it reached

    r = api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/",
        {"kind": "capacity", "size": {"cpu": "1", "memory": "2Gi"}, "limit": 10},
        format="json",
    )
    table = _wait_done(api, r.json()["id"])
    assert table["status"] == "done", table["error"]
    assert table["result"] == capacity_by_class(demo_objects(), "1", "2Gi", limit=10).to_dict()
