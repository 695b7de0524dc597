"""Why replicas cannot be placed, and the room of pods naming no class, on the EKS shape
(tests/fixtures/eks_like.py: t3.small nodes nearly full of pods, no class of the users'
own): the API's answer, the pages and the CLI's text say what kube-scheduler says."""

from __future__ import annotations

import json
import re
from io import StringIO
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient

from scheduling import services
from scheduling.models import Analysis
from tests.fixtures.eks_like import eks_like, small_pod
from tests.scheduling.conftest import make_snapshot

pytestmark = pytest.mark.django_db

# What kube-scheduler's FitError says of every replica left (tests/engine/test_capacity.py
# counts it from the nodes): three nodes out of pod slots, the fourth out of cpu.
FILTERS = "0/4 nodes are available: 1 Insufficient cpu, 3 Too many pods"


@pytest.fixture(autouse=True)
def _queued_only(no_broker: Any) -> Any:
    return no_broker


@pytest.fixture
def eks(owner: Any) -> Any:
    return make_snapshot(owner, eks_like(), name="eks-t3-small")


def test_the_api_answer_says_why_the_replicas_left_stay_pending(api: APIClient, eks: Any) -> None:
    r = api.post(
        f"/api/snapshots/{eks.pk}/analyses/",
        {"kind": "capacity", "pod": small_pod(), "limit": 50},
        format="json",
    )
    assert r.status_code == 202, r.content
    services.analysis_run(analysis_id=r.json()["id"])
    body = api.get(r.json()["url"]).json()
    result = body["result"]
    assert (result["fit_now"], result["unplaced"]) == (12, 38)
    [why] = result["unplaced_reasons"]
    assert why["replicas"] == 38 and why["nodes"] == 4
    assert {r["reason"]: r["nodes"] for r in why["reasons"]} == {
        "Too many pods": 3,
        "Insufficient cpu": 1,
    }
    assert why["filters"] == FILTERS
    assert why["message"].startswith(FILTERS + ". ")
    # The lists' summary carries the reason too.
    assert body["summary"].endswith(f"38 cannot be placed within the limit of 50 ({FILTERS})")


def test_the_page_and_the_cli_say_it_too(owner_client: Any, eks: Any, tmp_path: Any) -> None:
    a = services.analysis_create_capacity(snapshot=eks, pod=small_pod(), limit=50)
    analysis = services.analysis_run(analysis_id=a.pk)
    html = owner_client.get(analysis.get_absolute_url()).content.decode()
    verdict = html[html.index('id="outcome"') : html.index('id="capacity-facts"')]
    assert f"38 cannot be placed within the limit of 50 ({FILTERS})" in verdict
    why = verdict[verdict.index('id="unplaced-why"') :]
    assert "Why 38 cannot be placed" in why
    assert f"<code>{FILTERS}. " in why
    # The CLI: the same sentence, then each message with the replicas it stopped.
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(eks_like()))
    pod = tmp_path / "pod.yaml"
    pod.write_text(yaml.safe_dump(small_pod()))
    out = StringIO()
    call_command("whatif", str(snap), str(pod), "--capacity", "50", stdout=out)
    text = out.getvalue()
    assert text.splitlines()[0].endswith(f"({FILTERS}).")
    assert f"  38 replicas: {FILTERS}. " in text


def test_room_per_class_on_a_cluster_without_classes_has_the_default_row(
    owner_client: Any, eks: Any
) -> None:
    url = f"/snapshots/{eks.pk}/room/"
    page = owner_client.get(url).content.decode()
    # The form says what it will try: the classes (none here) and the pods naming none.
    assert "naming no class" in page
    r = owner_client.post(url, {"cpu": "50m", "memory": "64Mi", "limit": "50"})
    assert r.status_code == 302
    analysis = services.analysis_run(analysis_id=Analysis.objects.get().pk)
    html = owner_client.get(analysis.get_absolute_url()).content.decode()
    assert "no PriorityClass of its users' own" not in html
    row = html[html.index('id="room-no-class"') :]
    row = row[: row.index("</tr>")]
    assert "(no class) priority 0" in row
    assert re.search(r'data-col="fit-now">12<', row)
    assert re.search(r'data-col="unplaced" title="0/4 nodes are available[^"]*">38<', row)
    assert html.index('id="room-unplaced-why"') > html.index('id="room-no-class"')
    assert f"(no class) priority 0: <code>{FILTERS}. " in html
    assert analysis.summary.startswith(
        "Room for a 50m CPU, 64Mi pod naming no class (priority 0: the snapshot has no "
        "PriorityClass of its own), up to 50 replicas: 12 fit as the cluster stands"
    )
