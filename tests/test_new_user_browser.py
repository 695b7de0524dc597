"""What a new user met in an afternoon on real dumps at 1366 pixels, read in Debian's
chromium: first-in-line labels that keep the namespace (the OpenShift dumps), findings
about the platform's own objects marked as the operators' (the OpenShift dumps), and,
on the EKS shape the dumps lack (tests/fixtures/eks_like.py: t3.small nodes, 11 pods
each, no class of the users' own), why replicas cannot be placed, the room of pods
naming no class and a critical-tiers box that is not empty."""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from clusters import services as cluster_services
from planning.first_in_line import first_in_line_request, first_in_line_run
from scheduling import services
from scheduling.engine.capacity import Size
from scheduling.engine.plan.owned import OWNED_ADVICE
from tests.conftest import browser_login
from tests.fixtures.eks_like import eks_like, small_pod
from tests.test_real_clusters_browser import HEIGHT, OVERLAPPING_LABELS, SCROLLED_BOXES, WIDTH

pytestmark = pytest.mark.browser

REAL = Path(__file__).resolve().parent / "fixtures" / "realworld"

# Each drawn app of the first-in-line picture: its <title> (the whole reference first),
# its label's text and box, and its bar's track box; in page pixels.
LINE_ROWS = """() => [...document.querySelectorAll("#first-in-line-svg g")]
  .filter(g => g.querySelector("text.app-name"))
  .map(g => {
    const t = g.querySelector("text.app-name").getBoundingClientRect();
    const track = g.querySelector("rect.track").getBoundingClientRect();
    return {title: g.querySelector("title").textContent,
            label: g.querySelector("text.app-name").textContent,
            left: t.left, right: t.right, top: t.top, bottom: t.bottom,
            track: track.left};
  })"""


def _snapshot(owner: Any, name: str, items: list[dict[str, Any]]) -> Any:
    return cluster_services.snapshot_create(
        owner=owner,
        name=name,
        files=[
            cluster_services.UploadedFile(
                name="snapshot.json", data=json.dumps({"kind": "List", "items": items}).encode()
            )
        ],
        run_async=False,
    )


def _real(owner: Any, cluster: str) -> Any:
    items = json.loads(gzip.decompress((REAL / cluster / "snapshot.json.gz").read_bytes()))
    return _snapshot(owner, cluster, items["items"])


def _page(browser: Any, live_server: Any) -> Any:
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    page = context.new_page()
    page.set_default_timeout(15_000)
    browser_login(page, live_server, "owner")
    return context, page


def _fits(page: Any, path: str) -> None:
    """Nothing wider than the window, no box scrolled sideways, no label over another."""
    assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH, path
    assert page.evaluate(SCROLLED_BOXES) == [], path
    assert page.evaluate(OVERLAPPING_LABELS) == [], path


@pytest.mark.parametrize("cluster", ["ocp-aws", "ocp-vsphere"])
def test_first_in_line_labels_keep_the_namespace_and_the_names_end(
    live_server: Any, browser: Any, owner: Any, cluster: str
) -> None:
    snapshot = _real(owner, cluster)
    first_in_line_run(
        ranking_id=first_in_line_request(
            snapshot=snapshot, cpu_millis=1000, memory_bytes=2 * 1024**3, limit=50
        ).pk
    )
    context, page = _page(browser, live_server)
    try:
        path = f"/snapshots/{snapshot.pk}/plan/first-in-line/?cpu=1&memory=2Gi&limit=50"
        page.goto(f"{live_server.url}{path}")
        rows = page.evaluate(LINE_ROWS)
        assert len(rows) == 30
        shortened = 0
        for r in rows:
            # The whole reference is the tooltip's first words: "Kind namespace/name (".
            ref = r["title"].split(" (priority ")[0]
            namespace, name = ref.split(" ", 1)[1].split("/", 1)
            label = r["label"]
            assert label.startswith(namespace + "/"), (label, ref)
            if "…" in label:
                shortened += 1
                assert label.startswith(namespace + "/…"), (label, ref)
                tail = label.split("…", 1)[1]
                assert name.endswith(tail) and len(tail) >= 9, (label, ref)
            else:
                assert label == f"{namespace}/{name}"
            # Inside the picture, clear of the bar.
            assert r["right"] <= r["track"] + 0.5, (label, r)
        # Every label tells its app apart from the others drawn.
        assert len({r["label"] for r in rows}) == 30
        # The real names are long: most of the operators' apps are shortened.
        assert shortened >= 10
        # No two labels' boxes meet.
        boxes = sorted(rows, key=lambda r: r["top"])
        for a, b in itertools.pairwise(boxes):
            assert a["bottom"] <= b["top"] + 1, (a["label"], b["label"])
        _fits(page, path)
    finally:
        context.close()


@pytest.mark.parametrize("cluster", ["ocp-aws", "ocp-vsphere"])
def test_the_platforms_daemonsets_are_the_operators_notes(
    live_server: Any, browser: Any, owner: Any, cluster: str
) -> None:
    snapshot = _real(owner, cluster)
    owned = {"ocp-aws": 6, "ocp-vsphere": 7}[cluster]
    context, page = _page(browser, live_server)
    try:
        path = f"/snapshots/{snapshot.pk}/plan/"
        page.goto(f"{live_server.url}{path}")
        # The user's own warning only; the platform's DaemonSets are notes.
        assert page.inner_text("#count-warning") == "1 warning"
        assert page.inner_text("#count-info") == f"{owned} notes"
        assert f"All {owned} notes are about objects the cluster's operators own" in (
            page.inner_text("#plan-sentence")
        )
        notes = page.locator("article.finding.operator-owned")
        assert notes.count() == owned
        for i in range(owned):
            note = notes.nth(i)
            assert note.get_attribute("data-rule") == "daemonset-below-neighbours"
            assert note.locator(".badge", has_text="operator-owned").is_visible()
            said = note.locator("p.owned").inner_text()
            assert "namespace openshift-" in said and said.endswith(OWNED_ADVICE + ".")
            assert note.locator("details.fix").count() == 0
        # The user's warning comes first, with its fix.
        first = page.locator("article.finding").first
        assert first.get_attribute("data-rule") == "no-global-default"
        assert first.locator("details.fix").count() == 1
        _fits(page, path)
    finally:
        context.close()


def test_on_the_eks_shape_the_pages_say_why_and_what_tier_pods_without_a_class_have(
    live_server: Any, browser: Any, owner: Any
) -> None:
    snapshot = _snapshot(owner, "eks-t3-small", eks_like())
    room = services.analysis_run(
        analysis_id=services.analysis_create_capacity(
            snapshot=snapshot, pod=small_pod(), limit=50
        ).pk
    )
    table = services.analysis_run(
        analysis_id=services.analysis_create_capacity(
            snapshot=snapshot, size=Size("50m", "64Mi"), limit=50
        ).pk
    )
    filters = "0/4 nodes are available: 1 Insufficient cpu, 3 Too many pods"
    context, page = _page(browser, live_server)
    try:
        # How many fit: the sentence ends on kube-scheduler's reason, the message follows.
        page.goto(f"{live_server.url}{room.get_absolute_url()}")
        assert page.inner_text("#outcome") == (
            "12 replicas of this 50m CPU, 64Mi priority 0 pod fit as the cluster stands; "
            "none more by preempting; 38 cannot be placed within the limit of 50 "
            f"({filters})"
        )
        why = page.locator("#unplaced-why")
        assert why.is_visible()
        assert why.inner_text().startswith("Why 38 cannot be placed")
        assert why.locator("code").inner_text().startswith(filters + ". ")
        _fits(page, room.get_absolute_url())

        # Room per class: one row, the pods naming no class, at 0; its reason below.
        page.goto(f"{live_server.url}{table.get_absolute_url()}")
        assert "no PriorityClass of its users' own" not in page.inner_text("main")
        row = page.locator("#room-no-class")
        assert row.is_visible()
        assert row.locator("td").first.inner_text().startswith("(no class) priority 0")
        assert row.locator('[data-col="fit-now"]').inner_text() == "12"
        assert row.locator('[data-col="unplaced"]').inner_text() == "38"
        assert page.locator("#room-table tbody tr").count() == 1
        assert page.locator("#room-unplaced-why code").inner_text().startswith(filters)
        _fits(page, table.get_absolute_url())

        # The room form says what it will try.
        page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/room/")
        assert "tried naming no class, at priority 0" in page.inner_text("#room-tiers")

        # The Plan tab's critical-tiers box: the built-in classes, and why.
        path = f"/snapshots/{snapshot.pk}/plan/"
        page.goto(f"{live_server.url}{path}")
        box = page.locator("#critical-form")
        assert "This cluster has no PriorityClass of its own" in box.inner_text()
        assert box.locator('input[name="critical"]').count() == 2
        box.locator('input[value="system-cluster-critical"]').check()
        box.get_by_role("button", name="Audit again").click()
        page.wait_for_url("**critical=system-cluster-critical**")
        assert page.locator('input[value="system-cluster-critical"]').is_checked()
        _fits(page, path)
    finally:
        context.close()
