"""What a user reaches for on an answer: edit and run it again, run it on another
snapshot, take it away as a file, delete it (and its share links)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from rest_framework.test import APIClient

from clusters.demo import demo_cat3_pod
from clusters.services import snapshot_load_demo
from scheduling import services
from scheduling.models import Analysis, ShareLink
from tests.clusters.builders import make_deployment

pytestmark = pytest.mark.django_db


def _done(snapshot: Any) -> Analysis:
    return services.analysis_run(
        analysis_id=services.analysis_create(snapshot=snapshot, pod=demo_cat3_pod()).pk
    )


def test_edit_and_run_again_starts_the_form_from_what_was_submitted(
    owner_client: Any, demo_snapshot: Any
) -> None:
    analysis = _done(demo_snapshot)
    body = owner_client.get(analysis.get_absolute_url()).content.decode()
    assert f"?from={analysis.pk}" in body
    form = owner_client.get(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/?from={analysis.pk}"
    ).content.decode()
    assert "orange-0" in form and "priorityClassName: cat-3" in form


def test_the_same_what_if_runs_on_another_snapshot(
    owner_client: Any, owner: Any, demo_snapshot: Any
) -> None:
    analysis = _done(demo_snapshot)
    other = snapshot_load_demo(owner=owner)
    r = owner_client.post(f"/analyses/{analysis.pk}/rerun/", {"snapshot": other.pk})
    again = Analysis.objects.exclude(pk=analysis.pk).get()
    assert r.status_code == 302 and r["Location"] == again.get_absolute_url()
    assert again.snapshot_id == other.pk and again.pod == analysis.pod


def test_another_users_snapshot_is_not_a_target(
    owner_client: Any, stranger: Any, demo_snapshot: Any
) -> None:
    analysis = _done(demo_snapshot)
    theirs = snapshot_load_demo(owner=stranger)
    r = owner_client.post(f"/analyses/{analysis.pk}/rerun/", {"snapshot": theirs.pk})
    assert r.status_code == 404 and Analysis.objects.count() == 1


def test_exports_give_the_contract_and_the_pull_request_comment(
    owner_client: Any, demo_snapshot: Any
) -> None:
    analysis = _done(demo_snapshot)
    r = owner_client.get(f"/analyses/{analysis.pk}/export.json")
    assert r["Content-Disposition"] == f'attachment; filename="whatif-{analysis.pk}.json"'
    assert json.loads(r.content) == analysis.result
    md = owner_client.get(f"/analyses/{analysis.pk}/export.md")
    text = md.content.decode()
    assert md["Content-Type"].startswith("text/markdown")
    assert text.startswith("### preemptlab: `default/orange-0` on snapshot")
    assert "**Preempts 1 pod on node-5.**" in text


def test_deleting_an_analysis_takes_its_share_links_along(
    owner_client: Any, client: Any, demo_snapshot: Any
) -> None:
    analysis = _done(demo_snapshot)
    link = services.share_link_create(analysis=analysis)
    assert owner_client.get(f"/analyses/{analysis.pk}/delete/").status_code == 405
    r = owner_client.post(f"/analyses/{analysis.pk}/delete/")
    assert r.status_code == 302
    assert not Analysis.objects.exists() and not ShareLink.objects.exists()
    assert client.get(link.get_absolute_url()).status_code == 404


def test_the_api_deletes_an_analysis(owner: Any, stranger: Any, demo_snapshot: Any) -> None:
    analysis = _done(demo_snapshot)
    theirs = APIClient()
    theirs.force_authenticate(stranger)
    assert theirs.delete(f"/api/analyses/{analysis.pk}/").status_code == 404
    api = APIClient()
    api.force_authenticate(owner)
    assert api.delete(f"/api/analyses/{analysis.pk}/").status_code == 204
    assert api.get(f"/api/analyses/{analysis.pk}/").status_code == 404


def test_a_workload_edits_and_reruns_with_its_objects(
    owner_client: Any, owner: Any, demo_snapshot: Any
) -> None:
    pod = demo_cat3_pod()
    deployment = make_deployment("orange", pod["spec"], replicas=3)
    analysis = services.analysis_create_workload(
        snapshot=demo_snapshot, objects=[deployment], recreate_victims=True
    )
    form = owner_client.get(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/?from={analysis.pk}"
    ).content.decode()
    assert "kind: Deployment" in form and "replicas: 3" in form
    other = snapshot_load_demo(owner=owner)
    again = services.analysis_rerun(analysis=analysis, snapshot=other)
    assert again.recreate_victims and again.pod["objects"] == analysis.pod["objects"]
    assert yaml.safe_load(services.analysis_manifest(analysis=analysis))["kind"] == "Deployment"


def test_the_analyses_list_filters_by_name_outcome_class_and_snapshot(
    owner_client: Any, owner: Any, demo_snapshot: Any
) -> None:
    preempts = _done(demo_snapshot)  # cat-3 on the demo: preempts
    other = snapshot_load_demo(owner=owner)
    small = demo_cat3_pod()
    small["metadata"]["name"] = "lemon-0"
    small["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "10m"}}
    small["spec"]["priorityClassName"] = "cat-1"
    fits = services.analysis_run(analysis_id=services.analysis_create(snapshot=other, pod=small).pk)
    assert (preempts.outcome, fits.outcome) == ("preempts", "fits")

    def listed(query: str) -> list[str]:
        body = owner_client.get(f"/analyses/?{query}").content.decode()
        return sorted(re.findall(r"<code>(default/[a-z]+-0)</code></a>", body))

    assert listed("") == ["default/lemon-0", "default/orange-0"]
    assert listed("q=lemon") == ["default/lemon-0"]
    assert listed("outcome=preempts") == ["default/orange-0"]
    assert listed("class=cat-1") == ["default/lemon-0"]
    assert listed(f"snapshot={demo_snapshot.pk}") == ["default/orange-0"]
    assert listed("outcome=nonsense") == ["default/lemon-0", "default/orange-0"]


def test_an_unschedulable_pods_node_cell_is_a_dash_not_null(
    owner_client: Any, demo_snapshot: Any
) -> None:
    pod = demo_cat3_pod()
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "500"}}
    a = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=demo_snapshot, pod=pod).pk
    )
    assert a.outcome == "unschedulable"
    body = owner_client.get(f"/snapshots/{demo_snapshot.pk}/analyses/").content.decode()
    row = body[body.index("<tbody") :][:1200]
    assert '<td class="name">—</td>' in row and ">null<" not in row
