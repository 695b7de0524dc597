"""A team member uses a teammate's snapshot in Debian's chromium: finds it in the list,
reads it and the teammate's analysis, asks a what-if of their own on it (run by a real
worker), and cannot delete it; a stranger's browser finds nothing there."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from clusters.demo import demo_cat3_pod
from scheduling.models import Analysis
from tests.conftest import browser_login

pytestmark = [pytest.mark.browser, pytest.mark.worker]


def test_a_member_uses_a_teammates_snapshot(
    live_server: Any,
    celery_worker_process: Any,
    page: Any,
    member: Any,
    stranger: Any,
    team_snapshot: Any,
    owners_analysis: Any,
) -> None:
    base = f"{live_server.url}/snapshots/{team_snapshot.pk}"
    browser_login(page, live_server, "member")
    page.goto(f"{live_server.url}/snapshots/?team=platform")
    page.get_by_role("link", name=team_snapshot.name).first.click()
    page.wait_for_url(f"{base}/")
    assert "Team platform" in page.locator("#snapshot-team-note").inner_text()
    assert page.locator("#delete-snapshot").count() == 0

    page.goto(f"{base}/analyses/")
    page.locator(f"a[href='/analyses/{owners_analysis.pk}/']").first.click()
    page.wait_for_url(f"{live_server.url}/analyses/{owners_analysis.pk}/")
    page.locator("#outcome").wait_for()
    assert page.locator("#delete-analysis").count() == 0

    page.goto(f"{base}/analyses/new/")
    page.fill("#id_manifest", yaml.safe_dump(demo_cat3_pod()))
    page.get_by_role("button", name="Analyze").click()
    page.wait_for_url(f"{live_server.url}/analyses/*/")
    page.locator("#outcome").wait_for(timeout=60_000)
    mine = Analysis.objects.exclude(pk=owners_analysis.pk).get()
    assert mine.snapshot_id == team_snapshot.pk and mine.status == "done"

    page.goto(f"{base}/plan/")
    assert page.locator("h1").count() == 1 and "not found" not in page.content().lower()

    page.context.clear_cookies()
    browser_login(page, live_server, "stranger")
    for url in (f"{base}/", f"{base}/analyses/", f"{live_server.url}/analyses/{mine.pk}/"):
        response = page.goto(url)
        assert response is not None and response.status == 404, url
