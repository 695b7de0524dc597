import pytest

from tests.conftest import browser_login


@pytest.mark.browser
def test_it_logs_in_through_the_real_page(live_server, page, owner):
    browser_login(page, live_server, "owner")
    assert page.locator("h1").inner_text().startswith("What would kube-scheduler do")
    # htmx came from our own static files and is alive in the page.
    assert page.evaluate("typeof htmx !== 'undefined' && htmx.version") == "2.0.10"
