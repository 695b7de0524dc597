"""A share link opens one analysis, read-only, without login, until it is revoked."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling import services
from scheduling.models import Analysis

pytestmark = pytest.mark.django_db


def _done(snapshot: Any, pod: dict[str, Any], name: str = "orange-0") -> Analysis:
    pod = {**pod, "metadata": {**pod["metadata"], "name": name}}
    a = services.analysis_create(snapshot=snapshot, pod=pod)
    return services.analysis_run(analysis_id=a.pk)


def test_it_shows_the_analysis_without_login(
    client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    link = services.share_link_create(analysis=analysis)
    r = client.get(f"/s/{link.token}/")
    assert r.status_code == 200
    html = r.content.decode()
    assert f"Preempts 1 pod on {analysis.result['node']}." in html
    assert r["X-Robots-Tag"] == "noindex, nofollow"


def test_it_links_to_nothing_of_the_snapshot(
    client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    link = services.share_link_create(analysis=analysis)
    html = client.get(f"/s/{link.token}/").content.decode()
    assert f"/snapshots/{demo_snapshot.pk}/" not in html
    assert f"/analyses/{analysis.pk}/" not in html
    assert demo_snapshot.name not in html
    assert "Create a share link" not in html and "Revoke" not in html


def test_a_revoked_link_answers_404(client: Any, demo_snapshot: Any, cat3_pod: Any) -> None:
    analysis = _done(demo_snapshot, cat3_pod)
    link = services.share_link_create(analysis=analysis)
    services.share_link_revoke(share_link=link)
    assert client.get(f"/s/{link.token}/").status_code == 404
    assert client.get(f"/s/{link.token}/rejected/0/").status_code == 404


def test_an_unknown_token_answers_404(client: Any, db: Any) -> None:
    assert client.get("/s/not-a-token/").status_code == 404


def test_a_token_shows_only_its_own_analysis(
    client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    shared = _done(demo_snapshot, cat3_pod, name="shared-pod")
    private = _done(demo_snapshot, cat3_pod, name="private-pod")
    link = services.share_link_create(analysis=shared)
    html = client.get(f"/s/{link.token}/").content.decode()
    assert "default/shared-pod" in html
    assert "private-pod" not in html
    # Paging inside the shared page stays on the token.
    r = client.get(f"/s/{link.token}/?cpage=1", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="candidates")
    assert r.status_code == 200 and "private-pod" not in r.content.decode()
    assert private.pk != shared.pk


def test_a_shared_page_of_an_unfinished_analysis_polls_on_the_token(
    client: Any, demo_snapshot: Any, cat3_pod: Any
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    link = services.share_link_create(analysis=analysis)
    html = client.get(f"/s/{link.token}/").content.decode()
    assert f'hx-get="/s/{link.token}/"' in html
    services.analysis_run(analysis_id=analysis.pk)
    r = client.get(f"/s/{link.token}/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="analysis-body")
    assert r.status_code == 286
