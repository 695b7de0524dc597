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
