"""Every page family read in chromium on the real ocp-aws dump, and its htmx swaps used,
under the app's own Content-Security-Policy: not one console error, not one CSP
violation (an inline style or script the policy blocks is both). The families: the
lists, the snapshot's tabs, the pods page and its swaps, the plan and first in line,
the what-if forms, the pod, workload, timeline and capacity results, compare, share,
the scheduler tab."""

from __future__ import annotations

from typing import Any

import pytest

from clusters.models import Pod
from planning.first_in_line import first_in_line_request, first_in_line_run
from scheduling import services
from scheduling.engine.capacity import Size
from tests.clusters.builders import make_deployment
from tests.conftest import browser_login
from tests.realworld import demote_workers, import_dump, pending_pod, real_dump

pytestmark = pytest.mark.browser

# Reports each violation to the test as it happens (also those of later htmx swaps).
REPORT_VIOLATIONS = """document.addEventListener("securitypolicyviolation", e =>
  window.reportViolation([e.violatedDirective, e.blockedURI, e.sample,
    e.target && e.target.outerHTML ? e.target.outerHTML.slice(0, 120) : ""].join(" | ")));"""

# An extension's mark on the filter inputs, styled through the CSSOM (which the policy
# allows) and emptied again: an empty style attribute the page never wrote.
EMPTIED_STYLES = """() => document.querySelectorAll("#pods-filter input").forEach(e => {
  e.style.backgroundImage = "none"; e.style.backgroundImage = ""; })"""


def _analyses(snapshot: Any) -> dict[str, Any]:
    """One analysis of each kind, run as a worker runs it."""
    rollout = make_deployment("rollout", pending_pod("rollout", "1500m")["spec"], replicas=12)
    made = {
        "preempts": services.analysis_create(snapshot=snapshot, pod=pending_pod("big", "3")),
        "fits": services.analysis_create(snapshot=snapshot, pod=pending_pod("small", "100m")),
        "workload": services.analysis_create_workload(snapshot=snapshot, objects=[rollout]),
        "timeline": services.analysis_create_workload(
            snapshot=snapshot, objects=[rollout], timeline=True
        ),
        "capacity": services.analysis_create_capacity(
            snapshot=snapshot, pod=pending_pod("room", "1500m"), limit=20
        ),
        "room": services.analysis_create_capacity(
            snapshot=snapshot, size=Size("1500m", "2Gi"), limit=10
        ),
    }
    done = {kind: services.analysis_run(analysis_id=a.pk) for kind, a in made.items()}
    for kind, a in done.items():
        assert a.is_done, (kind, a.error)
    return done


def test_no_page_logs_an_error_or_breaks_the_content_security_policy(
    live_server: Any, browser: Any, owner: Any
) -> None:
    snapshot = import_dump(owner, "ocp-aws", demote_workers(real_dump("ocp-aws")))
    done = _analyses(snapshot)
    first_in_line_run(
        ranking_id=first_in_line_request(
            snapshot=snapshot, cpu_millis=1000, memory_bytes=2 * 1024**3, limit=50
        ).pk
    )
    token = services.share_link_create(analysis=done["preempts"]).get_absolute_url()
    pod = Pod.objects.filter(snapshot=snapshot, owner__startswith="ReplicaSet/").first()
    assert pod is not None
    base = f"/snapshots/{snapshot.pk}"
    a, b = done["preempts"].pk, done["workload"].pk
    paths = [
        "/",
        "/snapshots/",
        "/snapshots/new/",
        "/analyses/",
        f"{base}/",
        f"{base}/nodes/",
        f"{base}/pods/",
        f"{base}/pdbs/",
        f"{base}/volumes/",
        f"{base}/volumes/attachments/",
        f"{base}/devices/",
        f"{base}/plan/",
        f"{base}/plan/first-in-line/?cpu=1&memory=2Gi&limit=50",
        f"{base}/scheduler/",
        f"{base}/room/",
        f"{base}/analyses/",
        f"{base}/analyses/new/",
        f"{base}/analyses/new/?mode=form&example=1",
        f"{base}/pods/{pod.pk}/what-if/",
        f"{base}/pods/{pod.pk}/scale-up/",
        *(x.get_absolute_url() for x in done.values()),
        f"{done['preempts'].get_absolute_url()}rejected/0/",
        "/analyses/compare/",
        f"/analyses/compare/?a={a}&b={b}",
        token,
    ]
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    violations: list[str] = []
    page.on(
        "console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None
    )
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    page.expose_function("reportViolation", lambda v: violations.append(f"{page.url}: {v}"))
    page.add_init_script(REPORT_VIOLATIONS)
    try:
        browser_login(page, live_server, "owner")
        for path in paths:
            response = page.goto(f"{live_server.url}{path}")
            assert response is not None and response.status == 200, path
            page.wait_for_load_state("networkidle")

        # The pods page's swaps: typed and chosen filters, the next page, a node's pods,
        # back and forward through the history htmx keeps.
        page.goto(f"{live_server.url}{base}/pods/")
        # What a browser extension leaves on the inputs it marks (a password manager's
        # icon, say): an inline style emptied again.
        page.evaluate(EMPTIED_STYLES)
        # Filled at once: typing that pauses longer than the box's 400 ms while an answer
        # is on its way makes htmx cancel that answer (hx-sync replace), which it logs.
        page.fill("#f-q", "etcd")
        page.wait_for_selector("#pods-clear")
        page.select_option("#f-namespace", index=1)
        page.wait_for_load_state("networkidle")
        page.click("#pods-clear")
        page.wait_for_load_state("networkidle")
        page.click(".pagination a:has-text('Next')")
        page.wait_for_url("**page=2**")
        page.locator("td.node a").first.click()
        page.wait_for_url("**node=**")
        page.go_back()
        page.go_back()
        page.go_forward()
        page.wait_for_load_state("networkidle")

        # The plan's first in line loaded into its section; a share link made and revoked.
        page.goto(f"{live_server.url}{base}/plan/")
        page.click("#first-in-line-form button[type=submit]")
        page.wait_for_selector("#first-in-line-table")
        page.goto(f"{live_server.url}{done['preempts'].get_absolute_url()}")
        page.click("#create-share-link")
        page.locator("button.revoke").first.click()
        page.wait_for_load_state("networkidle")
        # The what-if form's tabs and its "How many fit?" line.
        page.goto(f"{live_server.url}{base}/analyses/new/")
        page.click("label[for=mode-form]")
        page.click("label[for=mode-manifest]")
        line = page.locator(".capacity-action").bounding_box()
        limit = page.locator("#capacity-limit").bounding_box()
        page.wait_for_load_state("networkidle")
    finally:
        context.close()
    assert violations == [], "\n".join(violations)
    assert errors == [], "\n".join(errors)
    # Styled by the stylesheet, the replica count box is a few digits wide and its
    # sentence one line.
    assert line is not None and limit is not None
    assert limit["width"] < 120 and line["height"] < 2.5 * limit["height"], (line, limit)
