"""The analyses API in the shape DESIGN.md gives; the stranger gets 404 everywhere."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from clusters.demo import demo_objects
from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.engine import analyze
from scheduling.models import Analysis, ShareLink
from tests.verdict import without_verdict

pytestmark = pytest.mark.django_db


@pytest.fixture
def stranger_api(stranger: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(stranger)
    return c


@pytest.fixture(autouse=True)
def _no_broker() -> Any:
    with mock.patch("scheduling.tasks.analysis_run_task.delay") as delay:
        yield delay


def _done(demo_snapshot: Any, pod: dict[str, Any]) -> Analysis:
    a = services.analysis_create(snapshot=demo_snapshot, pod=pod)
    return services.analysis_run(analysis_id=a.pk)


def test_it_accepts_a_pod_with_202_and_the_analysis_url(
    api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    r = api.post(f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"pod": cat3_pod}, format="json")
    assert r.status_code == 202, r.content
    body = r.json()
    analysis = Analysis.objects.get()
    assert body == {
        "id": analysis.pk,
        "url": f"http://testserver/api/analyses/{analysis.pk}/",
        "status": "queued",
    }
    assert r["Location"] == body["url"]
    assert analysis.pod == cat3_pod


def test_it_accepts_a_yaml_manifest(api: APIClient, demo_snapshot: Any) -> None:
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: orange-7\nspec:\n"
        "  priorityClassName: cat-3\n  containers:\n  - name: c\n"
        "    resources: {requests: {cpu: '1', memory: 2Gi}}\n"
    )
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"manifest": manifest}, format="json"
    )
    assert r.status_code == 202, r.content
    assert Analysis.objects.get().pod_key == "default/orange-7"


@pytest.mark.parametrize(
    ("payload", "field", "needle"),
    [
        ({}, "non_field_errors", "exactly one"),
        (
            {"manifest": "kind: Service\nmetadata: {name: s}\n"},
            "manifest",
            "holds 1 Service and no Pod or workload",
        ),
        ({"pod": [1, 2]}, "pod", "JSON object"),
        (
            {
                "pod": {
                    "kind": "Pod",
                    "metadata": {"name": "x"},
                    "spec": {"priorityClassName": "gold", "containers": [{"name": "c"}]},
                }
            },
            "pod",
            "no PriorityClass with name gold was found",
        ),
        # The API server refuses a Pod without containers; so does the analysis.
        (
            {"pod": {"kind": "Pod", "metadata": {"name": "x"}, "spec": {}}},
            "pod",
            "spec.containers: Required value",
        ),
    ],
)
def test_it_answers_400_with_the_field_at_fault(
    api: APIClient, demo_snapshot: Any, payload: dict[str, Any], field: str, needle: str
) -> None:
    r = api.post(f"/api/snapshots/{demo_snapshot.pk}/analyses/", payload, format="json")
    assert r.status_code == 400
    assert needle in " ".join(r.json()[field])
    assert not Analysis.objects.exists()


def test_it_returns_the_contract_when_done(
    api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    r = api.get(f"/api/analyses/{analysis.pk}/")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "done" and body["error"] == ""
    assert without_verdict(body["result"]) == analyze(demo_objects(), cat3_pod).to_dict()
    assert body["page_url"] == f"http://testserver/analyses/{analysis.pk}/"
    assert body["snapshot"] == demo_snapshot.pk and body["pod"] == "default/orange-0"


def test_a_queued_analysis_has_no_result_yet(
    api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    body = api.get(f"/api/analyses/{analysis.pk}/").json()
    assert body["status"] == "queued" and body["result"] is None


def test_it_lists_the_snapshots_analyses(
    api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    first = _done(demo_snapshot, cat3_pod)
    cat3_pod["metadata"]["name"] = "orange-1"
    second = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    body = api.get(f"/api/snapshots/{demo_snapshot.pk}/analyses/").json()
    assert body["count"] == 2
    assert [a["id"] for a in body["results"]] == [second.pk, first.pk]
    assert [a["status"] for a in body["results"]] == ["queued", "done"]
    assert "result" not in body["results"][0]


def test_the_stranger_gets_404_everywhere(
    stranger_api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    link = services.share_link_create(analysis=analysis)
    sid, aid = demo_snapshot.pk, analysis.pk
    assert (
        stranger_api.post(
            f"/api/snapshots/{sid}/analyses/", {"pod": cat3_pod}, format="json"
        ).status_code
        == 404
    )
    assert stranger_api.get(f"/api/snapshots/{sid}/analyses/").status_code == 404
    assert stranger_api.get(f"/api/analyses/{aid}/").status_code == 404
    assert stranger_api.get(f"/api/analyses/{aid}/share-links/").status_code == 404
    assert stranger_api.post(f"/api/analyses/{aid}/share-links/").status_code == 404
    assert stranger_api.delete(f"/api/share-links/{link.token}/").status_code == 404
    assert Analysis.objects.count() == 1
    assert ShareLink.objects.active().count() == 1


def test_staff_see_only_their_own_analyses_as_everyone_does(
    staff: Any, demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    """DESIGN.md scopes everything to the requesting user; staff use /admin/ to see more."""
    analysis = _done(demo_snapshot, cat3_pod)
    c = APIClient()
    c.force_authenticate(staff)
    assert c.get(f"/api/analyses/{analysis.pk}/").status_code == 404


def test_anonymous_requests_are_refused(demo_snapshot: Any, cat3_pod: dict[str, Any]) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    r = APIClient().get(f"/api/analyses/{analysis.pk}/")
    assert r.status_code == 401 and r["WWW-Authenticate"] == "Token"  # as the schema says
    assert "result" not in r.json()


def test_a_token_authenticates(owner: Any, demo_snapshot: Any, cat3_pod: dict[str, Any]) -> None:
    token = Token.objects.create(user=owner)
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    r = c.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/",
        data=json.dumps({"pod": cat3_pod}),
        content_type="application/json",
    )
    assert r.status_code == 202


def test_a_snapshot_still_ingesting_answers_409(
    api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    demo_snapshot.status = "ingesting"
    demo_snapshot.save()
    r = api.post(f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"pod": cat3_pod}, format="json")
    assert r.status_code == 409
    assert "ingesting" in r.json()["snapshot"][0]


def test_share_links_are_created_listed_and_revoked(
    api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any], client: Any
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    r = api.post(f"/api/analyses/{analysis.pk}/share-links/")
    assert r.status_code == 201
    token = r.json()["token"]
    assert r.json()["url"] == f"http://testserver/s/{token}/"
    assert [s["token"] for s in api.get(f"/api/analyses/{analysis.pk}/share-links/").json()] == [
        token
    ]
    assert client.get(f"/s/{token}/").status_code == 200
    assert api.delete(f"/api/share-links/{token}/").status_code == 204
    assert client.get(f"/s/{token}/").status_code == 404
    assert api.delete(f"/api/share-links/{token}/").status_code == 404
    assert api.get(f"/api/analyses/{analysis.pk}/share-links/").json() == []


def test_the_schema_documents_the_analyses_api(api: APIClient) -> None:
    r = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200
    paths = json.loads(r.content)["paths"]
    post = paths["/api/snapshots/{snapshot_id}/analyses/"]["post"]
    assert set(post["responses"]) >= {"202", "400", "404"}
    assert post["summary"] == "Run a what-if analysis"
    assert "get" in paths["/api/analyses/{id}/"]
    assert "post" in paths["/api/analyses/{id}/share-links/"]
    assert "delete" in paths["/api/share-links/{token}/"]


def test_status_values_are_the_documented_ones() -> None:
    assert [s.value for s in AnalysisStatus] == ["queued", "running", "done", "failed"]
