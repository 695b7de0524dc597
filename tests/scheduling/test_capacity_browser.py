"""How many fit, asked from the what-if form in Debian's chromium at 1366 pixels on the
demo snapshot, run by a real worker on Redis.

clusters/demo.py: every node has 300-400m of CPU and less than 2 GiB free, so no cat-3
pod of 1 CPU / 2 GiB fits as the cluster stands; the planning example's answer is that
cat-3 may preempt cat-1 and cat-2: their 14 pods (4 blue, 4 purple, 3 green, 3 red, one
CPU each) make room for 14 replicas, and every app's PDB (1 disruption allowed) goes
past its budget. Asked for 20, 6 are left.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import yaml

from clusters.demo import demo_cat3_pod
from clusters.services import snapshot_load_demo
from scheduling.models import Analysis
from tests.conftest import browser_login
from tests.test_real_clusters_browser import HEIGHT, OVERLAPPING_LABELS, SCROLLED_BOXES, WIDTH

pytestmark = [pytest.mark.browser, pytest.mark.worker]

SCREENSHOTS = os.environ.get("PREEMPTLAB_SCREENSHOTS", "")


def test_how_many_fit_from_the_what_if_form(
    live_server: Any, celery_worker_process: Any, browser: Any, owner: Any
) -> None:
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        snapshot = snapshot_load_demo(owner=owner)
        browser_login(page, live_server, "owner")
        page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/analyses/new/")
        page.fill("#id_manifest", yaml.safe_dump(demo_cat3_pod()))
        page.fill("#capacity-limit", "20")
        page.get_by_role("button", name="How many fit?").click()

        page.wait_for_url(f"{live_server.url}/analyses/*/")
        outcome = page.locator("#outcome")
        outcome.wait_for(timeout=60_000)
        analysis = Analysis.objects.get()
        assert analysis.kind == "capacity" and analysis.pod["limit"] == 20
        assert outcome.inner_text() == (
            "No replica of this 1 CPU, 2Gi cat-3 pod fits as the cluster stands; 14 fit by "
            "preempting 14 pods of cat-1 and cat-2, exceeding 4 PDBs; 6 cannot be placed "
            "within the limit of 20 (0/5 nodes are available: 4 Insufficient memory, "
            "5 Insufficient cpu)"
        )
        facts = {
            d.get_attribute("data-fact"): d.inner_text()
            for d in page.locator("#capacity-facts dd").all()
        }
        assert facts == {
            "fit-now": "0",
            "by-preempting": "14",
            "unplaced": "6",
            "victims": "14",
            "apps": "4",
            "pdbs": "4",
        }
        # The curve: a column per replica placed, its top the pods preempted so far; the
        # last column holds all 14, 8 of cat-1 below 6 of cat-2; a mark per PDB exceeded.
        svg = page.locator("#curve-svg")
        assert svg.is_visible()
        assert svg.locator("g.replica").count() == 14
        last = svg.locator('g.replica[data-replica="14"]')
        heights = {
            r.get_attribute("data-class"): float(r.get_attribute("height") or 0)
            for r in last.locator("rect[data-class]").all()
        }
        assert set(heights) == {"cat-1", "cat-2"}
        assert heights["cat-1"] / heights["cat-2"] == pytest.approx(8 / 6, rel=0.01)
        assert svg.locator("line.pdb-mark").count() == 4
        legend = svg.locator("text.legend[data-class]").all()
        assert [t.text_content() for t in legend] == ["cat-1", "cat-2"]
        # The replicas: fourteen rows, each placed by preempting one pod of its own.
        rows = page.locator("#replicas tbody tr[data-replica]")
        assert rows.count() == 14
        assert {r.get_attribute("data-placement") for r in rows.all()} == {"preempting"}
        # Read at 1366 pixels: nothing wider than the window, no label over another.
        assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH
        assert page.evaluate(SCROLLED_BOXES) == []
        assert page.evaluate(OVERLAPPING_LABELS) == []
        if SCREENSHOTS:
            page.screenshot(path=f"{SCREENSHOTS}/capacity.png", full_page=True)

        # The same size in every class, from the room page.
        page.goto(f"{live_server.url}/snapshots/{analysis.snapshot_id}/room/?limit=20")
        page.get_by_role("button", name="Compare the classes").click()
        page.wait_for_url(f"{live_server.url}/analyses/*/")
        page.locator("#room-table").wait_for(timeout=60_000)
        by_preempting = {
            r.get_attribute("data-class"): r.locator('[data-col="by-preempting"]').inner_text()
            for r in page.locator("#room-table tbody tr").all()
        }
        # cat-2 may take only the 8 cat-1 pods; cat-1 nobody's; above cat-2, all 14.
        assert by_preempting == {"cluster-service": "14", "cat-3": "14", "cat-2": "8", "cat-1": "0"}
        assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH
        assert page.evaluate(SCROLLED_BOXES) == []
        if SCREENSHOTS:
            page.screenshot(path=f"{SCREENSHOTS}/room.png", full_page=True)
    finally:
        context.close()
