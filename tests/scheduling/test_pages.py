"""The submit pages and the result page, as a browser without htmx and with it."""

from __future__ import annotations

import html as html_lib
import re
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis

pytestmark = pytest.mark.django_db

MANIFEST = """apiVersion: v1
kind: Pod
metadata:
  name: orange-0
spec:
  priorityClassName: cat-3
  containers:
  - name: orange
    resources:
      requests: {cpu: "1", memory: 2Gi}
"""


@pytest.fixture(autouse=True)
def _no_broker() -> Any:
    with mock.patch("scheduling.tasks.analysis_run_task.delay") as delay:
        yield delay


def _field_errors(html: str, field_id: str) -> str:
    """The error list rendered right under one form field."""
    m = re.search(rf'<ul class="errorlist" id="{field_id}-errors">(.*?)</ul>', html, re.S)
    assert m, f"no errors next to {field_id}"
    return html_lib.unescape(m.group(1))


def _done(snapshot: Any, pod: dict[str, Any]) -> Analysis:
    a = services.analysis_create(snapshot=snapshot, pod=pod)
    return services.analysis_run(analysis_id=a.pk)


def test_it_submits_a_pasted_manifest(owner_client: Any, demo_snapshot: Any) -> None:
    url = f"/snapshots/{demo_snapshot.pk}/analyses/new/"
    r = owner_client.post(url, {"mode": "manifest", "manifest": MANIFEST})
    analysis = Analysis.objects.get()
    assert r.status_code == 302 and r["Location"] == f"/analyses/{analysis.pk}/"
    assert analysis.pod_key == "default/orange-0" and analysis.source == "manifest"


def test_it_submits_an_uploaded_manifest(owner_client: Any, demo_snapshot: Any) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("pod.yaml", MANIFEST.encode())
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/", {"mode": "manifest", "file": upload}
    )
    assert r.status_code == 302
    assert Analysis.objects.get().pod["spec"]["priorityClassName"] == "cat-3"


def test_it_shows_a_manifest_error_next_to_the_field(owner_client: Any, demo_snapshot: Any) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {"mode": "manifest", "manifest": MANIFEST.replace("cat-3", "cat-7")},
    )
    assert r.status_code == 400
    errors = _field_errors(r.content.decode(), "id_manifest")
    assert "no PriorityClass with name cat-7 was found" in errors
    assert "cat-7" in r.content.decode()  # the pasted text is kept
    assert not Analysis.objects.exists()


def test_the_short_form_lists_the_snapshots_classes(owner_client: Any, demo_snapshot: Any) -> None:
    html = owner_client.get(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/?mode=form"
    ).content.decode()
    for name in ("cat-1", "cat-2", "cat-3", "cluster-service"):
        assert f'<option value="{name}">' in html


def test_it_submits_the_short_form(owner_client: Any, demo_snapshot: Any) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {
            "mode": "form",
            "name": "batch-1",
            "namespace": "jobs",
            "priority_class": "cat-2",
            "cpu": "250m",
            "memory": "1Gi",
            "tolerations": "dedicated=gpu:NoSchedule",
            "node_selector": "topology.kubernetes.io/zone=zone-a",
        },
    )
    assert r.status_code == 302, r.content.decode()
    analysis = Analysis.objects.get()
    assert analysis.pod_key == "jobs/batch-1" and analysis.source == "form"
    spec = analysis.pod["spec"]
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "250m", "memory": "1Gi"}
    assert spec["tolerations"] == [
        {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
    ]
    assert spec["nodeSelector"] == {"topology.kubernetes.io/zone": "zone-a"}


def test_the_short_form_shows_a_bad_quantity_next_to_its_field(
    owner_client: Any, demo_snapshot: Any
) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {"mode": "form", "name": "w", "namespace": "default", "cpu": "1", "memory": "lots"},
    )
    assert r.status_code == 400
    html = r.content.decode()
    assert (
        "“lots” is not an amount of memory Kubernetes can read. Write a number and a unit: 512Mi"
        in _field_errors(html, "id_memory")
    )
    assert 'id="id_cpu-errors"' not in html


def test_a_pod_row_is_cloned_with_another_class(owner_client: Any, demo_snapshot: Any) -> None:
    row = demo_snapshot.pods.filter(name__startswith="blue-").order_by("name").first()
    url = f"/snapshots/{demo_snapshot.pk}/pods/{row.pk}/what-if/"
    page = owner_client.get(url)
    assert page.status_code == 200
    assert f"{row.name}-whatif" in page.content.decode()
    r = owner_client.post(url, {"priority_class": "cat-3"})
    analysis = Analysis.objects.get()
    assert r.status_code == 302 and analysis.source == "clone"
    assert analysis.pod_key == f"default/{row.name}-whatif"
    assert analysis.pod["spec"]["priorityClassName"] == "cat-3"
    assert "nodeName" not in analysis.pod["spec"] and "priority" not in analysis.pod["spec"]


def test_the_pods_list_links_each_pod_to_its_clone(owner_client: Any, demo_snapshot: Any) -> None:
    row = demo_snapshot.pods.order_by("namespace", "name").first()
    html = owner_client.get(f"/snapshots/{demo_snapshot.pk}/pods/").content.decode()
    assert f'href="/snapshots/{demo_snapshot.pk}/pods/{row.pk}/what-if/"' in html


def test_a_queued_analysis_page_polls(owner_client: Any, demo_snapshot: Any, cat3_pod: Any) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    html = owner_client.get(f"/analyses/{analysis.pk}/").content.decode()
    assert 'hx-trigger="every 1s"' in html
    assert "Queued" in html
    assert f'<a href="/analyses/{analysis.pk}/">Refresh</a>' in html
    r = owner_client.get(
        f"/analyses/{analysis.pk}/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="analysis-body"
    )
    assert r.status_code == 200  # keep polling
    assert "<html" not in r.content.decode()


def test_polling_stops_with_286_once_done(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    r = owner_client.get(
        f"/analyses/{analysis.pk}/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="analysis-body"
    )
    assert r.status_code == 286
    html = r.content.decode()
    assert "every 1s" not in html
    assert f"Preempts 1 pod on {analysis.result['node']}." in html


def test_polling_stops_on_failure_and_shows_the_error(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    services.analysis_fail(analysis_id=analysis.pk, error="The worker ran out of memory.")
    r = owner_client.get(
        f"/analyses/{analysis.pk}/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="analysis-body"
    )
    assert r.status_code == 286
    assert "The worker ran out of memory." in r.content.decode()


def test_the_result_page_shows_the_decision(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    result = analysis.result
    html = owner_client.get(f"/analyses/{analysis.pk}/").content.decode()
    victim = result["victims"][0]
    assert f"Preempts 1 pod on {result['node']}." in html
    assert f"<code>{victim}</code>" in html
    assert len(re.findall(r'<tr class="victim[ "]', html)) == 1
    # One row per candidate, the winner first and marked, every other one marked where it lost.
    rows = re.findall(r'<tr class="(winner|eliminated)" data-node="([^"]+)"', html)
    assert [n for _, n in rows] == [c["node"] for c in result["candidates"]]
    assert rows[0] == ("winner", result["node"])
    assert html.count('class="num eliminator"') == len(result["candidates"]) - 1
    assert "Fewest PodDisruptionBudget violations" in html
    assert "<svg" in html and 'class="seg-victim"' in html and 'class="seg-pod"' in html
    assert "FailedScheduling" in html
    assert 'hx-trigger="every 1s"' not in html


def test_an_unschedulable_pod_says_why_preemption_cannot_help(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    cat3_pod["spec"]["nodeSelector"] = {"disk": "nvme"}
    analysis = _done(demo_snapshot, cat3_pod)
    html = owner_client.get(f"/analyses/{analysis.pk}/").content.decode()
    assert analysis.result["outcome"] == "unschedulable"
    assert "Cannot be scheduled, and preemption cannot help." in html
    assert (
        "Preemption cannot help on any node. 5 nodes: unresolvable: evicting pods cannot fix it "
        "(node(s) didn&#x27;t match Pod&#x27;s node affinity/selector)." in html
    )
    assert "5 nodes</strong>: node(s) didn&#x27;t match Pod&#x27;s node affinity/selector" in html


def test_a_pod_that_fits_says_where(owner_client: Any, demo_snapshot: Any, cat3_pod: Any) -> None:
    cat3_pod["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "100m", "memory": "64Mi"}
    analysis = _done(demo_snapshot, cat3_pod)
    html = owner_client.get(f"/analyses/{analysis.pk}/").content.decode()
    assert analysis.result["outcome"] == "fits"
    assert f"Fits on {analysis.result['node']}" in html
    assert f"Successfully assigned default/orange-0 to {analysis.result['node']}" in html


def test_the_stranger_gets_404_from_every_page(
    stranger_client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    link = services.share_link_create(analysis=analysis)
    row = demo_snapshot.pods.first()
    for url in (
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        f"/snapshots/{demo_snapshot.pk}/analyses/",
        f"/snapshots/{demo_snapshot.pk}/pods/{row.pk}/what-if/",
        f"/analyses/{analysis.pk}/",
        f"/analyses/{analysis.pk}/rejected/0/",
    ):
        assert stranger_client.get(url).status_code == 404, url
    assert stranger_client.post(f"/analyses/{analysis.pk}/share-links/").status_code == 404
    assert (
        stranger_client.post(
            f"/analyses/{analysis.pk}/share-links/{link.token}/revoke/"
        ).status_code
        == 404
    )
    assert stranger_client.post(f"/analyses/{analysis.pk}/retry/").status_code == 404
    assert analysis.share_links.active().count() == 1


def test_share_links_are_made_and_revoked_on_the_page(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    r = owner_client.post(f"/analyses/{analysis.pk}/share-links/")
    assert r.status_code == 302 and r["Location"] == f"/analyses/{analysis.pk}/#share"
    link = analysis.share_links.get()
    assert (
        f"http://testserver/s/{link.token}/"
        in owner_client.get(f"/analyses/{analysis.pk}/").content.decode()
    )
    # The htmx form answers with the list alone.
    r = owner_client.post(
        f"/analyses/{analysis.pk}/share-links/{link.token}/revoke/", HTTP_HX_REQUEST="true"
    )
    html = r.content.decode()
    assert r.status_code == 200 and html.lstrip().startswith('<div id="share-links">')
    assert link.token not in html and "No share links." in html


def test_a_failed_analysis_can_be_run_again_from_its_page(
    owner_client: Any,
    demo_snapshot: Any,
    cat3_pod: Any,
    _no_broker: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    services.analysis_fail(analysis_id=analysis.pk, error="lost")
    with django_capture_on_commit_callbacks(execute=True):
        r = owner_client.post(f"/analyses/{analysis.pk}/retry/")
    assert r.status_code == 302
    analysis.refresh_from_db()
    assert analysis.status == AnalysisStatus.QUEUED
    _no_broker.assert_called_with(analysis.pk)


def _stale(analysis: Analysis, status: str) -> None:
    """Queued long ago with no worker, or running on a worker whose lease ran out."""
    long_ago = timezone.now() - timedelta(hours=2)
    Analysis.objects.filter(pk=analysis.pk).update(
        status=status,
        created=long_ago,
        enqueued_at=long_ago,
        started_at=long_ago if status == "running" else None,
        lease_task_id="dead-worker" if status == "running" else "",
        lease_expires_at=long_ago if status == "running" else None,
    )


def _stale_note(html: str) -> str:
    m = re.search(r'<p class="error" id="stale-note">(.*?)</p>', html, re.S)
    assert m, "no note about the lost worker"
    return " ".join(html_lib.unescape(m.group(1)).split())


def test_a_running_analysis_whose_lease_ran_out_says_it_is_queued_again_by_itself(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    _stale(analysis, "running")
    note = _stale_note(owner_client.get(f"/analyses/{analysis.pk}/").content.decode())
    assert "worker running it stopped" in note
    assert "queued again by itself" in note


def test_a_stale_queued_analysis_says_no_worker_is_taking_analyses(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    _stale(analysis, "queued")
    note = _stale_note(owner_client.get(f"/analyses/{analysis.pk}/").content.decode())
    assert "no worker seems to be taking analyses" in note


def test_a_stale_running_analysis_can_be_run_again_from_its_page(
    owner_client: Any,
    demo_snapshot: Any,
    cat3_pod: Any,
    _no_broker: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    _stale(analysis, "running")
    with django_capture_on_commit_callbacks(execute=True):
        owner_client.post(f"/analyses/{analysis.pk}/retry/")
    analysis.refresh_from_db()
    assert analysis.status == AnalysisStatus.QUEUED
    _no_broker.assert_called_with(analysis.pk)


def test_a_fresh_running_analysis_shows_no_note(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    Analysis.objects.filter(pk=analysis.pk).update(
        status="running",
        started_at=timezone.now() - timedelta(hours=2),
        lease_task_id="live-worker",
        lease_expires_at=timezone.now() + timedelta(seconds=20),
    )
    assert 'id="stale-note"' not in owner_client.get(f"/analyses/{analysis.pk}/").content.decode()


def test_the_snapshots_analyses_are_listed(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    html = owner_client.get(f"/snapshots/{demo_snapshot.pk}/analyses/").content.decode()
    assert f'href="/analyses/{analysis.pk}/"' in html and "Preempts" in html


def test_pages_need_a_login(client: Any, demo_snapshot: Any, cat3_pod: Any) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    r = client.get(f"/analyses/{analysis.pk}/")
    assert r.status_code == 302 and r["Location"].startswith("/accounts/login/")
