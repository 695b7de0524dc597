"""The Volumes and Devices tabs in chromium at 1366 x 900 on a real cluster's dump (ocp-aws,
42-character node names) given every storage and DRA kind: nothing scrolls sideways, the
node names wrap after their dots, the filters swap the tables, and not one console error
or Content-Security-Policy violation."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import browser_login
from tests.realworld import import_dump
from tests.storage_dra_dump import storage_dra_dump
from tests.test_console_clean_browser import REPORT_VIOLATIONS
from tests.test_real_clusters_browser import HEIGHT, SCROLLED_BOXES, WIDTH

pytestmark = pytest.mark.browser

# Of each table cell holding a node name: on how many lines its parts sit (0: the name
# has no break points, it cannot wrap).
NAME_LINES = """(selector) => [...document.querySelectorAll(selector)].map(td => {
  const tops = new Set([...td.querySelectorAll("span.nw")].map(s => Math.round(s.getBoundingClientRect().top)));
  return [td.innerText.trim(), tops.size];
})"""


def test_volumes_and_devices_read_at_1366_pixels(
    live_server: Any, browser: Any, owner: Any
) -> None:
    snapshot = import_dump(owner, "ocp-aws volumes", storage_dra_dump())
    base = f"/snapshots/{snapshot.pk}"
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
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
    too_wide: list[tuple[str, Any]] = []

    def check_width(where: str) -> None:
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > WIDTH:
            too_wide.append((where, width))
        for box, inner, outer in page.evaluate(SCROLLED_BOXES):
            too_wide.append((f"{where} {box}", f"{inner} in {outer}"))

    try:
        browser_login(page, live_server, "owner")
        for path in ("/volumes/", "/volumes/attachments/", "/devices/", "/"):
            response = page.goto(f"{live_server.url}{base}{path}")
            assert response is not None and response.status == 200, path
            page.wait_for_load_state("networkidle")
            check_width(path)

        # The tabs lead there, with their counts.
        page.click("#volumes-tab")
        page.wait_for_url(f"**{base}/volumes/")
        assert page.inner_text("#volumes-tab") == "Volumes (7)"
        assert page.locator("#claims tbody tr").count() == 7
        # A claim's pod and node: the 42-character node name wraps after its dots.
        lines = page.evaluate(NAME_LINES, "#claims td:last-child")
        assert any(text.startswith("kafka-0") and n > 1 for text, n in lines), lines

        # The filter swaps the table (htmx) and the address says so.
        page.fill("#claim-q", "kafka-6")
        page.wait_for_url("**q=kafka-6**")
        page.wait_for_load_state("networkidle")
        assert page.locator("#claims tbody tr").count() == 1
        assert "not bound yet" in page.inner_text("#claims")
        check_width("/volumes/?q=kafka-6")

        page.click("text=Attach limits per node")
        page.wait_for_url(f"**{base}/volumes/attachments/")
        assert page.locator("#attachments tbody tr").count() == 3
        # Room enough here for a whole name on one line; it is still a name that can wrap.
        lines = page.evaluate(NAME_LINES, "#attachments td:first-child")
        assert len(lines) == 3 and all(n >= 1 for _, n in lines), lines

        page.click("#devices-tab")
        page.wait_for_url(f"**{base}/devices/")
        assert page.locator("#devices tbody tr").count() == 24
        lines = page.evaluate(NAME_LINES, "#devices td:first-child")
        assert len(lines) == 24 and all(n >= 1 for _, n in lines), lines
        page.select_option("#device-held", "held")
        page.wait_for_url("**held=held**")
        page.wait_for_load_state("networkidle")
        assert page.locator("#devices tbody tr").count() == 2
        assert "llm-infer-7d9f8c6b5-x2x9q" in page.inner_text("#devices").replace("\n", "")
        check_width("/devices/?held=held")
        page.go_back()
        page.wait_for_load_state("networkidle")
        assert page.locator("#devices tbody tr").count() == 24

        assert too_wide == [], "\n".join(f"{p}: {w}px" for p, w in too_wide)
        assert errors == [], "\n".join(errors)
        assert violations == [], "\n".join(violations)
    finally:
        context.close()
