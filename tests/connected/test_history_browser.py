"""The cluster page's history and the drift page on a real cluster (ocp-aws), read on
Monday and again on Tuesday with a class added, a PDB at 0 allowed disruptions and a
real pod preempted; at 1366 px, nothing wider than the window, no console error."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from connected.history.models import ObservedPreemption, SnapshotDigest
from connected.history.services import digest_snapshot
from connected.models import Cluster
from planning.first_in_line import first_in_line_request, first_in_line_run
from scheduling import services
from tests.conftest import browser_login
from tests.connected.history_builders import MONDAY, TUESDAY, cluster_snapshot
from tests.realworld import real_dump
from tests.test_real_clusters_browser import SCROLLED_BOXES

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 1366, 900
SCREENS = Path(__file__).resolve().parent.parent.parent / "var" / "screens"


def _tuesday(monday: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    """Monday's objects a day later, the Preempted event, and the victim."""
    items = copy.deepcopy(monday)
    workers = {
        o["metadata"]["name"]
        for o in items
        if o["kind"] == "Node" and "node-role.kubernetes.io/worker" in o["metadata"]["labels"]
    }
    victim = next(
        o
        for o in items
        if o["kind"] == "Pod"
        and o["spec"].get("nodeName") in workers
        and o["status"].get("phase") == "Running"
        and not o["spec"].get("priorityClassName")
    )
    items.remove(victim)
    node = victim["spec"]["nodeName"]
    pdb = next(o for o in items if o["kind"] == "PodDisruptionBudget")
    pdb["status"]["disruptionsAllowed"] = 0
    items.append(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "batch-high"},
            "value": 500_000,
        }
    )
    items.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "urgent-1", "namespace": "batch", "uid": "uid-urgent-1"},
            "spec": {
                "nodeName": node,
                "priorityClassName": "batch-high",
                "containers": [
                    {"name": "main", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}
                ],
            },
            "status": {"phase": "Running", "startTime": "2026-11-24T08:41:00Z"},
        }
    )
    meta = victim["metadata"]
    event = {
        "type": "Normal",
        "reason": "Preempted",
        "message": f"Preempted by pod uid-urgent-1 on node {node}",
        "namespace": meta["namespace"],
        "involved": {
            "kind": "Pod",
            "namespace": meta["namespace"],
            "name": meta["name"],
            "uid": meta.get("uid", ""),
        },
        "source": "default-scheduler",
        "count": 1,
        "first_at": "2026-11-24T08:40:00Z",
        "last_at": "2026-11-24T08:40:00Z",
    }
    return items, event, f"{meta['namespace']}/{meta['name']}"


def test_the_cluster_page_and_the_drift_on_a_real_cluster(
    live_server: Any, browser: Any, owner: Any, no_broker: Any
) -> None:
    monday = real_dump("ocp-aws")["items"]
    tuesday, event, victim = _tuesday(monday)
    cluster = Cluster.objects.create(name="ocp-aws", source="aws", owner=owner)
    with mock.patch("planning.tasks.first_in_line_run_task.delay"):
        before = cluster_snapshot(cluster, monday, MONDAY)
        after = cluster_snapshot(cluster, tuesday, TUESDAY, events=[event])
        for snapshot in (before, after):
            digest_snapshot(snapshot)
            ranking = first_in_line_request(
                snapshot=snapshot, cpu_millis=1000, memory_bytes=2 * 1024**3, limit=50
            )
            first_in_line_run(ranking_id=ranking.pk)
    row = ObservedPreemption.objects.get(cluster=cluster)
    assert (row.victim, row.preemptor) == (victim, "batch/urgent-1")

    SCREENS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        browser_login(page, live_server, "owner")

        def fits(path: str) -> None:
            assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH, path
            assert page.evaluate(SCROLLED_BOXES) == [], path

        page.goto(f"{live_server.url}/clusters/{cluster.pk}/")
        assert page.locator("#history-charts svg").count() == 3
        assert page.locator("#history-table tbody tr").count() == 2
        assert victim in page.inner_text("#preemptions-table")
        fits("cluster page")
        # The chart of apps first in line read each ranking once into the digest.
        reached = SnapshotDigest.objects.values_list("first_in_line_reached", flat=True)
        assert None not in reached and len(reached) == 2
        page.screenshot(path=str(SCREENS / "cluster-page.png"), full_page=True)

        page.click(f"#history-{after.pk} a:has-text('since')")
        sentence = page.inner_text("#drift-sentence")
        assert sentence.startswith(
            "Since Monday: class batch-high added below openshift-user-critical;"
        ), sentence
        assert "1 pod preempted" in sentence and "now allowing no disruption" in sentence
        assert "batch-high" in page.inner_text("#drift-classes")
        assert victim in page.inner_text("#drift-preemptions")
        fits("drift page")
        page.screenshot(path=str(SCREENS / "drift.png"), full_page=True)

        page.goto(f"{live_server.url}/clusters/{cluster.pk}/")
        page.click(f"#preemption-{row.pk} button:has-text('Explain')")
        page.wait_for_url("**/analyses/**")
        row.refresh_from_db()
        assert row.explanation is not None and row.explanation.snapshot_id == before.pk
        services.analysis_run(analysis_id=row.explanation.pk)
        page.goto(f"{live_server.url}/clusters/{cluster.pk}/#preemptions")
        said = page.inner_text(f"#preemption-{row.pk} .verdict")
        assert said.startswith(("The engine agrees", "The engine answers otherwise")), said
        fits("explained preemption")
        page.locator("#preemptions").screenshot(path=str(SCREENS / "explained.png"))
        assert errors == []
    finally:
        context.close()
