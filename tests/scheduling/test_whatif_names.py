"""What-if pods and workloads with names or labels the API server would refuse are
refused before anything is stored, with the field named."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from scheduling.models import Analysis
from tests.clusters.test_hostile_names import HOSTILE

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", HOSTILE)
def test_a_what_if_pod_with_a_refused_name_is_refused(
    api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any], name: str
) -> None:
    cat3_pod["metadata"]["name"] = name
    r = api.post(f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"pod": cat3_pod}, format="json")
    assert r.status_code == 400, r.content
    assert "metadata.name" in str(r.json())
    assert not Analysis.objects.exists()


def test_a_what_if_workload_with_a_refused_template_label_is_refused(
    api: APIClient, demo_snapshot: Any
) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "<script>"}},
                "spec": {"containers": [{"name": "main"}]},
            },
        },
    }
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"objects": [deployment]}, format="json"
    )
    assert r.status_code == 400, r.content
    assert "spec.template.metadata.labels" in str(r.json())
    assert not Analysis.objects.exists()


def test_a_what_if_pod_with_a_negative_request_is_refused(
    api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    # The form refused it; the API took it. The API server refuses it everywhere.
    cat3_pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "-1"}}
    r = api.post(f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"pod": cat3_pod}, format="json")
    assert r.status_code == 400, r.content
    assert "negative" in str(r.json())
    assert not Analysis.objects.exists()
