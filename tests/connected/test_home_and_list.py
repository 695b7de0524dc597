"""A connected cluster's snapshots (one a read) are grouped under their cluster on the
home page, and the Snapshots page filters by cluster, as the API does."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from connected.models import Cluster
from tests.clusters.builders import small_cluster
from tests.connected.history_builders import cluster_snapshot
from tests.scheduling.conftest import make_snapshot

pytestmark = pytest.mark.django_db


def test_the_home_page_groups_a_clusters_snapshots_under_it(
    cluster: Cluster, owner: Any, client: Any
) -> None:
    client.force_login(owner)
    uploaded = make_snapshot(owner, small_cluster(), name="my-upload")
    now = timezone.now()
    taken = [
        cluster_snapshot(cluster, small_cluster(), now - timedelta(minutes=m)) for m in range(8)
    ]
    page = client.get("/").content.decode()
    recent = page.split('id="recent-snapshots"', 1)[1].split("</ul>", 1)[0]
    # The upload is not pushed out by eight reads a minute apart.
    assert "my-upload" in recent and "prod-" not in recent
    grouped = page.split('id="cluster-snapshots"', 1)[1].split("</ul>", 1)[0]
    assert grouped.count("<li>") == 1
    assert f'href="/clusters/{cluster.pk}/"' in grouped and "8 snapshots" in grouped
    newest = taken[0]
    assert newest.get_absolute_url() in grouped
    assert f"/snapshots/?cluster={cluster.pk}" in grouped
    assert uploaded.get_absolute_url() not in grouped


def test_the_snapshots_page_filters_by_cluster(cluster: Cluster, owner: Any, client: Any) -> None:
    client.force_login(owner)
    uploaded = make_snapshot(owner, small_cluster(), name="my-upload")
    read = cluster_snapshot(cluster, small_cluster(), timezone.now())
    every = client.get("/snapshots/").content.decode()
    assert 'id="cluster-filter-choice"' in every and ">prod</option>" in every
    assert uploaded.get_absolute_url() in every and read.get_absolute_url() in every
    only = client.get(f"/snapshots/?cluster={cluster.pk}").content.decode()
    table = only.split('id="snapshot-table"', 1)[1]
    assert read.get_absolute_url() in table and uploaded.get_absolute_url() not in table
    assert f'<option value="{cluster.pk}" selected>' in only
    mine = client.get("/snapshots/?cluster=none").content.decode().split('id="snapshot-table"')[1]
    assert uploaded.get_absolute_url() in mine and read.get_absolute_url() not in mine
    # Nonsense is no filter, never an error.
    assert client.get("/snapshots/?cluster=abc").status_code == 200


@pytest.mark.browser
def test_the_grouped_home_page_and_the_filter_read_well_at_1366(
    live_server: Any, page: Any, owner: Any, tmp_path: Any
) -> None:
    """A 40-character cluster name and long snapshot names: no sideways scroll, no
    console or CSP error, the filter works from the page."""
    from tests.conftest import browser_login

    long = Cluster.objects.create(
        name="platform-prod-eu-west-1-shared-services-a", source="ctx", owner=owner
    )
    make_snapshot(owner, small_cluster(), name="my-upload-" + "x" * 60)
    for minutes in range(3):
        cluster_snapshot(long, small_cluster(), timezone.now() - timedelta(minutes=minutes))
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, live_server, "owner")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/")
    group = page.locator("#cluster-snapshots li")
    assert group.count() == 1 and "3 snapshots" in group.inner_text()
    wide = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    assert page.evaluate(wide)
    page.screenshot(path=str(tmp_path / "home.png"))
    page.goto(f"{live_server.url}/snapshots/")
    page.select_option("#cluster-filter-choice", label=long.name)
    page.click("#team-filter button[type=submit]")
    page.wait_for_url(f"**/snapshots/?cluster={long.pk}")
    rows = page.locator("#snapshot-table tbody tr")
    assert rows.count() == 3
    assert page.evaluate(wide)
    assert errors == []
