"""What-if submissions are scrubbed as snapshots are, before they are stored or shown:
env values, envFrom and last-applied annotations never reach the database, the API's
submitted_pod, the owner's page or the anonymous share page, and the page says what
was removed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from clusters.constants import LAST_APPLIED_ANNOTATION
from clusters.demo import demo_cat3_pod
from scheduling import services
from scheduling.models import Analysis
from tests.clusters.builders import make_deployment

pytestmark = pytest.mark.django_db

SECRET = "hunter2-very-secret"


def _leaky(pod: dict[str, Any]) -> dict[str, Any]:
    pod = json.loads(json.dumps(pod))
    pod["metadata"]["annotations"] = {
        LAST_APPLIED_ANNOTATION: json.dumps({"env": [{"name": "DB", "value": SECRET}]}),
        "team": "shop",
    }
    container = pod["spec"]["containers"][0]
    container["env"] = [
        {"name": "DB_PASSWORD", "value": SECRET},
        {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "tok", "key": SECRET}}},
    ]
    container["envFrom"] = [{"secretRef": {"name": SECRET}}]
    return pod


def test_a_submitted_pod_is_stored_and_shown_without_its_secrets(
    owner_client: Any, owner: Any, client: Any, demo_snapshot: Any
) -> None:
    api = APIClient()
    api.force_authenticate(owner)
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/",
        {"pod": _leaky(demo_cat3_pod())},
        format="json",
    )
    assert r.status_code == 202, r.content
    analysis = Analysis.objects.get()
    assert SECRET not in json.dumps(analysis.pod)
    env = analysis.pod["spec"]["containers"][0]["env"]
    assert [e["name"] for e in env] == ["DB_PASSWORD", "TOKEN"]  # names stay, values go
    assert analysis.pod["metadata"]["annotations"] == {"team": "shop"}
    assert analysis.scrubbed == {"envFrom": 1, "envValues": 2, "lastAppliedConfiguration": 1}

    services.analysis_run(analysis_id=analysis.pk)
    assert SECRET not in api.get(f"/api/analyses/{analysis.pk}/").content.decode()
    page = owner_client.get(analysis.get_absolute_url()).content.decode()
    assert SECRET not in page
    assert "2 environment variable values removed" in page and "1 envFrom" in page
    link = services.share_link_create(analysis=analysis)
    shared = client.get(link.get_absolute_url()).content.decode()
    assert SECRET not in shared and "environment variable values removed" in shared


def test_a_submitted_workload_is_stored_without_its_secrets(owner: Any, demo_snapshot: Any) -> None:
    pod = _leaky(demo_cat3_pod())
    deployment = make_deployment("orange", pod["spec"], replicas=2)
    analysis = services.analysis_create_workload(snapshot=demo_snapshot, objects=[deployment])
    analysis.refresh_from_db()
    assert SECRET not in json.dumps(analysis.pod)
    assert [o["kind"] for o in analysis.pod["objects"]] == ["Deployment"]
    assert len(analysis.pod["pods"]) == 2
    # Counted on what was written (the template), not once per expanded pod.
    assert analysis.scrubbed == {"envFrom": 1, "envValues": 2}
