"""/api/docs/ renders in a browser that can reach nothing but the app."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import browser_login


def _offline(page: Any, live_server: Any) -> list[str]:
    """Refuses every request that does not go to the app; returns what was refused."""
    refused: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith(live_server.url):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return refused


@pytest.mark.browser
def test_swagger_ui_renders_offline(live_server: Any, page: Any, owner: Any) -> None:
    refused = _offline(page, live_server)
    # Under the pages' Content-Security-Policy, with no error (the package's inline
    # <style> once logged one).
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    browser_login(page, live_server, "owner")
    page.click("text=API")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "preemptlab API" in page.inner_text(".swagger-ui .info .title")
    page.wait_for_selector("text=/api/snapshots/")
    assert refused == []
    assert errors == []


@pytest.mark.browser
def test_logged_out_the_docs_link_leads_to_the_login_page_and_back(
    live_server: Any, page: Any, owner: Any
) -> None:
    from tests.conftest import PASSWORD

    page.goto(f"{live_server.url}/api/docs/")
    page.fill("#id_username", "owner")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector(".swagger-ui .info .title")
    assert page.url == f"{live_server.url}/api/docs/"
