"""GET /api/analyses/compare/?a=&b=: the owner's two analyses compared; anyone else's is
a 404, bad parameters a 400, an analysis without an answer a 409; never a 500."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from rest_framework.test import APIClient

from clusters.services import snapshot_load_demo
from planning.api.serializers import ComparisonSerializer
from planning.selectors import comparison_get
from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis
from tests.planning.conftest import demo_pod, deployment, run_workload

pytestmark = pytest.mark.django_db
URL = "/api/analyses/compare/"


@pytest.fixture
def stranger_api(stranger: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(stranger)
    return c


def test_it_answers_the_difference_first_then_both_sides(api: APIClient, pair: Any) -> None:
    a, b = pair
    r = api.get(URL, {"a": a.pk, "b": b.pk})
    assert r.status_code == 200, r.content
    body = r.json()
    # The demo (clusters/demo.py): node-5 has the youngest cat-1 pods; one purple replica
    # makes room for 1 CPU, a blue one more for 2 CPUs.
    assert body["sentence"] == "B preempts 1 more pod than A: default/blue-tcsrb-xlqml."
    assert body["same"] is False
    assert body["victims_added"] == ["default/blue-tcsrb-xlqml"]
    assert body["victims_removed"] == []
    assert body["victims_kept"] == ["default/purple-6ldlh-r7w65"]
    assert body["a"] == {
        "analysis": a.pk,
        "snapshot": {"id": a.snapshot_id, "name": a.snapshot.name},
        "kind": "pod",
        "pod": "default/orange-0",
        "priority_class": "cat-3",
        "priority": 30000,
        "outcome": "preempts",
        "node": "node-5",
        "nodes": ["node-5"],
        "victims": ["default/purple-6ldlh-r7w65"],
        "pdb_violations": 0,
        "pdbs": [],
        "placed": 1,
        "asked": 1,
        "recreated": None,
        "recreated_running": None,
    }
    assert (body["b"]["priority_class"], body["b"]["priority"]) == ("cat-2", 20000)
    # Each victim's owner loses one pod; a single pod's answer does not say how many run.
    assert {o["owner"]: o["b"] for o in body["owners"]} == {
        "ReplicaSet default/blue-tcsrb": {"running": None, "change": -1},
        "ReplicaSet default/purple-6ldlh": {"running": None, "change": -1},
    }
    assert {o["owner"]: o["a"] for o in body["owners"]}["ReplicaSet default/blue-tcsrb"] is None


def test_the_body_is_the_comparison_as_the_schema_describes_it(owner: Any, pair: Any) -> None:
    a, b = pair
    d = comparison_get(user=owner, a=a.pk, b=b.pk).to_dict()
    # The serializer renders every field of to_dict() unchanged: the schema lists them all.
    assert ComparisonSerializer(d).data == d


def test_anyone_elses_analysis_is_not_found(
    stranger_api: APIClient, api: APIClient, pair: Any, stranger: Any, no_broker: Any
) -> None:
    a, b = pair
    r = stranger_api.get(URL, {"a": a.pk, "b": b.pk})
    assert r.status_code == 404
    # One of the stranger's own, still queued, beside one of the owner's: 404 before 409,
    # so nothing is said of the owner's analysis.
    theirs = services.analysis_create(
        snapshot=snapshot_load_demo(owner=stranger), pod=demo_pod("x", "cat-1")
    )
    assert stranger_api.get(URL, {"a": theirs.pk, "b": a.pk}).status_code == 404
    assert api.get(URL, {"a": a.pk, "b": theirs.pk}).status_code == 404
    assert api.get(URL, {"a": a.pk, "b": 987654321}).status_code == 404


@pytest.mark.parametrize(
    "query,fields",
    [
        ({}, {"a", "b"}),
        ({"a": "1"}, {"b"}),
        ({"a": "x", "b": "2"}, {"a"}),
        ({"a": "1.5", "b": "-2"}, {"a", "b"}),
        ({"a": "0", "b": str(2**63)}, {"a", "b"}),
    ],
)
def test_bad_parameters_are_field_errors(api: APIClient, query: Any, fields: set[str]) -> None:
    r = api.get(URL, query)
    assert r.status_code == 400
    assert set(r.json()) == fields


def test_an_analysis_without_an_answer_is_a_conflict(
    api: APIClient, pair: Any, demo_snapshot: Any, no_broker: Any
) -> None:
    a, _ = pair
    queued = services.analysis_create(snapshot=demo_snapshot, pod=demo_pod("q", "cat-3"))
    r = api.get(URL, {"a": a.pk, "b": queued.pk})
    assert r.status_code == 409
    assert r.json() == {
        "b": [f"Analysis {queued.pk} (default/q) is queued: compare it once it is done."]
    }
    Analysis.objects.filter(pk=queued.pk).update(status=AnalysisStatus.FAILED)
    r = api.get(URL, {"a": queued.pk, "b": a.pk})
    assert r.status_code == 409
    assert "failed" in r.json()["a"][0]
    # Done without a stored answer (never written so by the worker): still a 409, not a 500.
    Analysis.objects.filter(pk=queued.pk).update(status=AnalysisStatus.DONE)
    r = api.get(URL, {"a": queued.pk, "b": a.pk})
    assert r.status_code == 409
    assert "has no stored answer" in r.json()["a"][0]


def test_a_login_is_needed(pair: Any) -> None:
    a, b = pair
    assert APIClient().get(URL, {"a": a.pk, "b": b.pk}).status_code == 401


def test_a_workload_with_and_without_its_victims_recreated(
    api: APIClient, demo_snapshot: Any, no_broker: Any
) -> None:
    web = [deployment("web", 3)]
    plain = run_workload(demo_snapshot, web)
    cascade = run_workload(demo_snapshot, web, recreate_victims=True)
    r = api.get(URL, {"a": plain.pk, "b": cascade.pk})
    assert r.status_code == 200, r.content
    body = r.json()
    # The demo is full: the three cat-3 replicas evict three cat-1 pods, and the
    # recreated cat-1 pods find no room (they cannot preempt their own class).
    assert body["same"] is True
    assert body["sentence"] == (
        "Both run all 3 replicas on node-4 and node-5, preempting 3 pods: same answer, "
        "though B recreates 3 victims (0 of them running again)."
    )
    assert body["b"]["kind"] == "workload" and body["b"]["asked"] == 3
    assert body["a"]["pdbs"] == ["default/purple-pdb"]
    owners = {o["owner"]: o["a"] for o in body["owners"]}
    assert owners["Deployment default/web"] == {"running": 3, "change": 3}
    assert owners["ReplicaSet default/purple-6ldlh"] == {"running": 2, "change": -2}


def test_the_schema_documents_it(api: APIClient) -> None:
    r = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi")
    schema = yaml.safe_load(r.content)
    op = schema["paths"]["/api/analyses/compare/"]["get"]
    assert {(p["name"], p["required"]) for p in op["parameters"]} == {("a", True), ("b", True)}
    assert {"200", "400", "401", "404", "409"} <= set(op["responses"])
    answer = schema["components"]["schemas"]["Answer"]["properties"]
    assert {"outcome", "victims", "pdbs", "snapshot"} <= set(answer)
    # The analyses' enums keep their names: an answer's kind and outcome share them.
    assert answer["kind"] == {"$ref": "#/components/schemas/KindEnum"}
    assert answer["outcome"]["allOf"] == [{"$ref": "#/components/schemas/OutcomeEnum"}]


def test_a_capacity_answer_is_not_compared_and_says_why(
    api: APIClient, pair: Any, demo_snapshot: Any, no_broker: Any
) -> None:
    a, _ = pair
    counted = services.analysis_run(
        analysis_id=services.analysis_create_capacity(
            snapshot=demo_snapshot, pod=demo_pod("c", "cat-3"), limit=3
        ).pk
    )
    assert counted.is_done
    r = api.get(URL, {"a": a.pk, "b": counted.pk})
    assert r.status_code == 409
    assert "counts how many replicas fit" in r.json()["b"][0]
