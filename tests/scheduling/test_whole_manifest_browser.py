"""The what-if form takes a whole manifest (what helm template prints) in chromium at
1366 px: answered, its PDB and the kinds skipped said on the page, no Secret value."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from scheduling import services
from scheduling.models import Analysis
from tests.conftest import browser_login
from tests.test_real_clusters_browser import SCROLLED_BOXES

pytestmark = pytest.mark.browser

SECRET_VALUE = "page-must-not-show-this"

CHART = [
    {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "web", "namespace": "default"},
        "stringData": {"password": SECRET_VALUE},
    },
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web"}, "data": {"a": "b"}},
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {}},
    {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "chart-critical"},
        "value": 40_000,
    },
    {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "purple-pdb", "namespace": "default"},
        "spec": {"maxUnavailable": 2, "selector": {"matchLabels": {"app": "purple"}}},
    },
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "priorityClassName": "chart-critical",
                    "containers": [
                        {"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}
                    ],
                },
            },
        },
    },
]


def test_the_form_takes_chart_output_whole(
    live_server: Any, browser: Any, owner: Any, demo_snapshot: Any, no_broker: Any
) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        browser_login(page, live_server, "owner")
        page.goto(f"{live_server.url}/snapshots/{demo_snapshot.pk}/analyses/new/")
        page.click("label[for=mode-manifest]")
        page.fill("#id_manifest", yaml.safe_dump_all(CHART))
        page.get_by_role("button", name="Analyze").click()
        page.wait_for_url(f"{live_server.url}/analyses/*/")
        analysis = Analysis.objects.get()
        assert analysis.kind == "workload"
        services.analysis_run(analysis_id=analysis.pk)
        page.locator("#outcome").wait_for()
        notes = " ".join(page.locator("[data-manifest-note]").all_inner_texts())
        assert "PDB default/purple-pdb from the manifest (replaces the snapshot's)" in notes
        assert "Skipped 1 Secret, 1 ConfigMap and 1 Service" in notes, notes
        assert "chart-critical" in page.inner_text("#verdict")
        assert SECRET_VALUE not in page.content()
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 1366
        assert page.evaluate(SCROLLED_BOXES) == []
        assert errors == []
    finally:
        context.close()
