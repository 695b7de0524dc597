"""The Pin button in chromium at 1366 px, on snapshots of the real ocp-aws dump (42-char
node names) read into a team's cluster: the owner pins one on its page, the cluster page
lists it; a member sees the pin but no button; Unpin empties the list. No sideways
scroll, no console error."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from clusters.models import Snapshot
from connected.models import Cluster
from connected.services import cluster_create
from tests.conftest import browser_login
from tests.connected.test_member_rights import paused_queue  # noqa: F401
from tests.realworld import import_dump, lengthen_node_names, real_dump

pytestmark = pytest.mark.browser

NAME = "production-us-east-2-platform-cluster-01"  # 40 characters


def _read_into(cluster: Cluster, owner: Any, minutes_ago: int) -> Snapshot:
    """The real dump as one read of ``cluster`` (the team's, as a read makes it)."""
    taken = timezone.now() - timedelta(minutes=minutes_ago)
    name = f"{cluster.name} {timezone.localtime(taken):%Y-%m-%d %H:%M:%S}"
    snapshot = import_dump(owner, name, lengthen_node_names(real_dump("ocp-aws")))
    Snapshot.objects.filter(pk=snapshot.pk).update(
        cluster=cluster, taken_at=taken, team=cluster.team
    )
    snapshot.refresh_from_db()
    return snapshot


def _no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width


def test_pin_a_snapshot_and_find_it_on_the_cluster_page(
    live_server: Any,
    browser: Any,
    owner: Any,
    teammate: Any,
    paused_queue: str,  # noqa: F811
) -> None:
    cluster = cluster_create(
        name=NAME,
        source="prod",
        owner=owner,
        schedule_seconds=900,
        keep=2,
        team=Group.objects.get(name="platform"),
    )
    older = _read_into(cluster, owner, minutes_ago=30)
    _read_into(cluster, owner, minutes_ago=15)

    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, live_server, "owner")

    page.goto(f"{live_server.url}/clusters/{cluster.pk}/")
    assert page.locator("#pinned-none").is_visible()
    page.goto(f"{live_server.url}{older.get_absolute_url()}")
    page.click("#pin-snapshot")
    note = page.locator("#snapshot-pinned")
    note.wait_for()
    assert "by owner" in note.inner_text() and "retention keeps it" in note.inner_text()
    assert page.locator("#unpin-snapshot").is_visible()
    _no_sideways_scroll(page)

    page.goto(f"{live_server.url}/clusters/{cluster.pk}/")
    row = page.locator(f"#pinned-{older.pk}")
    assert row.is_visible() and "owner" in row.inner_text()
    assert page.locator("#pinned-table tbody tr").count() == 1
    _no_sideways_scroll(page)
    # The row's link opens the pinned snapshot.
    row.get_by_role("link").click()
    page.wait_for_url(f"{live_server.url}{older.get_absolute_url()}")

    # A member sees that it is pinned, and no button.
    member_context = browser.new_context(viewport={"width": 1366, "height": 900})
    member = member_context.new_page()
    member.set_default_timeout(15_000)
    member.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    browser_login(member, live_server, "teammate")
    member.goto(f"{live_server.url}{older.get_absolute_url()}")
    assert member.locator("#snapshot-pinned").is_visible()
    assert member.locator("#pin-snapshot, #unpin-snapshot").count() == 0
    member.goto(f"{live_server.url}/clusters/{cluster.pk}/")
    assert member.locator(f"#pinned-{older.pk}").is_visible()
    assert "owner (owner)" in member.locator("#take-snapshot-who").inner_text()
    _no_sideways_scroll(member)
    member_context.close()

    # Unpinned: the list is empty again.
    page.click("#unpin-snapshot")
    page.locator("#pin-snapshot").wait_for()
    assert page.locator("#snapshot-pinned").count() == 0
    page.goto(f"{live_server.url}/clusters/{cluster.pk}/")
    assert page.locator("#pinned-none").is_visible()
    assert Snapshot.objects.get(pk=older.pk).pinned_at is None
    context.close()
    assert errors == []
