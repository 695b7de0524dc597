"""The answer that ends a page's polling carries the owner's controls of a finished
analysis (swapped out of band), so the page followed live ends as a reload shows it;
a shared page has no such controls and gets none."""

from __future__ import annotations

from typing import Any

from scheduling import services

POLL = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "analysis-body"}


def _done(snapshot: Any, pod: Any) -> Any:
    analysis = services.analysis_create(snapshot=snapshot, pod=pod)
    return services.analysis_run(analysis_id=analysis.pk)


def test_the_poll_that_finishes_brings_the_files_and_compare(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any, no_broker: Any
) -> None:
    other = _done(demo_snapshot, cat3_pod)
    analysis = _done(demo_snapshot, cat3_pod)
    for attempt in range(2):  # rendered, then from the rendered-body cache
        r = owner_client.get(f"/analyses/{analysis.pk}/", **POLL)
        assert r.status_code == 286, attempt
        html = r.content.decode()
        assert '<section id="actions" class="card" hx-swap-oob="true">' in html
        assert f'href="/analyses/{analysis.pk}/export.json"' in html
        assert f'href="/analyses/{analysis.pk}/export.md"' in html
        assert f'<option value="{other.pk}">' in html
    # The whole page holds the same card, in place.
    page = owner_client.get(f"/analyses/{analysis.pk}/").content.decode()
    assert '<section id="actions" class="card">' in page


def test_a_poll_still_running_or_failed_brings_no_files(
    owner_client: Any, demo_snapshot: Any, cat3_pod: Any, no_broker: Any
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    r = owner_client.get(f"/analyses/{analysis.pk}/", **POLL)
    assert r.status_code == 200
    assert 'id="actions"' not in r.content.decode()
    services.analysis_fail(analysis_id=analysis.pk, error="The worker ran out of memory.")
    r = owner_client.get(f"/analyses/{analysis.pk}/", **POLL)
    assert r.status_code == 286
    html = r.content.decode()
    # Failed: the card comes back as a reload shows it, without the files.
    assert 'hx-swap-oob="true"' in html
    assert "export.json" not in html


def test_a_shared_page_gets_no_owner_controls(
    client: Any, demo_snapshot: Any, cat3_pod: Any, no_broker: Any
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    link = services.share_link_create(analysis=analysis)
    r = client.get(f"/s/{link.token}/", **POLL)
    assert r.status_code == 286
    html = r.content.decode()
    assert 'id="actions"' not in html and "export.json" not in html
