"""Taking nodes away (kind take-nodes-away): asked over the API, the Nodes page's form
and a connected cluster's page; run as the other kinds are; shown on its own page,
through its share link and as Markdown. The hand-made cluster of
tests/scheduling/nodes_away_scenario.py gives the expected answers."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from scheduling import services
from scheduling.constants import AnalysisKind, AnalysisStatus
from scheduling.engine.take_nodes_away import TakeNodesAway, take_nodes_away
from scheduling.models import Analysis
from tests.scheduling.conftest import make_snapshot
from tests.scheduling.nodes_away_scenario import (
    BARE,
    DAEMON,
    LOW_2000,
    REPLICAS,
    nodes_away_objects,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _queued_only(no_broker: Any) -> Any:
    # Each test runs the analysis in-process, as the worker would (the worker test runs
    # one on a real worker).
    return no_broker


@pytest.fixture
def snapshot(owner: Any) -> Any:
    return make_snapshot(owner, nodes_away_objects(), name="three nodes")


def _post(api: APIClient, snapshot: Any, body: dict[str, Any]) -> Any:
    return api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/",
        {"kind": "take-nodes-away", **body},
        format="json",
    )


def _done(api: APIClient, r: Any) -> dict[str, Any]:
    assert r.status_code == 202, r.content
    services.analysis_run(analysis_id=r.json()["id"])
    body: dict[str, Any] = api.get(r.json()["url"]).json()
    assert body["status"] == "done", body["error"]
    return body


# The API ------------------------------------------------------------------------------


def test_draining_node_1_with_force_completes_and_preempts_the_2000m_pod(
    api: APIClient, snapshot: Any
) -> None:
    body = _done(api, _post(api, snapshot, {"nodes": ["node-1"], "force": True}))
    assert body["kind"] == "take-nodes-away"
    assert body["outcome"] == "completes"
    result = body["result"]
    assert result["kind"] == "take-nodes-away" and result["how"] == "drain"
    assert result["verdict"] == "completes"
    assert body["summary"] == result["sentence"][:500] and result["sentence"]
    (node,) = result["nodes"]
    assert node["node"] == "node-1"
    assert sorted(node["evicted"]) == sorted(REPLICAS)
    assert node["deleted"] == [BARE]
    assert node["left"] == [DAEMON]
    assert node["blocked"] == [] and node["stopped_at"] is None
    # The replacements: the first fits on node-2, the second preempts the 2000m pod there.
    returning = result["returning"]
    assert sorted(r["replaces"] for r in returning) == sorted(REPLICAS)
    assert [r["node"] for r in returning] == ["node-2", "node-2"]
    (preemption,) = result["preemptions"]
    assert preemption["node"] == "node-2"
    assert preemption["victims"] == [LOW_2000]
    assert preemption["preemptor"] == returning[1]["pod"]
    assert result["pending"] == []
    # The stored result is the engine's own answer on the same objects.
    assert (
        result
        == take_nodes_away(
            nodes_away_objects(), TakeNodesAway.from_dict({"nodes": ["node-1"], "force": True})
        ).to_dict()
    )


def test_without_force_the_drain_stops_at_the_bare_pod(api: APIClient, snapshot: Any) -> None:
    body = _done(api, _post(api, snapshot, {"nodes": ["node-1"]}))
    assert body["outcome"] == "stopped"
    assert body["result"]["verdict"] == "stopped"
    assert body["result"]["nodes"][0]["stopped_at"] == BARE


def test_a_pdb_allowing_no_disruption_blocks_the_drain_naming_budget_and_pod(
    api: APIClient, owner: Any
) -> None:
    snap = make_snapshot(owner, nodes_away_objects(min_available=2), name="min 2")
    body = _done(api, _post(api, snap, {"nodes": ["node-1"], "force": True}))
    assert body["outcome"] == "blocked"
    blocked = body["result"]["nodes"][0]["blocked"]
    assert blocked and {b["pdb"] for b in blocked} == {"default/web-pdb"}
    assert {b["pod"] for b in blocked} <= set(REPLICAS)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"nodes": ["node-9"]}, "nodes"),
        ({"nodes": ["node-1"], "how": "melted"}, "how"),
        ({"nodes": ["node-1"], "force": "very"}, "force"),
        ({"nodes": ["node-1"], "max_unavailable": 0}, "max_unavailable"),
        ({"nodes": ["node-1"], "add_nodes": {"count": 2, "like": "node-9"}}, "add_nodes"),
        ({"nodes": ["node-1"], "pod": {"kind": "Pod"}}, "pod"),
        ({"selector": "pool=gpu"}, "selector"),
        ({"selector": "pool in (a"}, "selector"),
        ({"zone": "zone-z"}, "zone"),
    ],
)
def test_a_bad_body_answers_400_naming_the_field_and_stores_nothing(
    api: APIClient, snapshot: Any, body: dict[str, Any], field: str
) -> None:
    r = _post(api, snapshot, body)
    assert r.status_code == 400, r.content
    errors = r.json()
    assert list(errors) == [field], errors
    assert isinstance(errors[field], list) and errors[field][0]
    assert not Analysis.objects.exists()


def test_no_nodes_named_answers_400(api: APIClient, snapshot: Any) -> None:
    r = _post(api, snapshot, {"how": "drain"})
    assert r.status_code == 400, r.content
    assert not Analysis.objects.exists()


def test_the_fields_of_taking_nodes_away_are_refused_on_another_kind(
    api: APIClient, snapshot: Any
) -> None:
    r = api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/",
        {"pod": {"kind": "Pod"}, "nodes": ["node-1"]},
        format="json",
    )
    assert r.status_code == 400
    assert "take-nodes-away" in r.json()["nodes"][0]


# The pages ----------------------------------------------------------------------------


def test_the_nodes_page_ticks_lead_to_the_form_with_the_nodes_filled_in(
    owner_client: Client, snapshot: Any
) -> None:
    page = owner_client.get(f"/snapshots/{snapshot.pk}/nodes/").content.decode()
    assert 'form="take-nodes-away"' in page and 'value="node-1"' in page
    form = owner_client.get(
        f"/snapshots/{snapshot.pk}/take-nodes-away/?nodes=node-1&nodes=node-2"
    ).content.decode()
    assert re.search(r"<textarea[^>]*>\s*node-1\nnode-2</textarea>", form), form


def test_the_form_queues_it_and_the_page_reads_the_answer(
    owner_client: Client, snapshot: Any
) -> None:
    r = owner_client.post(
        f"/snapshots/{snapshot.pk}/take-nodes-away/",
        {"nodes": "node-1", "how": "drain", "force": "on"},
    )
    assert r.status_code == 302
    analysis = Analysis.objects.get()
    assert analysis.kind == AnalysisKind.TAKE_NODES_AWAY
    assert analysis.pod["nodes"] == ["node-1"] and analysis.pod["force"] is True
    assert analysis.pod_key == "drain node-1 (force)"
    services.analysis_run(analysis_id=analysis.pk)
    page = owner_client.get(r["Location"]).content.decode()
    analysis.refresh_from_db()
    assert analysis.status == AnalysisStatus.DONE
    # The sentence first, then the picture, the nodes, the returning pods, the preemption.
    assert (
        page.index('id="outcome"')
        < page.index('id="nodes-picture"')
        < page.index('id="away-nodes"')
        < page.index('id="returning"')
        < page.index('id="away-preemptions"')
    )
    assert analysis.summary in page.replace("&#x27;", "'")
    assert 'data-verdict="completes"' in page
    assert f'data-victim="{LOW_2000}"' in page
    assert 'class="pod-block preempted"' in page
    # No advice app for this kind: the page says which change applies.
    assert "Add nodes like node-1 before taking these away" in page
    assert 'id="advice" class="card advice" hidden' in page
    # "Edit and run again" opens the form holding the same question.
    edit = f"/snapshots/{snapshot.pk}/take-nodes-away/?nodes=node-1&amp;how=drain&amp;force=1"
    assert f'id="edit-rerun" href="{edit}"' in page
    form = owner_client.get(edit.replace("&amp;", "&")).content.decode()
    assert 'name="force" id="id_force" checked' in form


def test_a_bad_form_shows_the_refusal_beside_its_field(owner_client: Client, snapshot: Any) -> None:
    r = owner_client.post(
        f"/snapshots/{snapshot.pk}/take-nodes-away/", {"nodes": "node-9", "how": "drain"}
    )
    assert r.status_code == 400
    assert "node-9" in r.content.decode().split('id="id_nodes-errors"', 1)[1][:300]
    r = owner_client.post(f"/snapshots/{snapshot.pk}/take-nodes-away/", {"how": "drain"})
    assert r.status_code == 400 and "exactly one of the three" in r.content.decode()
    assert not Analysis.objects.exists()


def test_the_share_link_shows_the_answer_until_revoked(
    api: APIClient, client: Client, snapshot: Any
) -> None:
    body = _done(api, _post(api, snapshot, {"nodes": ["node-1"], "force": True}))
    link = api.post(f"/api/analyses/{body['id']}/share-links/").json()
    page = client.get(f"/s/{link['token']}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert 'data-verdict="completes"' in text and "What if these nodes go away" in text
    assert api.delete(f"/api/share-links/{link['token']}/").status_code == 204
    assert client.get(f"/s/{link['token']}/").status_code == 404


def test_the_markdown_export_reads_the_answer(
    api: APIClient, owner_client: Client, snapshot: Any
) -> None:
    body = _done(api, _post(api, snapshot, {"nodes": ["node-1"]}))
    md = owner_client.get(f"/analyses/{body['id']}/export.md").content.decode()
    assert md.startswith("### Draining nodes on snapshot")
    assert "`default/bare`" in md and body["result"]["sentence"] in md


def test_a_rerun_on_another_snapshot_asks_the_same_question(
    api: APIClient, owner: Any, snapshot: Any
) -> None:
    body = _done(api, _post(api, snapshot, {"nodes": ["node-1"], "force": True}))
    other = make_snapshot(owner, nodes_away_objects(min_available=2), name="other")
    again = services.analysis_rerun(
        analysis=Analysis.objects.get(pk=body["id"]), snapshot=other, requested_by=owner
    )
    assert (
        again.kind == AnalysisKind.TAKE_NODES_AWAY
        and again.pod == Analysis.objects.get(pk=body["id"]).pod
    )
    assert services.analysis_run(analysis_id=again.pk).outcome == "blocked"


def test_a_connected_clusters_page_offers_its_pools_and_zones(
    owner: Any, owner_client: Client
) -> None:
    from connected.services import cluster_create

    objects = nodes_away_objects()
    for o in objects:
        if o["kind"] == "Node":
            o["metadata"]["labels"]["topology.kubernetes.io/zone"] = "zone-a"
            o["metadata"]["labels"]["karpenter.sh/nodepool"] = (
                "batch" if o["metadata"]["name"] == "node-1" else "general"
            )
    cluster = cluster_create(name="prod", source="fake", owner=owner)
    page = owner_client.get(f"/clusters/{cluster.pk}/").content.decode()
    assert 'id="cluster-take-nodes-away"' in page and 'id="away-groups"' not in page
    snap = make_snapshot(owner, objects, name="prod read")
    snap.cluster = cluster
    snap.save(update_fields=["cluster"])
    page = owner_client.get(f"/clusters/{cluster.pk}/").content.decode()
    url = f"/snapshots/{snap.pk}/take-nodes-away/"
    assert f'href="{url}?selector=karpenter.sh/nodepool%3Dbatch"' in page
    assert f'href="{url}?zone=zone-a&amp;how=lost"' in page
    form = owner_client.get(f"{url}?selector=karpenter.sh/nodepool%3Dbatch").content.decode()
    assert 'value="karpenter.sh/nodepool=batch"' in form


def test_the_lists_filter_by_verdict(api: APIClient, snapshot: Any) -> None:
    stopped = _done(api, _post(api, snapshot, {"nodes": ["node-1"]}))
    completes = _done(api, _post(api, snapshot, {"nodes": ["node-1"], "force": True}))
    url = f"/api/snapshots/{snapshot.pk}/analyses/"
    assert [a["id"] for a in api.get(f"{url}?outcome=stopped").json()["results"]] == [stopped["id"]]
    assert [a["id"] for a in api.get(f"{url}?outcome=completes").json()["results"]] == [
        completes["id"]
    ]
    assert api.get(f"{url}?outcome=blocked").json()["results"] == []


def test_a_run_deleted_at_its_first_cycle_stops_there(
    api: APIClient, snapshot: Any, monkeypatch: Any
) -> None:
    from scheduling.running.budgets import AnalysisBudget
    from scheduling.services import take_nodes_away as service

    r = _post(api, snapshot, {"nodes": ["node-1"], "force": True})
    analysis_id = r.json()["id"]
    watch = AnalysisBudget.watch
    cycles: list[int] = []

    def deleted_when_it_starts(self: Any, on_cycle: Any = None) -> Any:
        check = watch(self, on_cycle)

        def first(cycle: int) -> None:
            cycles.append(cycle)
            Analysis.objects.filter(pk=analysis_id).delete()  # as DELETE does mid-run
            check(cycle)

        return first

    monkeypatch.setattr(service.AnalysisBudget, "watch", deleted_when_it_starts)
    services.analysis_run(analysis_id=analysis_id)
    # The engine reported its first cycle, the progress writer found no row, the run
    # stopped there: nothing stored, no second cycle.
    assert cycles == [cycles[0]]
    assert not Analysis.objects.filter(pk=analysis_id).exists()
