"""End to end with a real Celery worker process on Redis: POST, the worker runs it, GET the result."""

from __future__ import annotations

import time
from typing import Any

import pytest
from rest_framework.test import APIClient

from clusters.demo import demo_objects
from clusters.services import snapshot_load_demo
from scheduling.engine import analyze
from tests.scheduling.conftest import make_snapshot
from tests.scheduling.test_conformance_api import VECTOR_DIR, load_vector
from tests.verdict import without_verdict

pytestmark = pytest.mark.worker

# A handful of scenarios of different shapes: a tie-break, PDBs, an ineligible pod, a fit.
WORKER_VECTORS = [
    "0204-tie-num_victims-3n",
    "0291-pdb-2n",
    "1195-eligibility-never-class",
    "0402-fits-7n",
    "0004-handwritten-b-four-apps-v2",
]


def _api(user: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def _wait_done(api: APIClient, analysis_id: int, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body = api.get(f"/api/analyses/{analysis_id}/").json()
        if body["status"] in ("done", "failed"):
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"analysis {analysis_id} still {body['status']} after {timeout}s")
        time.sleep(0.1)


def test_the_worker_runs_a_posted_analysis(celery_worker_process: Any, owner: Any) -> None:
    snapshot = snapshot_load_demo(owner=owner)
    api = _api(owner)
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "orange-0", "namespace": "default"},
        "spec": {
            "priorityClassName": "cat-3",
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}],
        },
    }
    r = api.post(f"/api/snapshots/{snapshot.pk}/analyses/", {"pod": pod}, format="json")
    assert r.status_code == 202
    assert r.json()["status"] == "queued"
    body = _wait_done(api, r.json()["id"])
    assert body["status"] == "done", body["error"]
    assert without_verdict(body["result"]) == analyze(demo_objects(), pod).to_dict()
    assert body["result"]["outcome"] == "preempts"
    assert body["load_seconds"] > 0  # the worker's first look at this snapshot

    # The same worker keeps the parsed cluster: the second what-if skips the load.
    pod["metadata"]["name"] = "orange-1"
    r = api.post(f"/api/snapshots/{snapshot.pk}/analyses/", {"pod": pod}, format="json")
    second = _wait_done(api, r.json()["id"])
    assert second["status"] == "done"
    assert second["load_seconds"] == 0.0
    assert without_verdict(second["result"]) == analyze(demo_objects(), pod).to_dict()


def test_conformance_scenarios_through_the_worker(celery_worker_process: Any, owner: Any) -> None:
    api = _api(owner)
    submitted = []
    for name in WORKER_VECTORS:
        vector = load_vector(VECTOR_DIR / f"{name}.json")
        snapshot = make_snapshot(owner, vector["snapshot"], name=name)
        r = api.post(
            f"/api/snapshots/{snapshot.pk}/analyses/", {"pod": vector["preemptor"]}, format="json"
        )
        assert r.status_code == 202, r.content
        submitted.append((vector, r.json()["id"]))
    for vector, analysis_id in submitted:
        body = _wait_done(api, analysis_id)
        assert body["status"] == "done", body["error"]
        assert (
            without_verdict(body["result"])
            == analyze(vector["snapshot"], vector["preemptor"]).to_dict()
        )
