"""Every page kind read at 1366 x 900 on the two real clusters' dumps and on the demo:
nothing wider than the window, and the headline's words right. Real node names have
20-40 characters (the demo's six); real clusters start dozens of pods in one second."""

from __future__ import annotations

from typing import Any

import pytest

from clusters import services as cluster_services
from clusters.models import Node, Pod
from planning.first_in_line import first_in_line_request, first_in_line_run
from scheduling import services
from scheduling.engine.capacity import Capacity, Size
from scheduling.engine.words import plural
from scheduling.services import analysis_create_take_nodes_away
from tests.clusters.builders import make_deployment
from tests.conftest import browser_login
from tests.realworld import demote_workers, import_dump, pending_pod, real_dump

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 1366, 900

# Every box on the page whose content is wider than the box (it scrolls sideways).
SCROLLED_BOXES = """() => [...document.querySelectorAll("main *")]
  .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== "visible")
  .map(e => [e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + "." + e.className,
             e.scrollWidth, e.clientWidth])"""

# Every pair of text labels of one picture whose boxes overlap (by more than a pixel),
# and every label cut at the picture's edge: what a reader could not read.
OVERLAPPING_LABELS = """() => {
  const out = [];
  for (const svg of document.querySelectorAll("svg")) {
    const frame = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll("text")) {
      const r = t.getBoundingClientRect();
      if (r.width > 0 && (r.right > frame.right + 1 || r.left < frame.left - 1)) {
        out.push(t.textContent.trim() + " | cut at the picture's edge");
      }
    }
    const boxes = [...svg.querySelectorAll("text")]
      .map(t => [t.textContent.trim(), t.getBoundingClientRect()])
      .filter(([text, r]) => text && r.width > 0 && r.height > 0);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, ra] = boxes[i], [b, rb] = boxes[j];
        const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
        const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        if (w > 1 && h > 1) out.push(a + " | " + b);
      }
    }
  }
  return out;
}"""


def _pod(name: str, cpu: str, klass: str = "openshift-user-critical") -> dict[str, Any]:
    return pending_pod(name, cpu, klass=klass)


def _deployment(replicas: int, klass: str) -> dict[str, Any]:
    return make_deployment("rollout", _pod("rollout", "1500m", klass)["spec"], replicas=replicas)


HEADLINES: dict[str, str] = {}


def _pages(snapshot: Any, klass: str) -> list[str]:
    single = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=snapshot, pod=_pod("big", "3", klass)).pk
    )
    plain = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=snapshot, objects=[_deployment(12, klass)]
        ).pk
    )
    cascade = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=snapshot, objects=[_deployment(12, klass)], recreate_victims=True
        ).pk
    )
    # Kept time: the real pods' grace periods, a lane per real node on the clock.
    timed = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=snapshot, objects=[_deployment(12, klass)], timeline=True
        ).pk
    )
    # How many fit: a 1.5-CPU template's replicas one by one, and one size in every class.
    room = services.analysis_run(
        analysis_id=services.analysis_create_capacity(
            snapshot=snapshot, pod=_pod("room", "1500m", klass), limit=40
        ).pk
    )
    table = services.analysis_run(
        analysis_id=services.analysis_create_capacity(
            snapshot=snapshot, size=Size("1500m", "2Gi"), limit=10
        ).pk
    )
    # First in line, ranked as a worker ranks it: the page shows the stored table.
    first_in_line_run(
        ranking_id=first_in_line_request(
            snapshot=snapshot, cpu_millis=1000, memory_bytes=2 * 1024**3, limit=50
        ).pk
    )
    # Two nodes drained (with force): the per-node picture and tables, by real names.
    two = list(
        Node.objects.filter(snapshot=snapshot).order_by("name").values_list("name", flat=True)
    )
    away = services.analysis_run(
        analysis_id=analysis_create_take_nodes_away(
            snapshot=snapshot, body={"nodes": two[-2:], "force": True}
        ).pk
    )
    assert away.is_done, away.error
    HEADLINES[away.get_absolute_url()] = away.summary[:60]
    link = services.share_link_create(analysis=single)
    # What each result's headline must begin with, from the stored answers.
    words = {"fits": "Fits on", "preempts": "Preempts", "unschedulable": "Cannot be scheduled"}
    HEADLINES[single.get_absolute_url()] = words.get(single.outcome, "?")
    for a in (plain, cascade, timed):
        run = a.run
        assert run is not None
        HEADLINES[a.get_absolute_url()] = f"{run.bound_count} of 12 replicas run"
    answer = room.room
    assert isinstance(answer, Capacity)
    HEADLINES[room.get_absolute_url()] = (
        f"{plural(answer.fit_now, 'replica')} of" if answer.fit_now else "No replica of"
    )
    HEADLINES[table.get_absolute_url()] = "Room for a 1500m CPU, 2Gi pod in"
    pod = Pod.objects.filter(snapshot=snapshot).order_by("-priority", "name").first()
    assert pod is not None
    base = f"/snapshots/{snapshot.pk}"
    return [
        f"{base}/",
        f"{base}/nodes/",
        f"{base}/pods/",
        f"{base}/pdbs/",
        f"{base}/volumes/",
        f"{base}/volumes/attachments/",
        f"{base}/devices/",
        f"{base}/plan/",
        f"{base}/plan/first-in-line/?cpu=1&memory=2Gi&limit=50",
        f"{base}/analyses/",
        f"{base}/analyses/new/",
        f"{base}/pods/{pod.pk}/what-if/",
        single.get_absolute_url(),
        plain.get_absolute_url(),
        cascade.get_absolute_url(),
        timed.get_absolute_url(),
        room.get_absolute_url(),
        table.get_absolute_url(),
        away.get_absolute_url(),
        f"{base}/take-nodes-away/",
        f"{base}/room/",
        link.get_absolute_url(),
        "/analyses/",
        "/snapshots/",
    ]


def _real(owner: Any, cluster: str) -> Any:
    """The real dump with its workers' pods demoted (tests/realworld.py)."""
    return import_dump(owner, cluster, demote_workers(real_dump(cluster)))


@pytest.mark.parametrize("cluster", ["ocp-aws", "ocp-vsphere", "demo"])
def test_every_page_fits_1366_pixels(
    live_server: Any, browser: Any, owner: Any, cluster: str
) -> None:
    snapshot = (
        cluster_services.snapshot_load_demo(owner=owner)
        if cluster == "demo"
        else _real(owner, cluster)
    )
    paths = _pages(snapshot, "cat-3" if cluster == "demo" else "medium")
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    page = context.new_page()
    try:
        browser_login(page, live_server, "owner")
        too_wide, overlapping = [], []
        for path in paths:
            page.goto(f"{live_server.url}{path}")
            width = page.evaluate("() => document.documentElement.scrollWidth")
            if width > WIDTH:
                too_wide.append((path, width))
            # A table in a scrolling box hides its last columns just as surely.
            for box, inner, outer in page.evaluate(SCROLLED_BOXES):
                too_wide.append((f"{path} {box}", f"{inner} in {outer}"))
            overlapping += [(path, pair) for pair in page.evaluate(OVERLAPPING_LABELS)]
            if path in HEADLINES:
                assert page.inner_text("#outcome").startswith(HEADLINES[path]), path
        assert too_wide == [], "\n".join(f"{p}: {w}px" for p, w in too_wide)
        assert overlapping == [], "\n".join(f"{p}: {pair}" for p, pair in overlapping[:20])
    finally:
        context.close()
