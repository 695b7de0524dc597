"""The new-analysis tabs in chromium, with and without JavaScript: switching tabs keeps
the pasted manifest, and a short-form error keeps it too."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import browser_login

pytestmark = pytest.mark.browser

PASTED = "apiVersion: v1\nkind: Pod\nmetadata: {name: mine}\n"


@pytest.mark.parametrize("javascript", [True, False])
def test_switching_tabs_keeps_the_pasted_manifest(
    live_server: Any, browser: Any, demo_snapshot: Any, javascript: bool
) -> None:
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    try:
        browser_login(page, live_server, "owner")
        page.goto(f"{live_server.url}/snapshots/{demo_snapshot.pk}/analyses/new/")
        assert page.is_visible("#id_manifest") and not page.is_visible("#id_cpu")
        page.fill("#id_manifest", PASTED)

        page.click("label[for=mode-form]")
        assert page.is_visible("#id_cpu") and not page.is_visible("#id_manifest")
        page.fill("#id_name", "w")
        page.fill("#id_cpu", "lots")
        page.click("#whatif-form button[type=submit]")
        page.wait_for_selector("#id_cpu-errors")
        assert page.is_visible("#id_cpu")  # the short form's tab stays chosen

        page.click("label[for=mode-manifest]")
        assert page.input_value("#id_manifest") == PASTED
    finally:
        context.close()
