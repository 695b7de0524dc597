"""How many fit (kind capacity): submitted over the API, the what-if form and the room page,
run as the other kinds are, shown on its own page and through its share links."""

from __future__ import annotations

import json
import re
from io import StringIO
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from clusters.demo import demo_cat3_pod, demo_objects
from scheduling import services
from scheduling.constants import AnalysisKind, AnalysisStatus, Outcome
from scheduling.engine.capacity import MAX_LIMIT, Size
from scheduling.models import Analysis

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _queued_only(no_broker: Any) -> Any:
    # Each test runs the analysis in-process, as the worker would (test_worker runs one
    # on a real worker).
    return no_broker


@pytest.fixture
def stranger_api(stranger: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(stranger)
    return c


def _post(api: APIClient, snapshot: Any, body: dict[str, Any]) -> Any:
    return api.post(f"/api/snapshots/{snapshot.pk}/analyses/", body, format="json")


def _run(analysis_id: int) -> Analysis:
    return services.analysis_run(analysis_id=analysis_id)


# The API ------------------------------------------------------------------------------


def test_it_queues_a_capacity_analysis_and_answers_with_the_demo_count(
    api: APIClient, demo_snapshot: Any
) -> None:
    r = _post(api, demo_snapshot, {"kind": "capacity", "pod": demo_cat3_pod(), "limit": 20})
    assert r.status_code == 202, r.content
    analysis = Analysis.objects.get(pk=r.json()["id"])
    assert analysis.kind == AnalysisKind.CAPACITY
    assert analysis.pod_key == "default/orange-0"
    assert analysis.pod["limit"] == 20
    _run(analysis.pk)
    body = api.get(r.json()["url"]).json()
    assert body["status"] == "done"
    assert body["kind"] == "capacity"
    result = body["result"]
    # clusters/demo.py: none fits now; 3+3+3+3+2 replicas by preempting the 14 cat-1 and
    # cat-2 pods (tests/engine/test_capacity.py counts them by node).
    assert (result["fit_now"], result["fit_by_preempting"], result["unplaced"]) == (0, 14, 6)
    assert result["victims_by_class"] == {"cat-2": 6, "cat-1": 8}
    assert len(result["curve"]) == 14 and result["curve"][-1]["victims_total"] == 14
    assert body["outcome"] == Outcome.PREEMPTS
    assert body["summary"].startswith("No replica of this 1 CPU, 2Gi cat-3 pod fits")


def test_a_manifest_with_one_pod_and_its_class_is_a_template(
    api: APIClient, owner_client: Any, demo_snapshot: Any
) -> None:
    manifest = (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: cat-9}\n"
        "value: 90000\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: default}\n"
        "spec:\n  priorityClassName: cat-9\n  containers:\n  - name: c\n    image: x\n"
        "    resources: {requests: {cpu: '3'}}\n"
    )
    r = _post(api, demo_snapshot, {"kind": "capacity", "manifest": manifest, "limit": 5})
    assert r.status_code == 202, r.content
    analysis = _run(r.json()["id"])
    assert analysis.priority_classes[0]["metadata"]["name"] == "cat-9"
    room = analysis.result
    assert room is not None
    assert room["template"]["priority"] == 90000
    # A 3-CPU pod needs all three 1-CPU app pods of a node gone (300-400m are free): at
    # most one replica on each of node-1..node-4; node-5 keeps its 1-CPU ingress pod.
    assert room["fit_now"] == 0 and room["fit_by_preempting"] == 4
    page = owner_client.get(analysis.get_absolute_url()).content.decode()
    assert 'id="submitted-classes"' in page and "cat-9" in page


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "capacity", "pod": "x", "limit": 5}, "pod"),
        ({"kind": "capacity", "limit": 5}, "non_field_errors"),
        (
            {"kind": "capacity", "pod": {}, "size": {"cpu": "1", "memory": "1Gi"}},
            "non_field_errors",
        ),
        ({"kind": "capacity", "pod": None, "limit": 0}, "limit"),
        ({"kind": "capacity", "limit": MAX_LIMIT + 1}, "limit"),
        ({"kind": "capacity", "limit": "many"}, "limit"),
        ({"kind": "capacity", "size": {"cpu": "two", "memory": "1Gi"}}, "size"),
        ({"kind": "capacity", "size": {"cpu": "1"}}, "size"),
        ({"kind": "capacity", "manifest": "kind: Deployment\nmetadata: {name: d}\n"}, "manifest"),
        ({"kind": "capacity", "pod": {"kind": "Pod"}, "timeline": True}, "timeline"),
        ({"kind": "capacity", "objects": [{"kind": "Pod"}]}, "objects"),
        ({"pod": {"kind": "Pod", "metadata": {"name": "p"}}, "limit": 5}, "limit"),
        ({"kind": "sideways", "pod": {}}, "kind"),
    ],
)
def test_bad_input_answers_400_under_its_field_and_stores_nothing(
    api: APIClient, demo_snapshot: Any, body: dict[str, Any], field: str
) -> None:
    r = _post(api, demo_snapshot, body)
    assert r.status_code == 400, r.content
    assert field in r.json(), r.json()
    assert not Analysis.objects.exists()


def test_an_unknown_class_in_the_template_answers_400_under_pod(
    api: APIClient, demo_snapshot: Any
) -> None:
    pod = demo_cat3_pod()
    pod["spec"]["priorityClassName"] = "cat-99"
    r = _post(api, demo_snapshot, {"kind": "capacity", "pod": pod})
    assert r.status_code == 400
    assert "cat-99" in r.json()["pod"][0]
    assert not Analysis.objects.exists()


def test_the_limit_defaults_to_a_hundred(api: APIClient, demo_snapshot: Any) -> None:
    r = _post(api, demo_snapshot, {"kind": "capacity", "pod": demo_cat3_pod()})
    assert r.status_code == 202
    assert Analysis.objects.get().pod["limit"] == 100


def test_every_class_at_once_over_the_api(api: APIClient, demo_snapshot: Any) -> None:
    r = _post(
        api,
        demo_snapshot,
        {"kind": "capacity", "size": {"cpu": "1", "memory": "2Gi"}, "limit": 20},
    )
    assert r.status_code == 202, r.content
    analysis = _run(r.json()["id"])
    assert analysis.pod_key == "every class, 1 CPU / 2Gi"
    result = analysis.result
    assert result is not None
    rows = {row["priority_class"]: row for row in result["classes"]}
    # cat-2 preempts only the 8 cat-1 pods (a replica per freed CPU); cat-1 no one.
    assert rows["cat-2"]["fit_by_preempting"] == 8
    assert rows["cat-1"]["unplaced"] == 20
    assert result["size"] == {"cpu": "1", "memory": "2Gi"}


def test_a_bad_size_is_named_once_in_the_error(api: APIClient, demo_snapshot: Any) -> None:
    r = _post(api, demo_snapshot, {"kind": "capacity", "size": {"cpu": "two", "memory": "1Gi"}})
    assert r.status_code == 400
    (message,) = r.json()["size"]
    assert message.startswith("cpu: 'two' is not a quantity")


def test_another_users_snapshot_and_analysis_answer_404(
    api: APIClient, stranger_api: APIClient, demo_snapshot: Any
) -> None:
    r = _post(stranger_api, demo_snapshot, {"kind": "capacity", "pod": demo_cat3_pod(), "limit": 3})
    assert r.status_code == 404
    r = _post(api, demo_snapshot, {"kind": "capacity", "pod": demo_cat3_pod(), "limit": 3})
    analysis_id = r.json()["id"]
    _run(analysis_id)
    assert stranger_api.get(f"/api/analyses/{analysis_id}/").status_code == 404
    assert stranger_api.post(f"/api/analyses/{analysis_id}/share-links/").status_code == 404


# The pages ------------------------------------------------------------------------------


def _done(snapshot: Any, limit: int = 20) -> Analysis:
    a = services.analysis_create_capacity(snapshot=snapshot, pod=demo_cat3_pod(), limit=limit)
    return _run(a.pk)


def test_the_result_page_says_it_in_a_sentence_first(owner_client: Any, demo_snapshot: Any) -> None:
    analysis = _done(demo_snapshot)
    html = owner_client.get(analysis.get_absolute_url()).content.decode()
    verdict = html.index('id="outcome"')
    assert (
        "No replica of this 1 CPU, 2Gi cat-3 pod fits as the cluster stands; 14 fit by "
        "preempting 14 pods of cat-1 and cat-2, exceeding 4 PDBs; 6 cannot be placed "
        "within the limit of 20"
    ) in html[verdict:]
    assert verdict < html.index('id="curve-svg"') < html.index('id="replicas"')
    # The curve draws one column per placed replica and marks each PDB taken past budget.
    assert len(re.findall(r'<g class="replica" data-replica="\d+"', html)) == 14
    assert len(re.findall(r'<line class="pdb-mark"', html)) == 4
    assert len(re.findall(r'<tr data-replica="\d+"', html)) == 14


def test_the_replicas_table_is_paginated(owner_client: Any, demo_snapshot: Any) -> None:
    # A template that fits 60 times (100m of CPU, room on every node): two pages of 50.
    pod = demo_cat3_pod()
    pod["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "5m", "memory": "1Mi"}
    a = services.analysis_create_capacity(snapshot=demo_snapshot, pod=pod, limit=60)
    analysis = _run(a.pk)
    assert analysis.room is not None and analysis.room.fit_now == 60
    first = owner_client.get(analysis.get_absolute_url()).content.decode()
    second = owner_client.get(analysis.get_absolute_url() + "?replicas=2").content.decode()
    assert len(re.findall(r'<tr data-replica="\d+"', first)) == 50
    assert len(re.findall(r'<tr data-replica="\d+"', second)) == 10
    assert (
        'data-replica="60"' in second and 'data-replica="60"' not in first.split('id="replicas"')[1]
    )


def test_a_share_link_shows_this_analysis_only_until_revoked(
    client: Any, demo_snapshot: Any
) -> None:
    analysis = _done(demo_snapshot)
    other = _done(demo_snapshot, limit=3)
    link = services.share_link_create(analysis=analysis)
    r = client.get(f"/s/{link.token}/")
    assert r.status_code == 200
    html = r.content.decode()
    assert "6 cannot be placed within the limit of 20" in html
    assert f"/analyses/{other.pk}/" not in html and f"/analyses/{analysis.pk}/" not in html
    assert demo_snapshot.name not in html
    services.share_link_revoke(share_link=link)
    assert client.get(f"/s/{link.token}/").status_code == 404


def test_the_what_if_forms_how_many_fit_button(owner_client: Any, demo_snapshot: Any) -> None:
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: orange, namespace: default}\n"
        "spec:\n  priorityClassName: cat-3\n  containers:\n  - name: c\n    image: x\n"
        "    resources: {requests: {cpu: '1', memory: 2Gi}}\n"
    )
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {"mode": "manifest", "manifest": manifest, "action": "capacity", "limit": "7"},
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    analysis = Analysis.objects.get()
    assert (analysis.kind, analysis.pod["limit"]) == (AnalysisKind.CAPACITY, 7)
    assert r["Location"] == analysis.get_absolute_url()
    # The short form's pod too, with its limit.
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {
            "mode": "form",
            "name": "small",
            "namespace": "default",
            "priority_class": "cat-3",
            "cpu": "1",
            "memory": "2Gi",
            "action": "capacity",
            "limit": "3",
        },
    )
    assert r.status_code == 302
    assert Analysis.objects.filter(kind=AnalysisKind.CAPACITY).count() == 2


def test_the_button_refuses_a_workload_and_a_bad_limit(
    owner_client: Any, demo_snapshot: Any
) -> None:
    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n"
        "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
        "    spec: {containers: [{name: c, image: x}]}\n"
    )
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {"mode": "manifest", "manifest": deployment, "action": "capacity", "limit": "5"},
    )
    assert r.status_code == 400
    assert "takes one Pod" in r.content.decode()
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {
            "mode": "manifest",
            "manifest": "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n",
            "action": "capacity",
            "limit": str(MAX_LIMIT + 1),
        },
    )
    assert r.status_code == 400
    assert f"from 1 to {MAX_LIMIT:,}" in r.content.decode()
    assert not Analysis.objects.exists()


def test_the_room_page_queues_every_class_and_shows_the_table(
    owner_client: Any, demo_snapshot: Any
) -> None:
    url = f"/snapshots/{demo_snapshot.pk}/room/"
    page = owner_client.get(url + "?cpu=2&memory=4Gi&limit=50").content.decode()
    # The link's values fill the form; nothing is queued by a GET.
    assert 'value="2"' in page and 'value="4Gi"' in page and 'value="50"' in page
    assert not Analysis.objects.exists()
    r = owner_client.post(url, {"cpu": "1", "memory": "2Gi", "limit": "20"})
    assert r.status_code == 302
    analysis = _run(Analysis.objects.get().pk)
    html = owner_client.get(analysis.get_absolute_url()).content.decode()
    rows = re.findall(r'<tr data-class="([^"]+)">', html)
    assert rows == ["cluster-service", "cat-3", "cat-2", "cat-1"]
    cat2 = html[html.index('data-class="cat-2"') :]
    assert re.search(r'data-col="by-preempting">8<', cat2)


def test_the_same_room_table_asked_again_follows_the_one_stored(
    owner_client: Any, demo_snapshot: Any
) -> None:
    url = f"/snapshots/{demo_snapshot.pk}/room/"
    asked = {"cpu": "1", "memory": "2Gi", "limit": "20"}
    first = owner_client.post(url, asked)
    queued = Analysis.objects.get()
    # Still queued: asked again, the page follows the same analysis (no second loop run).
    assert owner_client.post(url, asked)["Location"] == first["Location"]
    _run(queued.pk)
    assert owner_client.post(url, asked)["Location"] == queued.get_absolute_url()
    assert Analysis.objects.count() == 1
    # Another limit, another size: another question, another analysis.
    assert owner_client.post(url, {**asked, "limit": "21"})["Location"] != first["Location"]
    assert owner_client.post(url, {**asked, "cpu": "1000m"})["Location"] != first["Location"]
    assert Analysis.objects.count() == 3
    # A failed one is not followed: asking again queues it anew.
    Analysis.objects.filter(pk=queued.pk).update(status=AnalysisStatus.FAILED)
    assert owner_client.post(url, asked)["Location"] != first["Location"]


def test_the_room_page_refuses_a_bad_size(owner_client: Any, demo_snapshot: Any) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/room/", {"cpu": "lots", "memory": "2Gi", "limit": "5"}
    )
    assert r.status_code == 400
    assert "is not an amount of CPU" in r.content.decode()
    assert not Analysis.objects.exists()


def test_a_stranger_gets_404_on_the_pages(stranger_client: Any, demo_snapshot: Any) -> None:
    analysis = _done(demo_snapshot, limit=3)
    assert stranger_client.get(analysis.get_absolute_url()).status_code == 404
    assert stranger_client.get(f"/snapshots/{demo_snapshot.pk}/room/").status_code == 404


def test_rerun_and_edit_keep_the_template_and_the_limit(demo_snapshot: Any) -> None:
    analysis = _done(demo_snapshot, limit=4)
    again = services.analysis_rerun(analysis=analysis, snapshot=demo_snapshot)
    assert (again.kind, again.pod) == (analysis.kind, analysis.pod)
    assert "name: orange-0" in services.analysis_manifest(analysis=analysis)
    table = services.analysis_create_capacity(
        snapshot=demo_snapshot, size=Size("1", "2Gi"), limit=2
    )
    again = services.analysis_rerun(analysis=table, snapshot=demo_snapshot)
    assert again.pod == {"objects": [], "size": {"cpu": "1", "memory": "2Gi"}, "limit": 2}


def test_the_analyses_list_shows_the_sentence_and_the_victims(
    owner_client: Any, demo_snapshot: Any
) -> None:
    analysis = _done(demo_snapshot)
    assert analysis.status == AnalysisStatus.DONE
    html = owner_client.get(f"/snapshots/{demo_snapshot.pk}/analyses/").content.decode()
    assert "14 fit by preempting 14 pods" in html
    row = html[html.index(analysis.get_absolute_url()) :]
    assert re.search(r'<td class="num"[^>]*>14</td>', row)


def test_edit_and_run_again_starts_from_what_was_asked(
    owner_client: Any, demo_snapshot: Any
) -> None:
    analysis = _done(demo_snapshot, limit=4)
    page = owner_client.get(analysis.get_absolute_url()).content.decode()
    edit = re.search(r'id="edit-rerun" href="([^"]+)"', page)
    assert edit is not None
    form = owner_client.get(edit.group(1).replace("&amp;", "&")).content.decode()
    assert "name: orange-0" in form and 'id="capacity-limit" value="4"' in form
    table = _run(
        services.analysis_create_capacity(snapshot=demo_snapshot, size=Size("2", "4Gi"), limit=9).pk
    )
    page = owner_client.get(table.get_absolute_url()).content.decode()
    edit = re.search(r'id="edit-rerun" href="([^"]+)"', page)
    assert edit is not None
    assert edit.group(1).replace("&amp;", "&") == (
        f"/snapshots/{demo_snapshot.pk}/room/?cpu=2&memory=4Gi&limit=9"
    )


def test_the_comparison_offers_a_capacity_answer_beside_capacity_answers_only(
    owner_client: Any, demo_snapshot: Any
) -> None:
    capacity = _done(demo_snapshot, limit=3)
    table = _run(
        services.analysis_create_capacity(snapshot=demo_snapshot, size=Size("1", "2Gi"), limit=3).pk
    )
    pod = _run(services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod()).pk)
    other = _run(services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod()).pk)
    page = owner_client.get(pod.get_absolute_url()).content.decode()
    picker = page.split('id="compare-with"', 1)[1]
    assert f'value="{other.pk}"' in picker
    assert f'value="{capacity.pk}"' not in picker and f'value="{table.pk}"' not in picker
    page = owner_client.get(capacity.get_absolute_url()).content.decode()
    picker = page.split('id="compare-with"', 1)[1]
    assert f'value="{table.pk}"' in picker
    assert f'value="{pod.pk}"' not in picker and f'value="{other.pk}"' not in picker


def test_out_of_time_fails_naming_the_limit_and_a_retry_answers(
    demo_snapshot: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_ANALYSIS_SECONDS = 0.0  # spent before the first cycle ends
    failed = _done(demo_snapshot, limit=20)
    assert failed.status == AnalysisStatus.FAILED
    assert "PREEMPTLAB_ANALYSIS_SECONDS" in failed.error
    assert failed.result is None
    settings.PREEMPTLAB_ANALYSIS_SECONDS = 120.0
    again = _run(services.analysis_retry(analysis=failed).pk)
    assert again.status == AnalysisStatus.DONE and again.attempts == 2
    assert again.room is not None and again.room.fit_by_preempting == 14


def test_a_result_too_large_to_store_fails_saying_so(demo_snapshot: Any, settings: Any) -> None:
    settings.PREEMPTLAB_MAX_RESULT_BYTES = 1000  # the demo's answer of 14 replicas is larger
    failed = _done(demo_snapshot, limit=20)
    assert failed.status == AnalysisStatus.FAILED
    assert "PREEMPTLAB_MAX_RESULT_BYTES" in failed.error


# The command line ------------------------------------------------------------------------


def _files(tmp_path: Any) -> tuple[str, str]:
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(demo_objects()))
    pod = tmp_path / "pod.yaml"
    pod.write_text(yaml.safe_dump(demo_cat3_pod()))
    return str(snap), str(pod)


def test_whatif_capacity_prints_the_answer_as_json_and_as_text(tmp_path: Any) -> None:
    snap, pod = _files(tmp_path)
    out = StringIO()
    call_command("whatif", snap, pod, "--capacity", "20", "--format", "json", stdout=out)
    answer = json.loads(out.getvalue())
    assert (answer["fit_now"], answer["fit_by_preempting"], answer["unplaced"]) == (0, 14, 6)
    out = StringIO()
    call_command("whatif", snap, pod, "--capacity", "20", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("No replica of this 1 CPU, 2Gi cat-3 pod fits as the cluster")
    assert sum(1 for line in lines if " preempts on node-" in line) == 14


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--capacity", "0"], "from 1 to"),
        (["--capacity", "5", "--fail-on-preempt"], "does not take a --fail-on/--protect gate"),
        (["--capacity", "5", "--timeline"], "does not take --timeline"),
        (["--capacity", "5", "--format", "markdown"], "does not take --format markdown"),
    ],
)
def test_whatif_capacity_refuses_what_does_not_apply(
    tmp_path: Any, extra: list[str], says: str
) -> None:
    snap, pod = _files(tmp_path)
    with pytest.raises(CommandError, match=says):
        call_command("whatif", snap, pod, *extra, stdout=StringIO())
