"""The database or the broker down: every page and API call answers 503 with what to do,
never a 500, and a refused POST stores nothing.

The database is really unreachable here: the connection is pointed at a port
where nothing listens, as when PostgreSQL is stopped (the drills, `make drills`,
stop a real server for 20 s).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from kombu import pools as kombu_pools
from rest_framework.authtoken.models import Token

from clusters import services as cluster_services
from clusters.models import Snapshot
from config.celery import app as celery_app
from scheduling.models import Analysis, ShareLink
from tests.clusters.builders import dump, small_cluster


@pytest.fixture
def database_down(transactional_db: Any) -> Iterator[None]:
    if connection.vendor != "postgresql":
        pytest.skip("the embedded SQLite file cannot be taken away; the PostgreSQL pass runs this")

    def down() -> None:
        connection.close()
        connection.settings_dict["PORT"] = 1  # nothing listens there

    saved = dict(connection.settings_dict)
    yield down  # type: ignore[misc]
    connection.close()
    connection.settings_dict.update(saved)


def _reconnect_broker() -> None:
    """Drop the app's broker connections so the next send opens new ones on the current
    broker_url. force_close_all() alone leaves a closed pool that refuses every later
    send ("Acquire on closed pool"), which broke the worker tests that run after these."""
    # kombu keeps the pools per connection URL in a registry of its own: reset it too.
    kombu_pools.reset()
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def broker_down() -> Iterator[None]:
    previous = celery_app.conf.broker_url
    celery_app.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    _reconnect_broker()
    try:
        yield
    finally:
        celery_app.conf.broker_url = previous
        _reconnect_broker()


@pytest.fixture
def cast(owner: Any) -> dict[str, Any]:
    snapshot = cluster_services.snapshot_create(
        owner=owner,
        name="small",
        files=[cluster_services.UploadedFile(name="small.json", data=dump(small_cluster()))],
    )
    analysis = Analysis.objects.create(snapshot=snapshot, pod={}, pod_key="default/p")
    link = ShareLink.objects.create(analysis=analysis)
    return {
        "snapshot": snapshot,
        "analysis": analysis,
        "link": link,
        "token": Token.objects.create(user=owner).key,
    }


def test_pages_api_and_share_links_answer_503_while_the_database_is_down(
    database_down: Any, cast: dict[str, Any], owner: Any
) -> None:
    browser = Client(raise_request_exception=False)
    browser.force_login(owner)
    api = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {cast['token']}")
    anonymous = Client(raise_request_exception=False)
    database_down()

    for url in (
        "/",
        "/snapshots/",
        f"/snapshots/{cast['snapshot'].pk}/nodes/",
        f"/analyses/{cast['analysis'].pk}/",
    ):
        r = browser.get(url)
        assert r.status_code == 503, url
        assert "The database is unavailable; retry shortly." in r.content.decode(), url
        assert r["Retry-After"]
    for url in ("/api/snapshots/", f"/api/analyses/{cast['analysis'].pk}/"):
        r = api.get(url)
        assert r.status_code == 503, url
        assert r.json() == {"detail": "The database is unavailable; retry shortly."}
    r = anonymous.get(f"/s/{cast['link'].token}/")
    assert r.status_code == 503
    r = browser.post("/snapshots/new/", {"paste": "kind: Node\nmetadata: {name: n}\n"})
    assert r.status_code == 503


def test_with_the_database_unreachable_liveness_answers_200_and_readiness_503(
    database_down: Any,
) -> None:
    """The web pod is alive (a restart would mend nothing) and not ready (it cannot
    answer a page): /healthz 200, /readyz 503 naming the database, without its exception."""
    database_down()
    assert Client().get("/healthz").status_code == 200
    r = Client().get("/readyz")
    assert r.status_code == 503
    body = r.json()
    assert body["down"] == ["database"]
    assert body["database"] == {"ok": False, "detail": "unreachable", "decides": True}
    assert "OperationalError" not in r.content.decode() and "port" not in r.content.decode()
    verbose = Client().get("/readyz?verbose")
    assert verbose.status_code == 503
    assert verbose.json()["database"]["ok"] is False and "broker" in verbose.json()


@pytest.mark.django_db(transaction=True)
def test_an_analysis_posted_while_the_broker_is_down_answers_503_and_stores_nothing(
    broker_down: Any, cast: dict[str, Any]
) -> None:
    from clusters.demo import demo_cat3_pod

    api = Client(HTTP_AUTHORIZATION=f"Token {cast['token']}")
    before = Analysis.objects.count()
    pod = demo_cat3_pod()
    pod["spec"].pop("priorityClassName", None)
    r = api.post(
        f"/api/snapshots/{cast['snapshot'].pk}/analyses/",
        {"pod": pod},
        content_type="application/json",
    )
    assert r.status_code == 503, r.content
    assert "task queue" in r.json()["detail"] and "nothing was stored" in r.json()["detail"]
    assert Analysis.objects.count() == before


@pytest.mark.django_db(transaction=True)
def test_a_large_upload_while_the_broker_is_down_answers_503_and_stores_nothing(
    broker_down: Any, owner: Any, settings: Any
) -> None:
    settings.SNAPSHOT_ASYNC_INGEST_BYTES = 10
    api = Client()
    api.force_login(owner)
    r = api.post(
        "/api/snapshots/",
        {"name": "x", "objects": small_cluster()},
        content_type="application/json",
    )
    assert r.status_code == 503, r.content
    assert "nothing was stored" in r.json()["detail"]
    assert not Snapshot.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_page_form_answers_503_while_the_broker_is_down(
    broker_down: Any, cast: dict[str, Any], owner: Any
) -> None:
    from clusters.demo import demo_cat3_pod

    browser = Client()
    browser.force_login(owner)
    pod = demo_cat3_pod()
    pod["spec"].pop("priorityClassName", None)
    before = Analysis.objects.count()
    r = browser.post(
        f"/snapshots/{cast['snapshot'].pk}/analyses/new/",
        {"mode": "manifest", "manifest": json.dumps(pod)},
    )
    assert r.status_code == 503
    assert "task queue" in r.content.decode()
    assert Analysis.objects.count() == before
