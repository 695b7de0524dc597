"""Polling a finished analysis: built once, then served from memory with an ETag; the
compact view and the paginated rejected nodes keep each answer small."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from rest_framework.test import APIClient

from scheduling import services
from scheduling.analyses import rendered_cache
from scheduling.api.serializers import AnalysisDetailSerializer
from scheduling.models import Analysis

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_rendered_cache() -> Any:
    rendered_cache.rendered_clear()
    yield
    rendered_cache.rendered_clear()


@pytest.fixture
def done(demo_snapshot: Any, cat3_pod: dict[str, Any]) -> Analysis:
    a = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    return services.analysis_run(analysis_id=a.pk)


def test_the_full_view_keeps_the_contract_and_is_built_once(api: APIClient, done: Analysis) -> None:
    first = api.get(f"/api/analyses/{done.pk}/")
    assert first.status_code == 200
    assert first.json()["result"] == done.result  # the DESIGN.md contract, unchanged
    assert first["ETag"]
    with mock.patch.object(AnalysisDetailSerializer, "to_representation") as build:
        again = api.get(f"/api/analyses/{done.pk}/")
    assert build.call_count == 0  # served from memory
    assert again.content == first.content and again["ETag"] == first["ETag"]


def test_if_none_match_answers_304_without_a_body(api: APIClient, done: Analysis) -> None:
    etag = api.get(f"/api/analyses/{done.pk}/")["ETag"]
    r = api.get(f"/api/analyses/{done.pk}/", HTTP_IF_NONE_MATCH=etag)
    assert r.status_code == 304 and r.content == b""
    other = api.get(f"/api/analyses/{done.pk}/?view=compact", HTTP_IF_NONE_MATCH=etag)
    assert other.status_code == 200  # another representation, another ETag


def test_a_retried_analysis_gets_a_new_etag(api: APIClient, done: Analysis) -> None:
    etag = api.get(f"/api/analyses/{done.pk}/")["ETag"]
    services.analysis_fail(analysis_id=done.pk, error="x")
    Analysis.objects.filter(pk=done.pk).update(status="failed", error="lost")
    assert api.get(f"/api/analyses/{done.pk}/")["ETag"] != etag


def test_the_compact_view_leaves_out_the_rejected_nodes_and_pages_them(
    api: APIClient, done: Analysis
) -> None:
    full = api.get(f"/api/analyses/{done.pk}/").json()
    compact = api.get(f"/api/analyses/{done.pk}/?view=compact").json()
    assert "explanation" not in compact and "rejected_nodes" not in compact["result"]
    assert compact["result"] == {k: v for k, v in full["result"].items() if k != "rejected_nodes"}
    assert compact["rejected_nodes_count"] == len(full["result"]["rejected_nodes"]) > 0
    listed = api.get(compact["rejected_nodes_url"]).json()
    assert listed["count"] == compact["rejected_nodes_count"]
    assert listed["results"] == full["result"]["rejected_nodes"][:50]


def test_a_stranger_gets_a_404_even_from_the_cache(
    api: APIClient, done: Analysis, stranger: Any
) -> None:
    api.get(f"/api/analyses/{done.pk}/")
    c = APIClient()
    c.force_authenticate(stranger)
    assert c.get(f"/api/analyses/{done.pk}/").status_code == 404
    assert c.get(f"/api/analyses/{done.pk}/rejected-nodes/").status_code == 404


def test_the_result_page_body_is_rendered_once_and_the_page_around_it_per_viewer(
    owner_client: Any, done: Analysis
) -> None:
    from scheduling.views import results as views

    shared_link = services.share_link_create(analysis=done)
    first = owner_client.get(f"/analyses/{done.pk}/").content.decode()
    owner_client.get(f"/s/{shared_link.token}/")
    with mock.patch.object(views, "_result_context") as build:
        again = owner_client.get(f"/analyses/{done.pk}/").content.decode()
        shared = owner_client.get(f"/s/{shared_link.token}/").content.decode()
    assert build.call_count == 0  # both bodies came from memory
    assert 'id="outcome"' in again and again.count('id="outcome"') == first.count('id="outcome"')
    assert "csrfmiddlewaretoken" in again  # the page around it is the viewer's own
    assert 'id="share"' in again
    assert "Run it again" not in shared
