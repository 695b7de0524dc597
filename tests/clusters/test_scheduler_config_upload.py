"""A KubeSchedulerConfiguration uploaded with the dump becomes the snapshot's scheduler
configuration; an invalid one refuses the upload, naming the file and the field path."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from clusters import models
from tests.clusters.builders import dump, make_node, make_pod

pytestmark = pytest.mark.django_db

MOST_ALLOCATED = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "pluginConfig": [
                {
                    "name": "NodeResourcesFit",
                    "args": {"scoringStrategy": {"type": "MostAllocated"}},
                }
            ],
        }
    ],
}


@pytest.fixture
def api(owner: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(owner)
    return client


def _upload(api: APIClient, config: dict[str, Any]) -> Any:
    files = [
        SimpleUploadedFile("cluster.json", dump([make_node("node-a"), make_pod("web-1")])),
        SimpleUploadedFile("sched.yaml", yaml.safe_dump(config).encode()),
    ]
    return api.post("/api/snapshots/", {"name": "s", "files": files}, format="multipart")


def test_the_uploaded_configuration_is_the_snapshots(api: APIClient) -> None:
    r = _upload(api, MOST_ALLOCATED)
    assert r.status_code == 201, r.content
    snapshot = models.Snapshot.objects.get()
    assert snapshot.scheduler_config == MOST_ALLOCATED
    assert snapshot.scheduler_origin == "uploaded with the dump (sched.yaml)"
    body = api.get(f"/api/snapshots/{snapshot.pk}/scheduler-config/").json()
    assert body["source"] == "snapshot"
    assert body["origin"] == "uploaded with the dump (sched.yaml)"
    # It is not counted among the skipped kinds.
    assert "KubeSchedulerConfiguration" not in snapshot.skipped


def test_an_invalid_configuration_refuses_the_upload_naming_file_and_field(
    api: APIClient,
) -> None:
    bad = {
        **MOST_ALLOCATED,
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "pluginConfig": [
                    {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "Bogus"}}}
                ],
            }
        ],
    }
    r = _upload(api, bad)
    assert r.status_code == 400, r.content
    error = r.json()["detail"]
    assert error.startswith("sched.yaml: KubeSchedulerConfiguration: ")
    assert 'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Bogus"' in (
        error
    )
    assert not models.Snapshot.objects.exists() and not models.Pod.objects.exists()
