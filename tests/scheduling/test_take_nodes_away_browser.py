"""Taking nodes away in Debian's chromium at 1366 pixels, on the ocp-aws dump with its
nodes named as EC2 names them outside us-east-1 (42 characters): two worker nodes ticked
on the Nodes page, "What if these go away?", the form filled in, a real worker on Redis
runs it; the answer page and its share link read without a console error and without
anything wider than the window."""

from __future__ import annotations

import os
from typing import Any

import pytest

from clusters.models import Node
from scheduling.models import Analysis
from tests.conftest import browser_login
from tests.realworld import demote_workers, import_dump, lengthen_node_names, real_dump
from tests.test_real_clusters_browser import HEIGHT, OVERLAPPING_LABELS, SCROLLED_BOXES, WIDTH

pytestmark = [pytest.mark.browser, pytest.mark.worker]

SCREENSHOTS = os.environ.get("PREEMPTLAB_SCREENSHOTS", "")


def _fits(page: Any, where: str) -> list[str]:
    problems = []
    width = page.evaluate("() => document.documentElement.scrollWidth")
    if width > WIDTH:
        problems.append(f"{where}: page {width}px")
    for box, inner, outer in page.evaluate(SCROLLED_BOXES):
        problems.append(f"{where}: {box} {inner} in {outer}")
    problems += [f"{where}: {pair}" for pair in page.evaluate(OVERLAPPING_LABELS)]
    return problems


def test_two_real_nodes_drained_from_the_nodes_page(
    live_server: Any, celery_worker_process: Any, browser: Any, owner: Any
) -> None:
    dump = lengthen_node_names(demote_workers(real_dump("ocp-aws")))
    snapshot = import_dump(owner, "ocp-aws", dump)
    workers = sorted(
        n.name
        for n in Node.objects.filter(snapshot=snapshot)
        if "node-role.kubernetes.io/worker" in n.labels
    )[:2]
    assert len(workers) == 2 and all(len(w) >= 40 for w in workers), workers
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on(
        "console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None
    )
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    problems: list[str] = []
    try:
        browser_login(page, live_server, "owner")
        page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/nodes/")
        problems += _fits(page, "nodes page")
        for name in workers:
            page.check(f'input[name="nodes"][value="{name}"]')
        page.click("#take-away-submit")
        page.wait_for_url(f"{live_server.url}/snapshots/{snapshot.pk}/take-nodes-away/*")
        assert page.input_value("#id_nodes").split() == workers
        problems += _fits(page, "form")
        page.check("#id_force")
        page.click("#take-nodes-away-submit")

        page.wait_for_url(f"{live_server.url}/analyses/*/")
        outcome = page.locator("#outcome")
        outcome.wait_for(timeout=90_000)
        analysis = Analysis.objects.get()
        assert analysis.kind == "take-nodes-away" and analysis.status == "done", analysis.error
        result = analysis.result
        assert result is not None
        # The verdict's sentence first, as stored; a row per node drained, by its real name.
        assert outcome.inner_text() == result["sentence"]
        assert outcome.get_attribute("data-verdict") == result["verdict"]
        rows = page.locator("#away-nodes tr[data-node]")
        assert sorted(r.get_attribute("data-node") for r in rows.all()) == workers
        evicted = {n["node"]: len(n["evicted"]) for n in result["nodes"]}
        for name in workers:
            flow = page.locator(f'#nodes-picture li[data-node="{name}"]')
            assert flow.locator(".pod-block.evicted").count() == min(evicted[name], 48)
        placed = [r for r in result["returning"] if r["node"]]
        assert page.locator('#returning tr[data-placed="yes"]').count() == min(len(placed), 50)
        problems += _fits(page, "answer page")
        if SCREENSHOTS:
            page.screenshot(path=f"{SCREENSHOTS}/take-nodes-away.png", full_page=True)

        page.click("#create-share-link")
        link = page.locator("#share-links a.share-url").first
        link.wait_for()
        url = link.get_attribute("href")
        assert url
        shared = context.new_page()
        shared.on("pageerror", lambda e: errors.append(f"shared: {e}"))
        shared.goto(url if url.startswith("http") else f"{live_server.url}{url}")
        assert shared.inner_text("#outcome") == result["sentence"]
        problems += _fits(shared, "share page")
    finally:
        context.close()
    assert problems == [], "\n".join(problems)
    assert errors == [], "\n".join(errors)
