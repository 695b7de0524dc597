"""GET /api/analyses/compare/?a=&b=: the owner's two analyses compared; anyone else's is
a 404, bad parameters a 400, an analysis without an answer a 409; never a 500."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from rest_framework.test import APIClient

from clusters.services import snapshot_load_demo
from planning.api.serializers import CapacityComparisonSerializer, ComparisonSerializer
from planning.selectors import comparison_get
from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.engine.capacity import Size
from scheduling.models import Analysis
from tests.engine.builders import as_list, make_node, make_pod, make_priority_class
from tests.planning.conftest import demo_pod, deployment, run_pod, run_workload
from tests.scheduling.conftest import make_snapshot

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
        "tied_nodes": [],
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


def run_capacity(snapshot: Any, **question: Any) -> Analysis:
    """A capacity what-if queued and run as the worker runs it."""
    queued = services.analysis_create_capacity(snapshot=snapshot, **question)
    done = services.analysis_run(analysis_id=queued.pk)
    assert done.is_done, done.error
    return done


def test_a_capacity_answer_against_a_pods_keeps_its_conflict_and_says_why(
    api: APIClient, pair: Any, demo_snapshot: Any, no_broker: Any
) -> None:
    a, _ = pair
    counted = run_capacity(demo_snapshot, pod=demo_pod("c", "cat-3"), limit=3)
    r = api.get(URL, {"a": a.pk, "b": counted.pk})
    assert r.status_code == 409
    assert r.json() == {
        "b": [
            "A is a pod's and B a capacity answer: compare two answers of the same kind "
            "(two capacity answers, or pods' and workloads')."
        ]
    }
    workload = run_workload(demo_snapshot, [deployment("web", 1)])
    r = api.get(URL, {"a": counted.pk, "b": workload.pk})
    assert r.status_code == 409
    assert r.json()["a"][0].startswith("A is a capacity answer and B a workload's: compare")


def test_replicas_of_a_size_before_and_after(
    api: APIClient, demo_snapshot: Any, no_broker: Any
) -> None:
    # The demo's cat-3 pod of 1 CPU and 2Gi: no room as the cluster stands, 14 replicas by
    # preempting 14 cat-1 and cat-2 pods (tests/scheduling/test_capacity.py); 3 asked for
    # stop at 3, each taking one pod.
    few = run_capacity(demo_snapshot, pod=demo_pod("c", "cat-3"), limit=3)
    many = run_capacity(demo_snapshot, pod=demo_pod("c", "cat-3"), limit=20)
    r = api.get(URL, {"a": few.pk, "b": many.pk})
    assert r.status_code == 200, r.content
    body = r.json()
    # The budgets the demo's PDBs allow, as the engine counted them past their allowance.
    budgets = [len(x.room.pdbs_exceeded) for x in (few, many)]  # type: ignore[union-attr]
    assert budgets[0] < budgets[1]
    assert body["sentence"] == (
        "B fits 11 more replicas of 1 CPU / 2Gi than A (3 → 14); 11 more victims (3 → 14), "
        f"PDBs exceeded {budgets[0]} → {budgets[1]} (A placed all 3 asked for: there may be "
        "more room)."
    )
    assert body["kind"] == "capacity" and body["same"] is False
    assert body["a"]["form"] == "replicas" and body["a"]["pod"] == "default/c"
    assert body["a"]["size"] == {"cpu": "1", "memory": "2Gi"}
    assert (body["a"]["limit"], body["b"]["limit"]) == (3, 20)
    (cat3,) = body["classes"]
    assert cat3["priority_class"] == "cat-3"
    b = {k: v for k, v in cat3["b"].items() if k != "pdbs_exceeded"}
    assert b == {
        "priority_class": "cat-3",
        "priority": 30000,
        "fit_now": 0,
        "fit_by_preempting": 14,
        "placed": 14,
        "unplaced": 6,
        "victims": 14,
    }
    assert (cat3["replicas_change"], cat3["victims_change"]) == (11, 11)
    assert CapacityComparisonSerializer(body).data == body


def test_the_room_per_tier_before_and_after_a_new_class(
    api: APIClient, demo_snapshot: Any, no_broker: Any
) -> None:
    size = Size("1", "2Gi")
    before = run_capacity(demo_snapshot, size=size, limit=20)
    cat4 = make_priority_class("cat-4", 40000)
    after = run_capacity(demo_snapshot, size=size, limit=20, priority_classes=[cat4])
    r = api.get(URL, {"a": before.pk, "b": after.pk})
    assert r.status_code == 200, r.content
    body = r.json()
    classes = ["cluster-service", "cat-4", "cat-3", "cat-2", "cat-1"]
    assert [c["priority_class"] for c in body["classes"]] == classes
    new = body["classes"][1]
    assert new["a"] is None
    # cat-4 outranks every app pod as cat-3 does: the same room as cat-3's, from the
    # engine's own table of after.
    room = after.room
    assert room is not None
    row = {r.priority_class: r for r in room.rows}["cat-4"]
    assert (new["b"]["placed"], new["b"]["victims"]) == (14, row.victims_total)
    # The other tiers' room is the same: the new class only adds a row.
    assert [c["replicas_change"] for c in body["classes"]] == [0, 14, 0, 0, 0]
    assert body["sentence"] == (
        f"B adds cat-4: 14 replicas of 1 CPU / 2Gi fit, preempting {row.victims_total} pods; "
        "the other 4 classes are unchanged."
    )
    assert body["a"]["form"] == body["b"]["form"] == "by-class"
    assert CapacityComparisonSerializer(body).data == body
    # A pod's replicas against the table: its class alone.
    pod = run_capacity(demo_snapshot, pod=demo_pod("c", "cat-3"), limit=20)
    body = api.get(URL, {"a": pod.pk, "b": after.pk}).json()
    assert [c["priority_class"] for c in body["classes"]] == ["cat-3"]


def test_a_tie_is_kept_and_is_not_a_move(api: APIClient, owner: Any, no_broker: Any) -> None:
    # Two empty nodes alike: a pod of 1 CPU scores the same on both (kube-scheduler picks
    # one at random); one that selects node-b goes there alone.
    snapshot = make_snapshot(
        owner,
        as_list(
            make_node("node-a").capacity(cpu="4", memory="8Gi").label("zone", "a").obj(),
            make_node("node-b").capacity(cpu="4", memory="8Gi").label("zone", "b").obj(),
        ),
    )
    free = run_pod(snapshot, make_pod("free").req(cpu="1").obj())
    assert free.result is not None and free.result["tied_nodes"] == ["node-a", "node-b"]
    pinned = run_pod(snapshot, make_pod("pinned").req(cpu="1").node_selector(zone="b").obj())
    body = api.get(URL, {"a": pinned.pk, "b": free.pk}).json()
    assert body["sentence"] == (
        "Both fit, A on node-b and B on node-a or node-b (tied; kube-scheduler picks one at "
        "random): both may land on node-b."
    )
    assert body["b"]["node"] == "node-a" and body["b"]["nodes"] == ["node-a"]
    assert body["b"]["tied_nodes"] == ["node-a", "node-b"]
    assert body["a"]["tied_nodes"] == []
    again = run_pod(snapshot, make_pod("again").req(cpu="1").obj())
    body = api.get(URL, {"a": again.pk, "b": free.pk}).json()
    assert body["same"] is True
    assert body["sentence"] == (
        "Both fit on node-a or node-b (tied; kube-scheduler picks one at random): same answer."
    )


def test_the_schema_documents_the_capacity_shape(api: APIClient) -> None:
    r = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi")
    schema = yaml.safe_load(r.content)
    ok = schema["paths"]["/api/analyses/compare/"]["get"]["responses"]["200"]
    one_of = ok["content"]["application/json"]["schema"]
    parts = schema["components"]["schemas"][one_of["$ref"].rsplit("/", 1)[1]]["oneOf"]
    assert {p["$ref"].rsplit("/", 1)[1] for p in parts} == {
        "Comparison",
        "CapacityComparison",
    }
    components = schema["components"]["schemas"]
    assert {"kind", "sentence", "same", "a", "b", "classes"} <= set(
        components["CapacityComparison"]["properties"]
    )
    assert {"form", "size", "limit", "classes"} <= set(components["CapacityAnswer"]["properties"])
    assert {"fit_now", "placed", "victims"} <= set(components["Room"]["properties"])
    assert "tied_nodes" in components["Answer"]["properties"]
