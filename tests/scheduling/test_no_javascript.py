"""The basics without JavaScript, in chromium: deleting asks first and says what goes
with the snapshot; a running analysis refreshes itself until its answer is in."""

from __future__ import annotations

from typing import Any

import pytest

from clusters.demo import demo_cat3_pod
from clusters.models import Snapshot
from scheduling import services
from scheduling.models import Analysis, ShareLink
from tests.conftest import browser_login

pytestmark = pytest.mark.browser


@pytest.fixture
def no_js_page(browser: Any) -> Any:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def _shared_analysis(snapshot: Any) -> Analysis:
    analysis = services.analysis_create(snapshot=snapshot, pod=demo_cat3_pod())
    services.share_link_create(analysis=analysis)
    return analysis


def test_delete_asks_first_and_names_the_analyses_and_share_links(
    live_server: Any, no_js_page: Any, demo_snapshot: Any
) -> None:
    _shared_analysis(demo_snapshot)
    page = no_js_page
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}{demo_snapshot.get_absolute_url()}")
    page.click("#delete-snapshot")
    page.wait_for_url(f"**/snapshots/{demo_snapshot.pk}/delete/")
    said = page.inner_text("#delete-consequences")
    assert "its 1 analysis and their 1 share link" in said
    assert "cannot be undone" in said
    assert Snapshot.objects.filter(pk=demo_snapshot.pk).exists()  # only asked so far
    page.get_by_role("button", name="Delete").click()
    page.wait_for_url(f"{live_server.url}/snapshots/")
    assert not Snapshot.objects.filter(pk=demo_snapshot.pk).exists()
    assert not ShareLink.objects.exists()


def test_with_javascript_the_confirmation_says_the_same(
    live_server: Any, page: Any, demo_snapshot: Any
) -> None:
    _shared_analysis(demo_snapshot)
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}{demo_snapshot.get_absolute_url()}")
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", answer)
    page.click("#delete-snapshot")
    page.wait_for_timeout(300)
    assert len(asked) == 1
    assert "its 1 analysis and their 1 share link" in asked[0]
    assert Snapshot.objects.filter(pk=demo_snapshot.pk).exists()  # dismissed: nothing went


def test_a_running_analysis_refreshes_itself(
    live_server: Any, no_js_page: Any, demo_snapshot: Any
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod())
    page = no_js_page
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/analyses/{analysis.pk}/")
    assert page.locator("#outcome").count() == 0
    services.analysis_run(analysis_id=analysis.pk)  # the worker's part, done meanwhile
    page.wait_for_selector("#outcome", timeout=10_000)  # the page reloaded by itself
    assert "Preempts 1 pod on node-5" in page.inner_text("#outcome")
