"""Small things a new user trips over: one breadcrumb style, times with their zone, the
clone form asking for another class, the shared page's words, one-line cells."""

from __future__ import annotations

import re
from typing import Any

import pytest

from clusters.demo import demo_cat3_pod
from scheduling import services
from tests.conftest import browser_login
from tests.scheduling import test_conformance_api


@pytest.mark.django_db
def test_every_page_has_the_same_breadcrumbs(owner_client: Any, demo_snapshot: Any) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod())
    services.analysis_run(analysis_id=analysis.pk)
    row = demo_snapshot.pods.order_by("name").first()
    s = f"/snapshots/{demo_snapshot.pk}"
    for url in (
        f"{s}/",
        f"{s}/nodes/",
        f"{s}/pods/",
        f"{s}/pdbs/",
        f"{s}/analyses/",
        f"{s}/analyses/new/",
        f"{s}/pods/{row.pk}/what-if/",
        f"/analyses/{analysis.pk}/",
    ):
        body = owner_client.get(url).content.decode()
        crumbs = re.findall(r'<nav class="crumbs" aria-label="breadcrumb">(.*?)</nav>', body, re.S)
        assert len(crumbs) == 1, url
        assert crumbs[0].startswith('<a href="/snapshots/">Snapshots</a>'), url
        assert "\u203a" not in crumbs[0], url  # the other style's separator


@pytest.mark.django_db
def test_the_clone_form_asks_for_another_class(owner_client: Any, demo_snapshot: Any) -> None:
    row = demo_snapshot.pods.filter(priority_class="cat-1").order_by("name").first()
    body = owner_client.get(
        f"/snapshots/{demo_snapshot.pk}/pods/{row.pk}/what-if/"
    ).content.decode()
    select = body.split('name="priority_class"')[1].split("</select>")[0]
    assert "selected" not in select.replace('<option value="" selected>', "")
    assert "cat-1 (10000, global default) · its class now" in select
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/pods/{row.pk}/what-if/", {"priority_class": ""}
    )
    assert "Choose the class to try the pod with." in r.content.decode()


@pytest.mark.django_db
def test_the_shared_page_says_uploaded_with_a_time_zone(client: Any, demo_snapshot: Any) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod())
    link = services.share_link_create(analysis=analysis)
    body = client.get(link.get_absolute_url()).content.decode()
    assert "taken" not in body
    assert re.search(r"a cluster uploaded \d{4}-\d\d-\d\d \d\d:\d\d UTC", body)


def test_the_conformance_scenarios_fall_back_to_shared_beside_the_repository() -> None:
    root = test_conformance_api.ROOT
    assert [
        root / "tests" / "conformance" / "vectors",
        root.parent / "shared" / "conformance" / "vectors",
    ] == test_conformance_api.VECTOR_DIRS


@pytest.mark.browser
def test_names_and_counts_stay_on_one_line(live_server: Any, page: Any, demo_snapshot: Any) -> None:
    page.set_viewport_size({"width": 900, "height": 800})
    browser_login(page, live_server, "owner")
    lines = """(cell) => {
        const range = document.createRange(); range.selectNodeContents(cell);
        return new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top))).size;
    }"""
    page.goto(f"{live_server.url}/snapshots/{demo_snapshot.pk}/nodes/")
    for cell in page.locator("#nodes tbody td:nth-child(4)").all():  # "5 / 110"
        assert cell.evaluate(lines) == 1, cell.inner_text()
    page.goto(f"{live_server.url}/snapshots/{demo_snapshot.pk}/pods/")
    for cell in page.locator("#pods tbody td:nth-child(6)").all():  # "node-1"
        assert cell.evaluate(lines) == 1, cell.inner_text()


@pytest.mark.django_db
def test_a_revoked_share_link_is_the_product_404(
    client: Any, demo_snapshot: Any, settings: Any
) -> None:
    settings.DEBUG = False
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod())
    link = services.share_link_create(analysis=analysis)
    services.share_link_revoke(share_link=link)
    response = client.get(link.get_absolute_url())
    assert response.status_code == 404
    body = response.content.decode()
    assert "a share link its owner revoked" in body and "ask its owner for a new one" in body
    assert "URLconf" not in body and "/admin/" not in body
