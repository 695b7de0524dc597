"""A large upload is ingested by a real Celery worker process while the API says 202."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from clusters.constants import ASYNC_INGEST_BYTES
from tests.clusters.builders import dump, make_node, make_pod, make_priority_class


@pytest.mark.worker
def test_it_ingests_a_large_upload_on_the_worker(celery_worker_process: Any, owner: Any) -> None:
    env = [{"name": f"VAR_{k}", "value": "v" * 60} for k in range(10)]
    items = [make_priority_class("standard", 1000, default=True)]
    items += [make_node(f"node-{n:03d}", cpu="64", memory="256Gi") for n in range(100)]
    items += [make_pod(f"web-{i:05d}", node=f"node-{i % 100:03d}", env=env) for i in range(6000)]
    data = dump(items)
    assert len(data) > ASYNC_INGEST_BYTES

    api = APIClient()
    api.force_authenticate(owner)
    response = api.post(
        "/api/snapshots/",
        {"name": "big", "files": [SimpleUploadedFile("big.json", data)]},
        format="multipart",
    )
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "ingesting"
    url = response.json()["url"].replace("http://testserver", "")

    deadline = time.monotonic() + 120
    while True:
        body = api.get(url).json()
        if body["status"] != "ingesting" or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert body["status"] == "ready", body["error"]
    assert body["counts"] == {"nodes": 100, "pods": 6000, "pdbs": 0, "priority_classes": 3}
    assert body["scrubbed"]["envValues"] == 60000
    pods = api.get(f"{url}pods/", {"node": "node-007"}).json()
    assert pods["count"] == 60
    # The worker that ingested it keeps the cluster it built: the first what-if on the
    # snapshot loads nothing, and the stored parsed form is there for other workers.
    from clusters.models import ParsedCluster
    from clusters.parsed import PARSED_VERSION

    snapshot_id = body["id"]
    # Stored right after the snapshot is ready (ready does not wait for it): the worker
    # may still be writing it when the status is first read.
    deadline = time.monotonic() + 30
    while not ParsedCluster.objects.filter(snapshot_id=snapshot_id).exists():
        assert time.monotonic() < deadline, "the parsed cluster was never stored"
        time.sleep(0.2)
    assert ParsedCluster.objects.get(snapshot_id=snapshot_id).version == PARSED_VERSION
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "whatif", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
    }
    posted = api.post(f"/api/snapshots/{snapshot_id}/analyses/", {"pod": pod}, format="json")
    assert posted.status_code == 202, posted.content
    analysis_url = posted.json()["url"].replace("http://testserver", "")
    deadline = time.monotonic() + 60
    while True:
        done = api.get(analysis_url).json()
        if done["status"] in ("done", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert done["status"] == "done", done["error"]
    assert done["load_seconds"] == 0.0  # served from the worker's cache, warm since ingest
