"""A pod waiting for DRA devices on the result page, in Debian's chromium at 1366 px,
against a real worker on Redis: the snapshot of device_scenario is uploaded through
the real ingest (which keeps the DRA objects), the what-if is asked through the page,
and the "Devices" card says why preemption cannot help, lists who holds the GPUs and
what works instead; the 40-character node names wrap, nothing scrolls sideways and
the console stays clean (no error, no Content-Security-Policy violation). The share
page shows the same card, read-only."""

from __future__ import annotations

import os
from typing import Any

import pytest
import yaml

from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis
from tests.conftest import browser_login
from tests.engine.builders import as_list, make_pod
from tests.realworld import import_dump
from tests.scheduling.conftest import make_snapshot
from tests.scheduling.device_scenario import (
    NAMESPACE,
    NODE_1,
    NODE_2,
    NODE_3,
    SENTENCE,
    held_gpus_cluster,
    trainer_deployment,
    training_pod,
    with_claim,
    with_free_node_objects,
)
from tests.storage_dra_dump import NAMESPACE as DUMP_NAMESPACE
from tests.storage_dra_dump import _worker_nodes, storage_dra_dump
from tests.test_console_clean_browser import REPORT_VIOLATIONS

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1366, "height": 900}
SCREENSHOTS = os.environ.get("PREEMPTLAB_SCREENSHOTS", "")


def _text(page: Any, selector: str) -> list[str]:
    return [" ".join(t.split()) for t in page.locator(selector).all_inner_texts()]


def _fits_the_window(page: Any) -> None:
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('.scroll')]
             .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.closest('section').id)"""
    )
    assert overflowing == [], overflowing
    # The 40-character node names wrap inside the card: none reaches past it.
    for name in (NODE_1, NODE_2):
        boxes = page.locator("#devices td code").evaluate_all(
            """(els, name) => els.filter(e => e.textContent === name).map(e => {
                 const c = e.closest('.card').getBoundingClientRect();
                 const r = e.getBoundingClientRect(); return [r.right, c.right]; })""",
            name,
        )
        assert boxes, name
        for box in boxes:
            assert box[0] <= box[1] + 0.5, (name, box)


def _holders(page: Any) -> list[list[str]]:
    return [
        [" ".join(c.split()) for c in row.locator("td").all_inner_texts()]
        for row in page.locator("#devices tbody tr").all()
    ]


EXPECTED_HOLDERS = [
    [
        f"infer-{i} ReplicaSet/infer-7d9f",
        NAMESPACE,
        "100 lower",
        node,
        f"infer-{i}-gpus",
        "a100",
        "4",
    ]
    for i, node in enumerate((NODE_1, NODE_2))
]


@pytest.mark.worker
def test_a_training_pod_whose_gpus_are_held_by_lower_priority_pods(
    live_server: Any, celery_worker_process: Any, browser: Any, owner: Any
) -> None:
    snapshot = make_snapshot(owner, held_gpus_cluster(), name="gpus held")
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
        page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/analyses/new/")
        page.fill("#id_manifest", yaml.safe_dump(training_pod(), sort_keys=False))
        page.get_by_role("button", name="Analyze").click()
        page.wait_for_url(f"{live_server.url}/analyses/*/")
        page.locator("#outcome").wait_for(timeout=60_000)
        analysis = Analysis.objects.get()
        assert analysis.outcome == "unschedulable", analysis.error
        if SCREENSHOTS:
            page.screenshot(path=os.path.join(SCREENSHOTS, "devices.png"), full_page=True)

        card = page.locator("#devices")
        assert card.is_visible()
        assert _text(page, "#devices-sentence") == [SENTENCE[0].upper() + SENTENCE[1:] + "."]
        assert _text(page, "#devices [data-device-class]") == [
            "Asks 4 GPUs of class a100: 8 held by other pods, 0 free."
        ]
        assert _holders(page) == EXPECTED_HOLDERS
        remedies = _text(page, "[data-device-remedy]")
        assert any("firstAvailable" in r for r in remedies), remedies
        assert any(r.startswith("Wait") for r in remedies), remedies
        assert _text(page, "#device-owners") == ["The holders' owners: ReplicaSet/infer-7d9f."]
        assert page.locator("#devices-to-advice a").get_attribute("href") == "#advice"
        _fits_the_window(page)
        # Loaded afresh, the link lands on the page's "How to avoid this" section.
        page.reload()
        page.locator("#devices-to-advice a").click()
        assert page.locator("#advice").is_visible()
        assert page.locator("#advice h2").inner_text() == "How to avoid this"

        # The share page: the same card, without the link to the advice.
        link = services.share_link_create(analysis=analysis)
        page.goto(f"{live_server.url}{link.get_absolute_url()}")
        page.locator("#devices").wait_for()
        assert _text(page, "#devices-sentence") == [SENTENCE[0].upper() + SENTENCE[1:] + "."]
        assert _holders(page) == EXPECTED_HOLDERS
        assert page.locator("#devices-to-advice").count() == 0
        _fits_the_window(page)
        assert errors == [] and violations == [], (errors, violations)
    finally:
        context.close()


def test_the_card_on_a_real_dump_reads_at_1366_pixels(
    live_server: Any, browser: Any, owner: Any
) -> None:
    """ocp-aws (42-character node names) with GPUs on its workers, two of the first
    worker's held by a priority-0 inference pod of a long namespace: a training pod
    confined to that worker claiming all 8 waits, and the card's table (a long pod,
    namespace, node and claim name on one row) stays inside the window."""
    dump = storage_dra_dump()
    first = _worker_nodes(dump)[0]["metadata"]["name"]
    free = 8 * len(_worker_nodes(dump)) - 2  # 8 A100s per worker, 2 held
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "train-gpus", "namespace": DUMP_NAMESPACE, "uid": "uid-train"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpu",
                        "exactly": {"deviceClassName": "a100.nvidia.com", "count": 8},
                    }
                ]
            }
        },
    }
    dump["items"].append(claim)
    snapshot = import_dump(owner, "ocp-aws gpus", dump)
    pod = with_claim(
        make_pod("train", DUMP_NAMESPACE).priority(1000).req(cpu="100m").obj(), "train-gpus"
    )
    pod["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [first]}]}
                ]
            }
        }
    }
    analysis = Analysis.objects.create(
        snapshot=snapshot,
        pod=pod,
        pod_key=f"{DUMP_NAMESPACE}/train",
        status=AnalysisStatus.QUEUED,
    )
    analysis = services.analysis_run(analysis_id=analysis.pk)
    assert analysis.outcome == "unschedulable", analysis.error
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
        page.locator("#devices").wait_for()
        if SCREENSHOTS:
            page.screenshot(path=os.path.join(SCREENSHOTS, "devices-real.png"), full_page=True)
        assert _text(page, "#devices [data-device-class]") == [
            f"Asks 8 GPUs of class a100.nvidia.com: 2 held by other pods, {free} free."
        ]
        remedies = _text(page, "[data-device-remedy]")
        assert remedies[0].startswith(f"Ask for fewer devices: {free} are free in the cluster")
        holder = "llm-infer-7d9f8c6b5-x2x9q"
        assert _holders(page) == [
            [
                holder,
                DUMP_NAMESPACE,
                "0 lower",
                first,
                f"{holder}-gpu-q8wzt",
                "a100.nvidia.com",
                "2",
            ]
        ]
        # The table and every name in it stay inside the card and the window.
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], widths
        overflowing = page.evaluate(
            """() => [...document.querySelectorAll('.scroll')]
                 .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.closest('section').id)"""
        )
        assert overflowing == [], overflowing
        card_right = page.locator("#devices").evaluate("e => e.getBoundingClientRect().right")
        rights = page.locator("#devices td").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().right)"
        )
        assert max(rights) <= card_right, (rights, card_right)
        assert errors == [] and violations == [], (errors, violations)
    finally:
        context.close()


@pytest.mark.worker
def test_a_workload_page_counts_the_devices_per_node(
    live_server: Any, celery_worker_process: Any, browser: Any, owner: Any
) -> None:
    """Three replicas of 2 A100s each, asked through the page: the two that fit hold the
    third node's 4 free GPUs, and the per-node table says 0 held before, 4 after."""
    snapshot = make_snapshot(owner, as_list(*with_free_node_objects()), name="gpus and room")
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
        page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/analyses/new/")
        page.fill("#id_manifest", yaml.safe_dump(trainer_deployment(3), sort_keys=False))
        page.get_by_role("button", name="Analyze").click()
        page.wait_for_url(f"{live_server.url}/analyses/*/")
        page.locator("#outcome").wait_for(timeout=60_000)
        assert Analysis.objects.get().is_workload
        if SCREENSHOTS:
            page.screenshot(path=os.path.join(SCREENSHOTS, "devices-workload.png"), full_page=True)
        rows = [
            [" ".join(c.split()) for c in row.locator("td").all_inner_texts()]
            for row in page.locator("#node-devices tbody tr").all()
        ]
        assert rows == [[NODE_3, "4", "0", "4", "0"]]
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], widths
        overflowing = page.evaluate(
            """() => [...document.querySelectorAll('.scroll')]
                 .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.closest('section').id)"""
        )
        assert overflowing == [], overflowing
        assert errors == [] and violations == [], (errors, violations)
    finally:
        context.close()
