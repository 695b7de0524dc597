"""The planning guide's question in Debian's chromium, against a real worker on Redis:
"What if we add cat-3 = 30000?"

The snapshot is the demo without its cat-3 class (ingested through the real service);
the what-if pastes cat-3 = 30000 beside a 1-CPU/2Gi cat-3 pod. The answer must be the
one the same pod gets on the full demo, where cat-3 = 30000 is a real class (the
engine's run on that snapshot, computed here on its own), and the page says which
class was assumed, at 1366 px.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import yaml

from clusters.demo import demo_cat3_pod, demo_objects
from scheduling.engine import analyze
from scheduling.models import Analysis
from tests.conftest import browser_login
from tests.scheduling.conftest import make_snapshot
from tests.scheduling.test_hypothetical_classes import without_cat3

pytestmark = [pytest.mark.browser, pytest.mark.worker]

VIEWPORT = {"width": 1366, "height": 900}
SCREENSHOTS = os.environ.get("PREEMPTLAB_SCREENSHOTS", "")
CAT3 = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "cat-3"},
    "value": 30000,
}


def test_a_class_before_it_exists_answers_as_the_full_demo(
    live_server: Any, celery_worker_process: Any, page: Any, owner: Any
) -> None:
    snapshot = make_snapshot(owner, without_cat3(), name="demo without cat-3")
    pod = demo_cat3_pod()
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "2Gi"}
    expected = analyze(demo_objects(), pod).to_dict()
    assert expected["outcome"] == "preempts" and expected["victims"]

    page.set_viewport_size(VIEWPORT)
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/analyses/new/")
    page.fill("#id_manifest", yaml.safe_dump_all([CAT3, pod], sort_keys=False))
    page.get_by_role("button", name="Analyze").click()
    page.wait_for_url(f"{live_server.url}/analyses/*/")
    outcome = page.locator("#outcome")
    outcome.wait_for(timeout=60_000)

    analysis = Analysis.objects.get()
    assert analysis.priority_classes == [CAT3]
    assert outcome.inner_text() == f"Preempts {len(expected['victims'])} pod on {expected['node']}."
    assert page.locator("#chosen-node").inner_text() == expected["node"]
    victims = page.locator("#victims tbody tr td:first-child").all_inner_texts()
    assert victims == expected["victims"]

    said = page.locator("[data-hypothetical-class]")
    assert said.all_inner_texts() == ["hypothetical class cat-3 = 30000"]
    assert said.is_visible()
    box = said.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= VIEWPORT["width"]
    # Nothing widens the page past the window.
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    if SCREENSHOTS:
        page.screenshot(path=os.path.join(SCREENSHOTS, "hypothetical-class.png"), full_page=True)
