"""The "How to avoid this" section at 1366 x 900 on the demo and on both real clusters'
dumps: asked from the result page, followed live, proven advice listed, nothing wider
than the window, and Apply opening the what-if form with the change made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from clusters import services as cluster_services
from config.celery import app
from scheduling import services
from tests.conftest import browser_login
from tests.test_real_clusters_browser import SCROLLED_BOXES, _pod, _real

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 1366, 900
SHOTS = Path(__file__).resolve().parents[2] / "var" / "advice-shots"


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    """The live server's own thread runs a queued task at once (no worker here: the
    worker path has tests of its own)."""
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.mark.parametrize("cluster", ["demo", "ocp-aws", "ocp-vsphere"])
def test_advice_is_proven_on_the_page_and_apply_opens_the_form(
    live_server: Any, browser: Any, owner: Any, eager_tasks: None, cluster: str
) -> None:
    if cluster == "demo":
        snapshot = cluster_services.snapshot_load_demo(owner=owner)
        pod = _pod("orange", "1", "cat-3")
    else:
        snapshot = _real(owner, cluster)
        pod = _pod("big", "3500m", "medium")  # preempts 13 (aws), 15 (vsphere) pods
    analysis = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=snapshot, pod=pod).pk
    )
    assert analysis.outcome == "preempts", analysis.error
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    page = context.new_page()
    try:
        browser_login(page, live_server, "owner")
        page.goto(f"{live_server.url}{analysis.get_absolute_url()}")
        page.click("#advice-start button")
        page.wait_for_selector("#advice-items", timeout=60_000)
        assert page.inner_text("#advice-baseline").startswith("As asked: preempts; evicts")
        kinds = page.eval_on_selector_all(
            "#advice-items .advice-item", "items => items.map(i => i.dataset.kind)"
        )
        assert "smaller-request" in kinds and "add-nodes" in kinds, kinds
        # Proven: every item names its runs and what one step less does.
        proofs = page.eval_on_selector_all(".advice-item .proof", "ps => ps.map(p => p.innerText)")
        assert all(p.startswith("Proven: ") for p in proofs), proofs
        assert "One step less" in page.inner_text(".advice-item[data-kind=smaller-request]")
        assert "engine run" in page.inner_text("#advice-search")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH
        assert page.evaluate(SCROLLED_BOXES) == []
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#advice").screenshot(path=str(SHOTS / f"{cluster}.png"))

        smaller = page.locator(".advice-item[data-kind=smaller-request]").first
        headline = smaller.locator(".advice-headline").inner_text()
        smaller.locator("a.apply").click()
        page.wait_for_url("**/analyses/new/?from=*")
        manifest = yaml.safe_load(page.input_value("textarea[name=manifest]"))
        requests = manifest["spec"]["containers"][0]["resources"]["requests"]
        # The form holds the pod as submitted with the advised request, no more.
        assert manifest["metadata"]["name"] == pod["metadata"]["name"]
        assert requests["cpu"] != pod["spec"]["containers"][0]["resources"]["requests"]["cpu"]
        assert requests["cpu"] in headline, (requests, headline)
        # Run it: the advice holds (nothing evicted).
        page.click("button[name=action][value=analyze]")
        page.wait_for_selector("#outcome", timeout=60_000)
        assert page.inner_text("#outcome").startswith("Fits on")
    finally:
        context.close()
