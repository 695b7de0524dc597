"""/clusters/ and /clusters/{id}/: the status, "Take a snapshot now" followed by htmx,
the snapshots; another user's cluster is a 404."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from clusters.models import Snapshot
from connected import views
from connected.models import Cluster
from connected.services import cluster_snapshot_take

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
LINK = re.compile(r'href="/snapshots/\d+/"')


def test_the_list_shows_what_the_user_may_see(
    demo_cluster: Cluster, client: Any, owner: Any, teammate: Any, stranger: Any
) -> None:
    for user in (owner, teammate):
        client.force_login(user)
        page = client.get("/clusters/")
        assert (
            page.status_code == 200
            and f'href="/clusters/{demo_cluster.pk}/"'.encode() in page.content
        )
        assert b"15m" in page.content and b"https://hooks.example" not in page.content
    client.force_login(stranger)
    page = client.get("/clusters/")
    assert (
        b"/clusters/%d/" % demo_cluster.pk not in page.content
        and b"No connected cluster" in page.content
    )
    assert client.get(f"/clusters/{demo_cluster.pk}/").status_code == 404
    assert client.post(f"/clusters/{demo_cluster.pk}/snapshot/").status_code == 404


def test_the_page_lists_snapshots_newest_first_paginated(
    demo_cluster: Cluster, owner_client: Any
) -> None:
    now = timezone.now()
    for i in range(30):
        Snapshot.objects.create(
            owner=demo_cluster.owner, name=f"s{i}", cluster=demo_cluster, status="ready",
            taken_at=now - timezone.timedelta(minutes=i),
        )  # fmt: skip
    page = owner_client.get(f"/clusters/{demo_cluster.pk}/")
    html = page.content.decode()
    assert page.status_code == 200 and "Take a snapshot now" in html
    # Counted in the snapshots' section: the "Drain a pool now?" section above it links
    # the latest snapshot too.
    listed = html[html.index('id="cluster-snapshots"') :]
    assert "Page 1 of 2" in listed and len(LINK.findall(listed)) == 25
    newest = Snapshot.objects.get(name="s0")
    assert html.index(f'/snapshots/{newest.pk}/"') < html.index(
        f'/snapshots/{Snapshot.objects.get(name="s1").pk}/"'
    )
    second = owner_client.get(
        f"/clusters/{demo_cluster.pk}/?page=2", HTTP_HX_TARGET="cluster-snapshots", **HTMX
    )
    assert len(LINK.findall(second.content.decode())) == 5
    assert b"<html" not in second.content


def test_sections_are_added_by_listing_them(
    demo_cluster: Cluster,
    owner_client: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    settings: Any,
) -> None:
    (tmp_path / "extra.html").write_text("<section id='extra'>{{ extra_words }}</section>")
    engine = settings.TEMPLATES[0]
    settings.TEMPLATES = [{**engine, "DIRS": [*engine["DIRS"], tmp_path]}]
    extra = views.ClusterSection(
        "extra.html", lambda request, cluster: {"extra_words": cluster.name + "!"}
    )
    monkeypatch.setattr(views, "CLUSTER_SECTIONS", [*views.CLUSTER_SECTIONS, extra])
    html = owner_client.get(f"/clusters/{demo_cluster.pk}/").content.decode()
    assert "<section id='extra'>demo!</section>" in html
    assert html.index('id="cluster-snapshots"') < html.index("id='extra'")


def test_take_now_is_followed_until_the_read_ends(
    served: Path, demo_cluster: Cluster, owner_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[int] = []
    monkeypatch.setattr(
        "connected.services.cluster_snapshot_request",
        lambda *, cluster: sent.append(cluster.pk),
    )
    queued = owner_client.post(f"/clusters/{demo_cluster.pk}/snapshot/", **HTMX)
    assert sent == [demo_cluster.pk] and queued.status_code == 200
    html = queued.content.decode()
    assert 'id="cluster-status"' in html and 'hx-trigger="every 1s"' in html and "queued" in html
    poll = html.split('hx-get="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    waiting = owner_client.get(poll, HTTP_HX_TARGET="cluster-status", **HTMX)
    assert waiting.status_code == 200 and b"every 1s" in waiting.content
    cluster_snapshot_take(cluster_id=demo_cluster.pk)  # the worker's part
    done = owner_client.get(poll, HTTP_HX_TARGET="cluster-status", **HTMX)
    assert done.status_code == 286 and done["HX-Trigger"] == "cluster-read"
    assert b"every 1s" not in done.content and b"Last success" in done.content


def test_take_now_without_javascript_redirects_back(
    demo_cluster: Cluster, owner_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("connected.services.cluster_snapshot_request", lambda *, cluster: None)
    answer = owner_client.post(f"/clusters/{demo_cluster.pk}/snapshot/")
    assert answer.status_code == 302 and answer["Location"] == f"/clusters/{demo_cluster.pk}/"


def test_a_broker_that_is_down_is_said(
    demo_cluster: Cluster, owner_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from operations.faults import BrokerUnavailable

    def down(*, cluster: Cluster) -> None:
        raise BrokerUnavailable()

    monkeypatch.setattr("connected.services.cluster_snapshot_request", down)
    answer = owner_client.post(f"/clusters/{demo_cluster.pk}/snapshot/", **HTMX)
    assert answer.status_code == 503 and b'role="alert"' in answer.content
