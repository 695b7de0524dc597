"""The whole what-if in Debian's chromium, against a real worker on Redis.

Log in, load the demo snapshot, submit a pod of class cat-3 with the short
form, watch the result appear, check the chosen node and victims against the
engine's own answer, share the result, open the link logged out, revoke it,
and see the link answer 404.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from clusters.selectors import snapshot_objects
from scheduling.engine import analyze
from scheduling.models import Analysis
from tests.conftest import browser_login

pytestmark = [pytest.mark.browser, pytest.mark.worker]

SCREENSHOTS = os.environ.get("PREEMPTLAB_SCREENSHOTS", "")


def _shot(page: Any, name: str) -> None:
    if SCREENSHOTS:
        page.screenshot(path=os.path.join(SCREENSHOTS, f"{name}.png"), full_page=True)


def test_a_cat_3_pod_preempts_and_the_answer_is_shared_then_revoked(
    live_server: Any, celery_worker_process: Any, page: Any, browser: Any, owner: Any
) -> None:
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/snapshots/")
    page.get_by_role("button", name="Load the demo snapshot").click()
    page.wait_for_selector("#snapshot-status")
    page.click("#whatif-tab")
    page.click("label[for=mode-form]")

    page.fill("#id_name", "orange-0")
    page.select_option("#id_priority_class", "cat-3")
    page.fill("#id_cpu", "1")
    page.fill("#id_memory", "2Gi")
    page.get_by_role("button", name="Analyze").click()

    page.wait_for_url(f"{live_server.url}/analyses/*/")
    # The page follows the worker and stops polling once the result is in.
    outcome = page.locator("#outcome")
    outcome.wait_for(timeout=60_000)
    assert page.locator("#analysis-body").get_attribute("hx-trigger") is None

    analysis = Analysis.objects.get()
    expected = analyze(snapshot_objects(snapshot=analysis.snapshot), analysis.pod).to_dict()
    assert expected["outcome"] == "preempts"
    assert outcome.inner_text() == f"Preempts {len(expected['victims'])} pod on {expected['node']}."
    assert page.locator("#chosen-node").inner_text() == expected["node"]
    victims = page.locator("#victims tbody tr td:first-child").all_inner_texts()
    assert victims == expected["victims"]
    assert page.locator("#tie-break tr.winner").get_attribute("data-node") == expected["node"]
    assert page.locator("svg.capacity").is_visible()
    _shot(page, "result")

    page.click("#create-share-link")
    link = page.locator("a.share-url")
    link.wait_for()
    share_url = link.get_attribute("href")
    assert share_url.startswith(f"{live_server.url}/s/")

    anonymous = browser.new_context()
    try:
        stranger_page = anonymous.new_page()
        response = stranger_page.goto(share_url)
        assert response.status == 200
        assert stranger_page.locator("#outcome").inner_text() == outcome.inner_text()
        assert stranger_page.locator("#chosen-node").inner_text() == expected["node"]
        assert stranger_page.get_by_text("Log out").count() == 0
        _shot(stranger_page, "shared")

        page.locator("button.revoke").click()
        page.get_by_text("No share links.").wait_for()
        assert page.locator("a.share-url").count() == 0

        response = stranger_page.goto(share_url)
        assert response.status == 404
    finally:
        anonymous.close()
