"""The advice API: 202 to ask and while it runs, 200 with the contract when done, 409
with words for an analysis advice cannot answer, 404 for another user's analysis; and the
result page's section, the share link's read-only one and Apply."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from advice import services as advice_services
from advice.apply import PatchError, json_patch
from advice.models import Advice
from scheduling import services
from scheduling.engine.advice import (
    AddNodes,
    AdviceItem,
    AdviceKind,
    Answer,
    CreateObjects,
    KindSearch,
    ObjectPatch,
    Proof,
    StepLess,
)
from scheduling.engine.advice import (
    Advice as EngineAdvice,
)
from scheduling.models import Analysis
from tests.planning.conftest import demo_pod, deployment, run_pod, run_workload

pytestmark = pytest.mark.django_db

ITEM_KEYS = {"kind", "change", "outcome", "node", "victims", "pdbs_exceeded", "proof"}


def _url(analysis: Analysis) -> str:
    return f"/api/analyses/{analysis.pk}/advice/"


@pytest.fixture
def preempting(no_broker: Any, demo_snapshot: Any) -> Analysis:
    """The demo's question: the cat-3 pod preempts one cat-1 pod on node-5."""
    analysis = run_pod(demo_snapshot, demo_pod("orange", "cat-3"))
    assert analysis.outcome == "preempts"
    return analysis


def test_ask_follow_and_read_the_contract(
    api: APIClient, preempting: Analysis, no_advice_broker: Any
) -> None:
    r = api.post(_url(preempting))
    assert r.status_code == 202, r.content
    body = r.json()
    assert body["status"] == "queued" and body["analysis"] == preempting.pk
    assert r["Location"] == body["url"] and body["url"].endswith(_url(preempting))
    no_advice_broker.assert_called_once()
    # Queued: 202, and asking again keeps the one row.
    assert api.get(_url(preempting)).status_code == 202
    assert api.post(_url(preempting)).status_code == 202
    assert Advice.objects.filter(analysis=preempting).count() == 1

    row = Advice.objects.get(analysis=preempting)
    advice_services.advice_run(advice_id=row.pk)
    done = api.get(_url(preempting))
    assert done.status_code == 200, done.content
    answer = done.json()
    assert answer["status"] == "done"
    assert isinstance(answer["advice"], list)
    for item in answer["advice"]:
        assert set(item) == ITEM_KEYS
        assert set(item["proof"]) == {"runs", "seconds", "one_step_less"}
    # The question's own answer, as the analysis gave it.
    assert answer["baseline"]["outcome"] == "preempts"
    assert answer["baseline"]["victims"] == preempting.result["victims"]
    assert answer["search"]["runs"] >= 1
    row.refresh_from_db()
    assert row.attempts == 1 and row.runs_done == answer["search"]["runs"]
    assert row.engine_version and row.finished_at is not None


def test_another_users_analysis_is_not_found(
    preempting: Analysis, stranger: Any, no_advice_broker: Any
) -> None:
    other = APIClient()
    other.force_authenticate(stranger)
    assert other.post(_url(preempting)).status_code == 404
    assert other.get(_url(preempting)).status_code == 404
    assert not Advice.objects.exists()
    no_advice_broker.assert_not_called()


def test_nothing_asked_yet_is_404_with_words(api: APIClient, preempting: Analysis) -> None:
    r = api.get(_url(preempting))
    assert r.status_code == 404
    assert "POST" in r.json()["detail"]


def test_a_capacity_answer_is_409_with_words(
    api: APIClient, no_broker: Any, demo_snapshot: Any, no_advice_broker: Any
) -> None:
    queued = services.analysis_create_capacity(
        snapshot=demo_snapshot, pod=demo_pod("orange", "cat-3"), limit=3
    )
    capacity = services.analysis_run(analysis_id=queued.pk)
    assert capacity.is_done
    for call in (api.post, api.get):
        r = call(_url(capacity))
        assert r.status_code == 409
        assert "how many fit" in r.json()["detail"]
    assert not Advice.objects.exists()


def test_a_running_analysis_is_409_with_words(
    api: APIClient, no_broker: Any, demo_snapshot: Any, no_advice_broker: Any
) -> None:
    queued = services.analysis_create(snapshot=demo_snapshot, pod=demo_pod("o", "cat-3"))
    r = api.post(_url(queued))
    assert r.status_code == 409
    assert "still queued" in r.json()["detail"]
    Analysis.objects.filter(pk=queued.pk).update(status="failed", error="x")
    r = api.post(_url(queued))
    assert r.status_code == 409 and "failed" in r.json()["detail"]


def test_a_workload_is_asked_with_its_own_objects(
    api: APIClient, no_broker: Any, demo_snapshot: Any, no_advice_broker: Any
) -> None:
    workload = run_workload(demo_snapshot, [deployment("orange", 6)])
    assert workload.is_done
    assert api.post(_url(workload)).status_code == 202
    row = Advice.objects.get(analysis=workload)
    advice_services.advice_run(advice_id=row.pk)
    body = api.get(_url(workload)).json()
    assert body["status"] == "done"
    assert body["baseline"]["outcome"] == workload.outcome
    kinds = [item["kind"] for item in body["advice"]]
    assert "smaller-request" in kinds and "add-nodes" in kinds, kinds
    # Apply on a workload: the form holds the Deployment with the change made.
    first = kinds.index("smaller-request")
    (op,) = [o for o in body["advice"][first]["change"]["patch"] if o["path"].endswith("/cpu")]
    client = Client()
    client.force_login(workload.snapshot.owner)
    assert 'id="to-advice"' in client.get(workload.get_absolute_url()).content.decode()
    apply = client.get(f"/analyses/{workload.pk}/advice/{first}/apply/")
    (manifest,) = yaml.safe_load_all(
        client.get(apply["Location"]).context["manifest_form"]["manifest"].value()
    )
    container = manifest["spec"]["template"]["spec"]["containers"][0]
    assert manifest["kind"] == "Deployment" and manifest["spec"]["replicas"] == 6
    assert container["resources"]["requests"]["cpu"] == op["value"] != "1"


def test_unfinished_work_is_counted_as_analyses_are(
    api: APIClient, preempting: Analysis, settings: Any, no_advice_broker: Any
) -> None:
    settings.PREEMPTLAB_UNFINISHED_PER_USER = 1
    assert api.post(_url(preempting)).status_code == 202
    # The queued advice holds the user's one slot: a what-if now waits for it.
    r = api.post(
        f"/api/snapshots/{preempting.snapshot_id}/analyses/",
        {"pod": demo_pod("another", "cat-3")},
        format="json",
    )
    assert r.status_code == 429


def test_a_patch_that_does_not_apply_is_refused_in_words() -> None:
    doc = {"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]}}
    path = "/spec/containers/0/resources/requests/cpu"
    out = json_patch(doc, [{"op": "replace", "path": path, "value": "400m"}])
    assert out["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "400m"
    assert doc["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "1"  # kept
    for bad in ("/spec/nothing/here", "/spec/containers/3/name", "/spec/containers/x/name"):
        with pytest.raises(PatchError):
            json_patch(doc, [{"op": "replace", "path": bad, "value": 1}])


def _stored(analysis: Analysis, items: list[AdviceItem]) -> Advice:
    """A done advice holding these items (the engine's search is the engine's tests')."""
    answer = EngineAdvice(
        items=tuple(items),
        baseline=Answer("preempts", "node-5", ("default/purple-1",), ()),
    )
    return Advice.objects.create(
        analysis=analysis,
        status="done",
        answer=answer.to_dict(),
        engine_version=advice_services.ENGINE_VERSION,
    )


SMALLER = AdviceItem(
    kind=AdviceKind.SMALLER_REQUEST,
    change=ObjectPatch(
        0,
        ({"op": "replace", "path": "/spec/containers/0/resources/requests/cpu", "value": "370m"},),
    ),
    outcome="fits",
    node="node-2",
    victims=(),
    pdbs_exceeded=(),
    proof=Proof(3, 0.02, StepLess(None, "preempts", ("default/purple-1",))),
)
MORE_NODES = AdviceItem(
    kind=AdviceKind.ADD_NODES,
    change=AddNodes(1, "node-5"),
    outcome="fits",
    node="node-5-copy-1",
    victims=(),
    pdbs_exceeded=(),
    proof=Proof(2, 0.01, None),
)

PROTECT = AdviceItem(
    kind=AdviceKind.PROTECT,
    change=CreateObjects(
        (
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": "purple-guard", "namespace": "default"},
                "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": "purple"}}},
            },
        )
    ),
    outcome="preempts",
    node="node-4",
    victims=("default/blue-1",),
    pdbs_exceeded=(),
    proof=Proof(1, 0.01, None),
)


def test_the_page_section_apply_and_the_share_link(
    client: Client, owner: Any, preempting: Analysis
) -> None:
    _stored(preempting, [SMALLER, MORE_NODES, PROTECT])
    client.force_login(owner)
    page = client.get(preempting.get_absolute_url()).content.decode()
    assert 'id="advice"' in page and "How to avoid this" in page
    assert "spec.containers[0].resources.requests.cpu to 370m" in page
    assert "create PodDisruptionBudget default/purple-guard (maxUnavailable 0)" in page
    assert f"/analyses/{preempting.pk}/advice/0/apply/" in page
    # Apply a patch: the what-if form holding the pod with the change made.
    apply = client.get(f"/analyses/{preempting.pk}/advice/0/apply/")
    assert apply.status_code == 302
    form = client.get(apply["Location"]).content.decode()
    assert "cpu: 370m" in form and "name: orange" in form
    # Apply more nodes: what to do, since the form takes no nodes.
    nodes = client.get(f"/analyses/{preempting.pk}/advice/1/apply/").content.decode()
    assert "Add 1 node like node-5" in nodes and "new snapshot" in nodes
    # What the change then does, in words, never the outcome's code ("the what-if fits").
    assert "Proven: with this change fits without evicting anyone" in nodes
    assert "the what-if fits" not in nodes
    # Protect: the budget's YAML to apply.
    guard = client.get(f"/analyses/{preempting.pk}/advice/2/apply/").content.decode()
    assert "Create PodDisruptionBudget default/purple-guard" in guard
    assert "kind: PodDisruptionBudget" in guard and "maxUnavailable: 0" in guard
    # Items that do not exist, or an item that is no patch given to the form: not found.
    assert client.get(f"/analyses/{preempting.pk}/advice/7/apply/").status_code == 404
    new = f"/snapshots/{preempting.snapshot_id}/analyses/new/?from={preempting.pk}"
    assert client.get(new + "&advice=1").status_code == 404
    assert client.get(new + "&advice=x").status_code == 404

    # A share link shows the advice read-only: no Apply, no way to start one.
    token = services.share_link_create(analysis=preempting).token
    anonymous = Client()
    shared = anonymous.get(f"/s/{token}/").content.decode()
    assert "370m" in shared and "/apply/" not in shared and "advice-start" not in shared
    assert anonymous.post(f"/s/{token}/advice/").status_code == 405
    assert anonymous.post(f"/analyses/{preempting.pk}/advice/").status_code in (302, 404)


def test_the_section_offers_advice_only_where_the_answer_hurts(
    client: Client, owner: Any, no_broker: Any, demo_snapshot: Any, no_advice_broker: Any
) -> None:
    client.force_login(owner)
    fits = run_pod(demo_snapshot, demo_pod("small", "cat-3", cpu="100m"))
    assert fits.outcome == "fits"
    fits_page = client.get(fits.get_absolute_url()).content.decode()
    assert "Find how to avoid it" not in fits_page and 'href="#advice"' not in fits_page
    hurts = run_pod(demo_snapshot, demo_pod("orange", "cat-3"))
    page = client.get(hurts.get_absolute_url()).content.decode()
    # The verdict points down to the section, which offers the search.
    assert 'id="to-advice"' in page and "Find how to avoid it" in page
    # The button, as htmx posts it: queued, and the section polls.
    r = client.post(f"/analyses/{hurts.pk}/advice/", HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and "Queued" in r.content.decode()
    assert 'hx-trigger="every 1s"' in r.content.decode()
    no_advice_broker.assert_called_once()


def test_the_section_follows_a_running_analysis_then_offers_advice(
    client: Client, owner: Any, no_broker: Any, demo_snapshot: Any
) -> None:
    client.force_login(owner)
    queued = services.analysis_create(snapshot=demo_snapshot, pod=demo_pod("orange", "cat-3"))
    section = f"/analyses/{queued.pk}/advice/"
    waiting = client.get(section, HTTP_HX_REQUEST="true")
    # Nothing to offer yet, but the section keeps asking (the answer is not in), at half
    # the rate of the result body's own poll.
    assert waiting.status_code == 200 and 'hx-trigger="every 2s"' in waiting.content.decode()
    assert "Find how to avoid it" not in waiting.content.decode()
    services.analysis_run(analysis_id=queued.pk)
    done = client.get(section, HTTP_HX_REQUEST="true")
    assert done.status_code == 286  # htmx stops polling
    assert "Find how to avoid it" in done.content.decode()
    # Without htmx the section is part of the result page.
    plain = client.get(section)
    assert plain.status_code == 302 and plain["Location"].endswith("#advice")


def test_the_admin_lists_advice(client: Client, preempting: Analysis) -> None:
    _stored(preempting, [SMALLER])
    admin = get_user_model().objects.create_superuser("admin", "admin@example.com", "x")
    client.force_login(admin)
    r = client.get("/admin/advice/advice/")
    assert r.status_code == 200 and f"advice on analysis {preempting.pk}" in r.content.decode()


def test_progress_while_it_runs_and_an_early_stop_said_in_words(
    client: Client, owner: Any, preempting: Analysis
) -> None:
    client.force_login(owner)
    row = Advice.objects.create(analysis=preempting, status="running", runs_done=7)
    section = f"/analyses/{preempting.pk}/advice/"
    r = client.get(section, HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and "engine run 8" in r.content.decode()
    stopped = EngineAdvice(
        items=(SMALLER,),
        baseline=Answer("preempts", "node-5", ("default/purple-1",), ()),
        searches=(
            KindSearch(AdviceKind.SMALLER_REQUEST, 3, 0.5),
            KindSearch(AdviceKind.ADD_NODES, 9, 119.5, stopped="budget"),
        ),
        seconds=120.2,
    )
    Advice.objects.filter(pk=row.pk).update(
        status="done", answer=stopped.to_dict(), engine_version=advice_services.ENGINE_VERSION
    )
    done = client.get(section, HTTP_HX_REQUEST="true").content.decode()
    assert "13 engine runs in 120 s" in done
    assert "Stopped early: more nodes at the advice&#x27;s time (120 s" in done
    body = APIClient()
    body.force_authenticate(owner)
    search = body.get(_url(preempting)).json()["search"]
    assert search["stopped_early"] is True and search["kinds"][1]["stopped"] == "budget"
