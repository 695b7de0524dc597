"""The Plan tab in Debian's chromium at 1366 px on the demo: reached from the snapshot's
tabs, the critical tiers marked and audited again, the notes filtered, a fix opened.
(Both real dumps' plan tabs are read in tests/test_real_clusters_browser.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import browser_login

pytestmark = pytest.mark.browser


def _plan_tab(page: Any, live_server: Any, snapshot: Any) -> None:
    """Logged in at 1366 px, on the snapshot's Plan tab reached from its tabs."""
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/")
    page.click("#plan-tab")
    page.wait_for_selector("#ladder-svg")


def test_the_demo_s_plan_marked_critical_and_filtered(
    live_server: Any, page: Any, owner: Any, demo_snapshot: Any
) -> None:
    _plan_tab(page, live_server, demo_snapshot)
    # Unmarked, the critical tier is the highest user class pods use: cluster-service,
    # whose ingress controller has no PDB; and cat-3 is defined but used by no pod.
    assert page.inner_text("#plan-sentence") == (
        "The audit found 1 warning and 1 note on 6 PriorityClasses."
    )
    # Marking cat-1 instead: its apps (blue, purple) both have budgets, so only the
    # unused class is left.
    page.check("#critical-form input[value=cat-1]")
    page.click("#critical-form button")
    page.wait_for_url("**critical=cat-1**")
    assert page.inner_text("#plan-sentence") == "The audit found 1 note on 6 PriorityClasses."
    assert page.is_checked("#critical-form input[value=cat-1]")
    page.click("#count-info")
    page.wait_for_url("**severity=info**")
    finding = page.locator("article.finding")
    assert finding.count() == 1
    assert finding.get_attribute("data-rule") == "unused-class"
    finding.locator("summary").click()
    assert "kubectl delete priorityclass cat-3" in finding.locator("pre").inner_text()
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width


def test_the_demo_s_first_in_line_loaded_into_the_plan_tab(
    live_server: Any, celery_worker_process: Any, page: Any, owner: Any, demo_snapshot: Any
) -> None:
    # A real worker ranks the apps; the section says it is computing, then polls until
    # the table swaps in.
    _plan_tab(page, live_server, demo_snapshot)
    # The defaults: 1 CPU, 2Gi, 50 replicas per level.
    assert page.input_value("#first-in-line-form input[name=cpu]") == "1"
    assert page.input_value("#first-in-line-form input[name=memory]") == "2Gi"
    assert page.input_value("#first-in-line-form input[name=limit]") == "50"
    page.click("#first-in-line-form button")
    page.wait_for_selector("#first-in-line-table", timeout=60_000)
    # Loaded into the section of the same page (the ladder is still there), and the
    # URL says what was asked so a reload shows it again.
    assert page.locator("#ladder-svg").count() == 1
    page.wait_for_url("**/plan/first-in-line/?cpu=1&memory=2Gi&limit=50")
    # The first row, by hand (clusters/demo.py): no node has 1 CPU free; the first
    # 10001 probe takes one cat-1 pod, the later-started of a node's two, on the node
    # whose victim started latest: node-5's purple (1h44m after creation).
    first = page.locator("#first-in-line-table tbody tr").first
    cells = first.locator("td")
    assert cells.nth(0).inner_text() == "1"
    assert cells.nth(1).inner_text() == "Deployment default/purple"
    assert cells.nth(5).inner_text() == "0"
    assert cells.nth(8).inner_text().startswith("replica 1 on node-5")
    assert page.locator("#first-in-line-svg g").count() == 7
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width
