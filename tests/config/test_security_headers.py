"""Headers and answers a hostile page, a crawler or a careless proxy setup rely on: the
Content-Security-Policy, the share pages' headers, retry only by POST, JSON errors on
every API path with a reference instead of exception text, proxy headers trusted only
when configured."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from django.test import Client

from clusters.demo import demo_cat3_pod
from clusters.services import snapshot_load_demo
from config import views as config_views
from operations.middleware import CONTENT_SECURITY_POLICY
from scheduling import services
from scheduling.models import Analysis
from tests.config.served import ROOT

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_snapshot(owner: Any) -> Any:
    return snapshot_load_demo(owner=owner)


def test_every_page_carries_a_policy_that_allows_no_inline_script(
    owner_client: Any, demo_snapshot: Any
) -> None:
    for path in ("/", "/snapshots/", f"/snapshots/{demo_snapshot.pk}/", "/api/docs/"):
        r = owner_client.get(path)
        assert r.status_code == 200, path
        policy = r["Content-Security-Policy"]
        assert policy == CONTENT_SECURITY_POLICY
        assert "script-src 'self'" in policy and "unsafe" not in policy
        body = r.content.decode()
        # No inline script or style would run under it: every script has a src.
        assert "<script>" not in body and "style=" not in body, path


def test_the_share_page_and_its_subpages_are_private_to_the_link(
    client: Any, demo_snapshot: Any
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod())
    services.analysis_run(analysis_id=analysis.pk)
    link = services.share_link_create(analysis=analysis)
    base = link.get_absolute_url()
    for path in (base, f"{base}rejected/0/"):
        r = client.get(path)
        assert r.status_code in (200, 404), path
        assert r["Referrer-Policy"] == "no-referrer", path
        assert r["X-Robots-Tag"] == "noindex, nofollow", path
        assert r["Cache-Control"] == "no-store", path


def test_retry_changes_state_only_by_post(owner_client: Any, demo_snapshot: Any) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod())
    services.analysis_fail(analysis_id=analysis.pk, error="stopped")
    url = f"/analyses/{analysis.pk}/retry/"
    assert owner_client.get(url).status_code == 405
    assert Analysis.objects.get(pk=analysis.pk).status == "failed"
    assert owner_client.post(url).status_code == 302
    assert Analysis.objects.get(pk=analysis.pk).status != "failed"


def test_a_defect_under_the_api_answers_json_with_a_reference(
    owner: Any, monkeypatch: Any, caplog: Any
) -> None:
    from clusters import selectors

    def broken(**kwargs: Any) -> Any:
        raise ValueError("internal detail of clusters_snapshot")

    monkeypatch.setattr(selectors, "snapshot_list", broken)
    monkeypatch.setattr(config_views, "snapshot_list", broken)
    c = Client(raise_request_exception=False)
    c.force_login(owner)
    r = c.get("/api/snapshots/")
    assert r.status_code == 500
    body = r.json()
    assert set(body) == {"detail", "reference"} and "internal detail" not in r.content.decode()
    assert any(body["reference"] in rec.getMessage() and rec.exc_info for rec in caplog.records)
    # A page shows the same reference on the product's 500 page.
    page = c.get("/", HTTP_ACCEPT="text/html")
    assert page.status_code == 500 and 'id="incident-reference"' in page.content.decode()


def test_a_body_django_refuses_under_the_api_answers_json(owner: Any, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    c = Client()
    c.force_login(owner)
    fields = {f"f{i}": "x" for i in range(50)}
    r = c.post("/api/snapshots/", fields)
    assert r.status_code == 400
    assert r["Content-Type"] == "application/json" and "detail" in r.json()


@pytest.mark.parametrize(("behind_proxy", "expected"), [("", "None"), ("true", "https")])
def test_forwarded_proto_is_trusted_only_behind_a_configured_proxy(
    tmp_path: Any, behind_proxy: str, expected: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "TEST_DB_NAME")}
    env |= {
        "DEBUG": "0",
        "SECRET_KEY": "x" * 60,
        "PREEMPTLAB_VAR_DIR": str(tmp_path),
        "PREEMPTLAB_BEHIND_PROXY": behind_proxy or "false",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "h = settings.SECURE_PROXY_SSL_HEADER; print(h[1] if h else None)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected
