"""The pods page in chromium: the filter controls always equal the URL and the table,
whether the page changed by the form, a node link or Back; and without JavaScript."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.clusters.test_pods_page import many  # noqa: F401 - the fixture
from tests.conftest import browser_login

pytestmark = pytest.mark.browser


def _query(page: Any) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


def _controls(page: Any) -> dict[str, str]:
    return {
        "q": page.input_value("#f-q"),
        "namespace": page.input_value("#f-namespace"),
        "node": page.input_value("#f-node"),
        "sort": page.input_value("#f-sort"),
    }


def _assert_in_sync(page: Any) -> None:
    """The controls show exactly what the URL asks for, and the table shows that."""
    query = _query(page)
    controls = _controls(page)
    assert {k: v for k, v in controls.items() if v} == {
        k: v for k, v in query.items() if k in controls
    }
    nodes = page.locator("#pods tbody td:nth-child(6)").all_inner_texts()
    if query.get("node"):
        assert nodes and all(n == query["node"] for n in nodes)
    namespaces = [
        n.split("/")[0] for n in page.locator("#pods tbody td:first-child").all_inner_texts()
    ]
    if query.get("namespace"):
        assert all(ns == query["namespace"] for ns in namespaces)
    assert page.locator("#pods-clear").count() == (1 if query else 0)


def _jump_to_page_3_sorted_by_start(page: Any, live_server: Any, snapshot: Any) -> None:
    page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/pods/?sort=start")
    page.fill("#jump-page", "3")
    page.click("form.jump button")
    page.wait_for_url("**page=3**")
    assert _query(page) == {"sort": "start", "page": "3"}
    assert page.input_value("#f-sort") == "start"
    assert "Page 3 of 3" in page.inner_text(".pagination")


def test_controls_follow_the_url_through_links_and_back(
    live_server: Any,
    page: Any,
    many: Any,  # noqa: F811
) -> None:
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/snapshots/{many.pk}/pods/")
    _assert_in_sync(page)

    page.select_option("#f-namespace", "shop")
    page.wait_for_url("**namespace=shop")
    _assert_in_sync(page)

    page.select_option("#f-sort", "-priority")
    page.wait_for_url("**sort=-priority")
    _assert_in_sync(page)

    page.locator("#pods tbody td:nth-child(6) a", has_text="node-2").first.click()
    page.wait_for_url("**node=node-2**")
    assert _query(page) == {"namespace": "shop", "node": "node-2", "sort": "-priority"}
    _assert_in_sync(page)

    page.fill("#f-q", "app-0")
    page.wait_for_url("**q=app-0**")
    _assert_in_sync(page)
    assert all("app-0" in n for n in page.locator("#pods tbody strong").all_inner_texts())

    page.go_back()
    page.wait_for_function("() => !location.search.includes('q=')")
    _assert_in_sync(page)
    assert page.input_value("#f-q") == ""

    page.go_back()
    page.wait_for_function("() => !location.search.includes('node=')")
    _assert_in_sync(page)
    assert page.input_value("#f-node") == ""

    page.click("#pods-clear")
    page.wait_for_function("() => location.search === ''")
    _assert_in_sync(page)

    _jump_to_page_3_sorted_by_start(page, live_server, many)


def test_without_javascript_the_form_links_and_clear_work(
    live_server: Any,
    browser: Any,
    many: Any,  # noqa: F811
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        browser_login(page, live_server, "owner")
        _jump_to_page_3_sorted_by_start(page, live_server, many)
        page.select_option("#f-namespace", "ops")
        page.fill("#f-node", "node-1")
        page.click("#pods-filter button[type=submit]")
        page.wait_for_url("**node=node-1**")
        _assert_in_sync(page)
        assert page.input_value("#f-sort") == "start"
        page.click("#pods-clear")
        page.wait_for_url(f"{live_server.url}/snapshots/{many.pk}/pods/")
        _assert_in_sync(page)
    finally:
        context.close()
