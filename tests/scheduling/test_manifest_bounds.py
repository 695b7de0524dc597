"""What-if manifests meet the bounds snapshots meet: aliases counted by what they
expand to, no NaN or infinity anywhere, nothing stored when refused."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling.models import Analysis

pytestmark = pytest.mark.django_db

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: default}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}, annotations: {{note: &note {big}}}}}
    spec:
      containers: [{{name: main, resources: {{requests: {{cpu: 100m}}}}, args: [{aliases}]}}]
"""


def _post(client: Any, snapshot: Any, manifest: str) -> Any:
    url = f"/snapshots/{snapshot.pk}/analyses/new/"
    return client.post(url, {"mode": "manifest", "manifest": manifest})


def test_a_manifest_whose_aliases_expand_beyond_the_manifest_limit_is_refused(
    owner_client: Any, demo_snapshot: Any
) -> None:
    # 100 KB pasted, 100 MB once its aliases are expanded: refused before it is built.
    manifest = DEPLOYMENT.format(big="x" * 100_000, aliases=",".join(["*note"] * 1000))
    r = _post(owner_client, demo_snapshot, manifest)
    body = r.content.decode()
    assert r.status_code == 400
    assert "expand it to more than 1,048,576 bytes" in body
    assert not Analysis.objects.exists()


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_a_manifest_with_a_non_finite_number_is_refused_naming_the_field(
    owner_client: Any, demo_snapshot: Any, value: str
) -> None:
    manifest = DEPLOYMENT.format(big="x", aliases="a").replace(
        "replicas: 2", f"replicas: 2\n  minReadySeconds: {value}"
    )
    r = _post(owner_client, demo_snapshot, manifest)
    body = r.content.decode()
    assert r.status_code == 400, body[:2000]
    assert "spec.minReadySeconds" in body and "not a finite number" in body
    assert not Analysis.objects.exists()


def test_the_api_refuses_a_non_finite_number_in_a_manifest(owner: Any, demo_snapshot: Any) -> None:
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(owner)
    manifest = DEPLOYMENT.format(big="x", aliases="a").replace("cpu: 100m", "cpu: .inf")
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"manifest": manifest}, format="json"
    )
    assert r.status_code == 400, r.content
    assert "not a finite number" in str(r.json())
    assert not Analysis.objects.exists()
