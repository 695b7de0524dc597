"""A pod pinned by its volume, on nodes at their attach limit, on the result page in
Debian's chromium at 1366 px: the volume sentences are on screen (the pin under the
headline, the attach counts in the tie-break and among the other nodes), the nodes'
40-character names wrap, nothing scrolls sideways, and the console stays clean (no
error, no Content-Security-Policy violation)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis
from scheduling.presenters.pod import rejected_groups
from tests.conftest import browser_login
from tests.scheduling.storage_scenario import (
    NODE_A1,
    NODE_A2,
    NODE_B1,
    pinned_broker,
    pinned_broker_objects,
    stored_snapshot,
)
from tests.test_console_clean_browser import REPORT_VIOLATIONS

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1366, "height": 900}
SCREENSHOTS = os.environ.get("PREEMPTLAB_SCREENSHOTS", "")
FULL = "this node has 2 of 2 attachments of ebs.csi.aws.com in use; the pod needs 1 more"


def _analyse(owner: Any) -> Analysis:
    snapshot = stored_snapshot(owner, pinned_broker_objects())
    pod = pinned_broker()
    analysis = Analysis.objects.create(
        snapshot=snapshot, pod=pod, pod_key="default/kafka-0", status=AnalysisStatus.QUEUED
    )
    return services.analysis_run(analysis_id=analysis.pk)


def _text(page: Any, selector: str) -> list[str]:
    return [" ".join(t.split()) for t in page.locator(selector).all_inner_texts()]


def test_a_pod_pinned_by_its_volume_on_nodes_at_their_attach_limit(
    live_server: Any, browser: Any, owner: Any
) -> None:
    analysis = _analyse(owner)
    ex = analysis.explained
    assert ex is not None and ex.node == NODE_A1, analysis.error
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    violations: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.expose_function("reportViolation", lambda v: violations.append(v))
    page.add_init_script(REPORT_VIOLATIONS)
    try:
        browser_login(page, live_server, "owner")
        page.goto(f"{live_server.url}{analysis.get_absolute_url()}")
        page.locator("#outcome").wait_for()
        page.locator("#other-nodes details").evaluate_all("ds => ds.forEach(d => d.open = true)")
        if SCREENSHOTS:
            page.screenshot(path=os.path.join(SCREENSHOTS, "volumes.png"), full_page=True)

        # Under the headline: which volume pinned the pod, and what that did.
        assert _text(page, "[data-volume-pin]") == [
            "Pinned to eu-west-1a by its volume data-kafka-0 (PersistentVolume "
            "pv-data-kafka-0): VolumeBinding rejects every node outside eu-west-1a as "
            "unresolvable, so no preemption can move it there."
        ]
        assert page.locator("[data-volume-pin]").is_visible()
        # The tie-break: both candidates are at their EBS limit (evicting a holder frees
        # a slot), each row saying so.
        cells = {
            row.get_attribute("data-node"): " ".join(row.locator("td.volumes").inner_text().split())
            for row in page.locator("#tie-break tbody tr").all()
        }
        assert cells == {NODE_A1: f"NodeVolumeLimits: {FULL}", NODE_A2: f"NodeVolumeLimits: {FULL}"}
        # The other nodes: the candidate that lost with its counts, the other zone's node
        # out for the volume's node affinity.
        groups = _text(page, "[data-volume-group]")
        assert f"Rejected for its volumes by NodeVolumeLimits. {NODE_A2}: {FULL}" in groups
        assert "Rejected for its volumes by VolumeBinding." in groups
        summaries = _text(page, "#other-nodes summary")
        assert any("node(s) didn't match PersistentVolume's node affinity" in s for s in summaries)
        assert page.locator(f"[data-attach-node='{NODE_A2}']").is_visible()

        # Nothing is wider than the window, and nothing inside scrolls sideways either.
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], widths
        overflowing = page.evaluate(
            """() => [...document.querySelectorAll('.scroll')]
                 .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.closest('section').id)"""
        )
        assert overflowing == [], overflowing
        # The 40-character names wrap where they must: no element with a node name in it
        # reaches past its card.
        for name in (NODE_A1, NODE_A2, NODE_B1):
            for box in page.locator(f"code:text-is('{name}')").evaluate_all(
                """els => els.map(e => { const c = e.closest('.card').getBoundingClientRect();
                     const r = e.getBoundingClientRect(); return [r.right, c.right]; })"""
            ):
                assert box[0] <= box[1] + 0.5, (name, box)

        # The page of all the nodes of a group carries their attach counts too.
        (index,) = [g.index for g in rejected_groups(ex) if g.nodes == [NODE_A2]]
        page.goto(f"{live_server.url}{analysis.get_absolute_url()}rejected/{index}/")
        assert _text(page, "[data-volume-nodes] li") == [f"{NODE_A2}: NodeVolumeLimits: {FULL}"]
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], widths
        assert errors == [] and violations == [], (errors, violations)
    finally:
        context.close()
