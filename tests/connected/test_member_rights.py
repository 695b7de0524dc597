"""Members read and ask; owners and team admins change. Three users on one team's cluster:
its owner, a member (``teammate``) and a team admin (``lead``). Every change route answers
the member 403 with who may, and changes nothing; the owner and the admin may; take-now
is theirs and staff's, one read at a time and at most one a minute (429, Retry-After)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone
from rest_framework.test import APIClient

from clusters.demo import demo_cat3_pod
from clusters.models import Snapshot, TeamAdmin
from connected.models import Cluster
from connected.services import cluster_snapshot_take
from planning.models import FirstInLineRanking
from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis, ShareLink
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def lead(teammate: Any) -> Any:
    """An admin of the team "platform"."""
    user = get_user_model().objects.create_user("lead", "lead@example.com", PASSWORD)
    team = Group.objects.get(name="platform")
    user.groups.add(team)
    TeamAdmin.objects.create(user=user, team=team)
    return user


@pytest.fixture
def paused_queue() -> Iterator[str]:
    """Tasks are sent to the real broker, on a queue of this test's that no worker reads:
    the work stays queued, as behind a paused worker. The queue goes at the end."""
    from config.celery import app

    queue = f"paused-{uuid.uuid4().hex[:12]}"
    previous = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    try:
        yield queue
    finally:
        app.conf.task_default_queue = previous
        url = os.environ.get("REDIS_URL") or django_settings.REDIS_URL
        if url:
            import redis

            redis.Redis.from_url(url).delete(queue)


@pytest.fixture
def read(served: Path, demo_cluster: Cluster, paused_queue: str) -> Snapshot:
    """One read of the team's cluster (its snapshot is the team's)."""
    snapshot = cluster_snapshot_take(cluster_id=demo_cluster.pk)
    assert snapshot is not None and snapshot.team is not None
    return snapshot


def test_each_change_route_answers_the_member_403_with_who_may(
    read: Snapshot, demo_cluster: Cluster, owner: Any, teammate: Any, lead: Any, client: Any
) -> None:
    services.share_link_create(
        analysis=services.analysis_create(snapshot=read, pod=demo_cat3_pod())
    )
    owners = Analysis.objects.get(snapshot=read)
    owners_link = ShareLink.objects.get(analysis=owners)
    ranking = FirstInLineRanking.objects.create(
        snapshot=read, cpu_millis=1000, memory_bytes=2**30, limit=5, requested_by=owner
    )
    member = _api(teammate)
    sid = read.pk
    refusals = {
        "PUT scheduler-config": member.put(
            f"/api/snapshots/{sid}/scheduler-config/",
            {"scheduler_preset": "openshift-high-node-utilization"},
            format="json",
        ),
        "DELETE scheduler-config": member.delete(f"/api/snapshots/{sid}/scheduler-config/"),
        "PATCH team": member.patch(f"/api/snapshots/{sid}/", {"team": ""}, format="json"),
        "DELETE snapshot": member.delete(f"/api/snapshots/{sid}/"),
        "POST pin": member.post(f"/api/snapshots/{sid}/pin/"),
        "DELETE pin": member.delete(f"/api/snapshots/{sid}/pin/"),
        "POST share link of the owner's analysis": member.post(
            f"/api/analyses/{owners.pk}/share-links/"
        ),
        "DELETE the owner's share link": member.delete(f"/api/share-links/{owners_link.token}/"),
        "POST take-now": member.post(f"/api/clusters/{demo_cluster.pk}/snapshots/"),
    }
    for route, response in refusals.items():
        assert response.status_code == 403, (route, response.status_code)
        detail = response.json()["detail"]
        assert "owner (owner)" in detail and "team platform" in detail, (route, detail)
    assert "or staff" in refusals["POST take-now"].json()["detail"]
    assert "Only who made this link" in refusals["DELETE the owner's share link"].json()["detail"]

    # The pages say the same, in a 403 page.
    client.force_login(teammate)
    pages = {
        "scheduler form": client.post(
            f"/snapshots/{sid}/scheduler/", {"scheduler_preset": "openshift-high-node-utilization"}
        ),
        "scheduler clear": client.post(f"/snapshots/{sid}/scheduler/", {"clear": "1"}),
        "team form": client.post(f"/snapshots/{sid}/team/", {"team": ""}),
        "pin button": client.post(f"/snapshots/{sid}/pin/"),
        "share button": client.post(f"/analyses/{owners.pk}/share-links/"),
        "revoke button": client.post(
            f"/analyses/{owners.pk}/share-links/{owners_link.token}/revoke/"
        ),
        "take-now button": client.post(f"/clusters/{demo_cluster.pk}/snapshot/"),
    }
    Analysis.objects.filter(pk=owners.pk).update(status=AnalysisStatus.FAILED, error="x")
    pages["retry of the owner's failed analysis"] = client.post(f"/analyses/{owners.pk}/retry/")
    for page, response in pages.items():
        assert response.status_code == 403, (page, response.status_code)
        assert b"owner (owner)" in response.content, page

    # Nothing changed: the configuration, the team, the pin, the link, the ranking.
    read.refresh_from_db()
    assert read.scheduler_preset == "" and read.team is not None and read.pinned_at is None
    assert ShareLink.objects.active().filter(pk=owners_link.pk).exists()
    assert FirstInLineRanking.objects.filter(pk=ranking.pk).exists()
    assert Snapshot.objects.filter(pk=sid).exists()
    assert Cluster.objects.get(pk=demo_cluster.pk).read_requested_at is None
    assert Analysis.objects.get(pk=owners.pk).status == AnalysisStatus.FAILED

    # The member's pages offer none of it, and say who may.
    scheduler_tab = client.get(f"/snapshots/{sid}/scheduler/").content.decode()
    assert 'id="scheduler-who-may"' in scheduler_tab and 'id="scheduler-save"' not in scheduler_tab
    snapshot_page = client.get(f"/snapshots/{sid}/").content.decode()
    assert 'id="pin-snapshot"' not in snapshot_page and 'id="snapshot-team"' not in snapshot_page
    cluster_page = client.get(f"/clusters/{demo_cluster.pk}/").content.decode()
    assert 'id="take-snapshot"' not in cluster_page and 'id="take-snapshot-who"' in cluster_page

    # The team admin may: the configuration (the rankings of the old one go), the pin.
    admin = _api(lead)
    put = admin.put(
        f"/api/snapshots/{sid}/scheduler-config/",
        {"scheduler_preset": "openshift-high-node-utilization"},
        format="json",
    )
    assert put.status_code == 200, put.content
    pinned = admin.post(f"/api/snapshots/{sid}/pin/")
    assert pinned.status_code == 200 and pinned.json()["pinned_by"] == "lead"
    assert admin.delete(f"/api/snapshots/{sid}/scheduler-config/").status_code == 204
    assert _api(owner).delete(f"/api/snapshots/{sid}/pin/").status_code == 204
    read.refresh_from_db()
    assert read.pinned_at is None and read.scheduler_preset == ""


def test_members_share_their_own_analyses_and_revoke_their_own_links(
    read: Snapshot, owner: Any, teammate: Any, lead: Any, stranger: Any
) -> None:
    member = _api(teammate)
    asked = member.post(
        f"/api/snapshots/{read.pk}/analyses/", {"pod": demo_cat3_pod()}, format="json"
    )
    assert asked.status_code == 202, asked.content
    mine = Analysis.objects.get(pk=asked.json()["id"])
    assert mine.requested_by == teammate

    made = member.post(f"/api/analyses/{mine.pk}/share-links/")
    assert made.status_code == 201
    token = made.json()["token"]
    assert ShareLink.objects.get(token=token).created_by == teammate
    # The member revokes their own link.
    assert member.delete(f"/api/share-links/{token}/").status_code == 204

    # The owner publishes a link of the member's analysis; the member may not revoke it.
    owners = _api(owner).post(f"/api/analyses/{mine.pk}/share-links/")
    assert owners.status_code == 201
    refused = member.delete(f"/api/share-links/{owners.json()['token']}/")
    assert refused.status_code == 403 and "owner (owner)" in refused.json()["detail"]
    # The team admin revokes any link; a stranger sees none (404).
    again = member.post(f"/api/analyses/{mine.pk}/share-links/").json()["token"]
    assert _api(stranger).delete(f"/api/share-links/{again}/").status_code == 404
    assert _api(lead).delete(f"/api/share-links/{owners.json()['token']}/").status_code == 204
    assert _api(lead).delete(f"/api/share-links/{again}/").status_code == 204
    assert not ShareLink.objects.active().filter(analysis=mine).exists()


def test_take_now_twice_within_a_minute_is_a_429_with_retry_after(
    demo_cluster: Cluster, owner: Any, lead: Any, staff: Any, paused_queue: str, client: Any
) -> None:
    url = f"/api/clusters/{demo_cluster.pk}/snapshots/"
    first = _api(lead).post(url)
    assert first.status_code == 202, first.content
    # Queued on the broker, waiting for a worker: a second one is refused, whoever asks.
    for user in (owner, staff):
        second = _api(user).post(url)
        assert second.status_code == 429, second.content
        assert int(second["Retry-After"]) > 0
        assert "waiting for a worker" in second.json()["detail"]

    # The read ends (a worker took it): still at most one a minute.
    ended = timezone.now()
    Cluster.objects.filter(pk=demo_cluster.pk).update(last_success_at=ended)
    third = _api(owner).post(url)
    assert third.status_code == 429
    wait = int(third["Retry-After"])
    assert 0 < wait <= 60 and "PREEMPTLAB_TAKE_NOW_SECONDS" in third.json()["detail"]

    # One at a time: a read under way refuses another, after the minute too.
    long_ago = timezone.now() - timedelta(minutes=5)
    Cluster.objects.filter(pk=demo_cluster.pk).update(
        read_requested_at=long_ago, reading_since=timezone.now()
    )
    under_way = _api(owner).post(url)
    assert under_way.status_code == 429 and "under way" in under_way.json()["detail"]
    assert int(under_way["Retry-After"]) > 0

    # The page says the same: a 429 page, or in the status card for htmx.
    client.force_login(owner)
    page = client.post(f"/clusters/{demo_cluster.pk}/snapshot/")
    assert page.status_code == 429 and int(page["Retry-After"]) > 0
    assert b"under way" in page.content
    card = client.post(f"/clusters/{demo_cluster.pk}/snapshot/", HTTP_HX_REQUEST="true")
    assert card.status_code == 200 and b"under way" in card.content
    assert b'role="alert"' in card.content

    # Nothing under way and the minute past: accepted again.
    Cluster.objects.filter(pk=demo_cluster.pk).update(reading_since=None)
    assert _api(staff).post(url).status_code == 202


def test_the_limit_counts_who_asked_not_the_snapshots_owner(
    read: Snapshot, owner: Any, teammate: Any, lead: Any, settings: Any
) -> None:
    """Analyses, advice, Explain's what-ifs and rankings record who asked and count
    against them (no worker: everything stays queued)."""
    from advice.models import Advice

    settings.PREEMPTLAB_UNFINISHED_PER_USER = 2
    member = _api(teammate)
    url = f"/api/snapshots/{read.pk}/analyses/"
    for _ in range(2):
        assert member.post(url, {"pod": demo_cat3_pod()}, format="json").status_code == 202
    refused = member.post(url, {"pod": demo_cat3_pod()}, format="json")
    assert refused.status_code == 429 and "You have 2 analyses" in refused.json()["detail"]
    # The owner and the admin ask as before: the member's work is the member's.
    assert _api(owner).post(url, {"pod": demo_cat3_pod()}, format="json").status_code == 202
    assert _api(lead).post(url, {"pod": demo_cat3_pod()}, format="json").status_code == 202
    plan = _api(lead).get(f"/api/snapshots/{read.pk}/plan/?first_in_line=1&limit=7")
    assert plan.status_code == 202, plan.content
    assert FirstInLineRanking.objects.get(snapshot=read, limit=7).requested_by == lead
    assert {a.requested_by for a in Analysis.objects.filter(snapshot=read)} == {
        teammate,
        owner,
        lead,
    }

    # Advice on the owner's finished analysis, asked by the member: the member's (full).
    done = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=read, pod=demo_cat3_pod()).pk
    )
    advice = member.post(f"/api/analyses/{done.pk}/advice/")
    assert advice.status_code == 429, advice.content
    # The owner has one what-if queued: room for the advice the member could not ask.
    ok = _api(owner).post(f"/api/analyses/{done.pk}/advice/")
    assert ok.status_code in (200, 202), ok.content
    assert Advice.objects.get(analysis=done).requested_by == owner
    # The admin has a what-if and a ranking queued: full, whoever's snapshot it is.
    full = _api(lead).post(url, {"pod": demo_cat3_pod()}, format="json")
    assert full.status_code == 429
    assert Analysis.objects.filter(requested_by=teammate, status=AnalysisStatus.QUEUED).count() == 2
