"""Explain that cannot run says why on the preemption's own row, where its button was:
in place in the browser (htmx), on the row the page scrolls to without JavaScript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from connected.history.models import ObservedPreemption
from connected.history.services import digest_snapshot
from tests.clusters.builders import small_cluster
from tests.conftest import browser_login
from tests.connected.history_builders import TUESDAY, cluster_snapshot, preempted_event

REFUSAL = "No snapshot of the cluster was taken before this preemption."


def _only_after(cluster: Any) -> ObservedPreemption:
    """A preemption recorded by the cluster's first snapshot: none was taken before it."""
    after = cluster_snapshot(cluster, small_cluster(), TUESDAY, events=[preempted_event()])
    digest_snapshot(after)
    return ObservedPreemption.objects.get(cluster=cluster)


@pytest.mark.django_db
def test_without_javascript_the_refusal_is_on_the_row_the_page_scrolls_to(
    cluster: Any, owner_client: Any, no_first_in_line: Any
) -> None:
    row = _only_after(cluster)
    answer = owner_client.post(f"/clusters/{cluster.pk}/preemptions/{row.pk}/explain/")
    assert answer.status_code == 302
    assert answer["Location"].endswith(f"/clusters/{cluster.pk}/#preemption-{row.pk}")
    page = owner_client.get(answer["Location"]).content.decode()
    cell = page.split(f'id="preemption-{row.pk}"', 1)[1].split("</tr>", 1)[0]
    assert REFUSAL in cell
    assert "Explain</button>" not in cell
    # Said once: the next view offers the button again.
    again = owner_client.get(f"/clusters/{cluster.pk}/").content.decode()
    assert REFUSAL not in again


@pytest.mark.django_db
def test_with_htmx_the_refusal_replaces_the_button(
    cluster: Any, owner_client: Any, no_first_in_line: Any
) -> None:
    row = _only_after(cluster)
    answer = owner_client.post(
        f"/clusters/{cluster.pk}/preemptions/{row.pk}/explain/", HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 200
    assert REFUSAL in answer.content.decode()
    assert 'role="alert"' in answer.content.decode()


@pytest.mark.browser
def test_in_the_browser_the_refusal_is_shown_where_the_button_was(
    live_server: Any, browser: Any, owner: Any, cluster: Any, no_first_in_line: Any
) -> None:
    row = _only_after(cluster)
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        browser_login(page, live_server, "owner")
        page.goto(f"{live_server.url}/clusters/{cluster.pk}/#preemptions")
        button = page.locator(f"#preemption-{row.pk} button:has-text('Explain')")
        button.scroll_into_view_if_needed()
        before = button.bounding_box()
        button.click()
        said = page.locator(f"#explain-refused-{row.pk}")
        said.wait_for()
        assert REFUSAL in said.inner_text()
        assert page.locator(f"#preemption-{row.pk} button").count() == 0
        # Where the button was: in its cell, on screen, the page not moved elsewhere.
        assert page.url.endswith(f"/clusters/{cluster.pk}/#preemptions")
        box = said.bounding_box()
        assert box is not None and before is not None
        assert abs(box["y"] - before["y"]) < 60
        assert 0 <= box["y"] < 900
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 1366
        Path("var/screens").mkdir(parents=True, exist_ok=True)
        page.locator("#preemptions").screenshot(path="var/screens/explain-refused.png")
        assert errors == []
    finally:
        context.close()
