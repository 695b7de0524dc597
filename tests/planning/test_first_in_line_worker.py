"""First in line as stored work, with a real Celery worker on Redis: the web request
queues and answers 202 without ranking, the worker ranks, the answer is kept per
snapshot, probe size and limit, and asking counts against the user's unfinished work."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from clusters.services import snapshot_load_demo
from planning.models import FirstInLineRanking
from scheduling import services
from tests.planning.conftest import demo_pod

pytestmark = pytest.mark.worker

GIB = 1024**3


def _api(user: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def _plan(snapshot: Any, **query: str) -> str:
    params = {"cpu": "1", "memory": "2Gi", "limit": "50", **query}
    encoded = "&".join(f"{k}={v}" for k, v in params.items())
    return f"/api/snapshots/{snapshot.pk}/plan/?{encoded}"


def _poll(api: APIClient, url: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        r = api.get(url)
        if r.status_code == 200:
            return r
        assert r.status_code == 202, r.content
        if time.monotonic() > deadline:
            raise AssertionError(f"{url} still {r.json()['first_in_line_status']} after {timeout}s")
        time.sleep(0.1)


def test_the_web_request_queues_and_the_worker_ranks_once(
    celery_worker_factory: Any, owner: Any
) -> None:
    snapshot = snapshot_load_demo(owner=owner)
    api = _api(owner)
    # Asked before any worker runs: the web process answers at once, without ranking.
    r = api.get(_plan(snapshot))
    assert r.status_code == 202, r.content
    body = r.json()
    assert body["first_in_line"] is None and body["first_in_line_probe"] is None
    assert body["first_in_line_status"] == "queued"
    assert r["Location"] == body["first_in_line_url"] == _plan(snapshot)
    assert "ladder" in body and "findings" in body  # the plan itself is there already
    ranking = FirstInLineRanking.objects.get(snapshot=snapshot)
    assert (ranking.cpu_millis, ranking.memory_bytes, ranking.limit) == (1000, 2 * GIB, 50)
    assert ranking.status == "queued" and ranking.answer is None and ranking.attempts == 0
    # Asked again while queued: the same row, no second one.
    assert api.get(_plan(snapshot)).status_code == 202
    assert FirstInLineRanking.objects.filter(snapshot=snapshot).count() == 1

    celery_worker_factory()
    done = _poll(api, body["first_in_line_url"]).json()
    assert done["first_in_line_status"] == "done"
    assert done["first_in_line"][0]["app"] == "Deployment default/purple"
    assert done["first_in_line_probe"]["limit"] == 50
    ranking.refresh_from_db()
    assert ranking.attempts == 1 and ranking.runs_done == ranking.runs_total > 0
    # The same question again: read from the stored answer, no new run.
    again = api.get(_plan(snapshot))
    assert again.status_code == 200 and again.json()["first_in_line"] == done["first_in_line"]
    ranking.refresh_from_db()
    assert ranking.attempts == 1
    assert FirstInLineRanking.objects.filter(snapshot=snapshot).count() == 1
    # Another limit is another question: queued (202), then ranked by the worker.
    other = api.get(_plan(snapshot, limit="20"))
    assert other.status_code in (200, 202)
    assert _poll(api, _plan(snapshot, limit="20")).json()["first_in_line_probe"]["limit"] == 20
    assert FirstInLineRanking.objects.filter(snapshot=snapshot).count() == 2
    # Dropped with the snapshot.
    api.delete(f"/api/snapshots/{snapshot.pk}/")
    assert not FirstInLineRanking.objects.filter(snapshot_id=snapshot.pk).exists()


def test_the_page_follows_the_ranking_until_the_table_swaps_in(
    celery_worker_process: Any, owner: Any, client: Any
) -> None:
    snapshot = snapshot_load_demo(owner=owner)
    client.force_login(owner)
    url = f"/snapshots/{snapshot.pk}/plan/first-in-line/?cpu=1&memory=2Gi&limit=50"
    fragment = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "first-in-line"}
    first = client.get(url, **fragment)
    html = first.content.decode()
    if first.status_code == 200:
        # Still computing: the section polls this URL every second.
        assert "Computing first in line" in html
        assert f'hx-get="{url.replace("&", "&amp;")}"' in html
        assert 'hx-trigger="every 1s"' in html
    deadline = time.monotonic() + 60
    r = first
    while r.status_code != 286:
        assert time.monotonic() < deadline, "the ranking was not stored within 60 s"
        time.sleep(0.2)
        r = client.get(url, **fragment)
    # Stored: the table comes with htmx's stop-polling status, and polls no more.
    html = r.content.decode()
    assert 'id="first-in-line-table"' in html and "every 1s" not in html
    assert "Deployment default/purple" in html


def test_another_user_never_sees_this_user_s_ranking(
    celery_worker_process: Any, owner: Any, stranger: Any
) -> None:
    mine = snapshot_load_demo(owner=owner)
    _poll(_api(owner), _plan(mine))
    # The other user's snapshot of the same objects: a ranking of its own, queued anew.
    theirs = snapshot_load_demo(owner=stranger)
    stranger_api = _api(stranger)
    assert stranger_api.get(_plan(mine)).status_code == 404
    r = stranger_api.get(_plan(theirs))
    assert r.status_code in (200, 202)
    assert FirstInLineRanking.objects.filter(snapshot=theirs).count() == 1
    mine_row = FirstInLineRanking.objects.get(snapshot=mine)
    theirs_row = FirstInLineRanking.objects.get(snapshot=theirs)
    assert mine_row.pk != theirs_row.pk
    assert _poll(stranger_api, _plan(theirs)).json()["first_in_line_status"] == "done"


def test_the_per_user_limit_refuses_a_new_ranking_with_429(
    celery_worker_factory: Any, owner: Any, settings: Any, client: Any
) -> None:
    # No worker yet: what is queued stays queued.
    settings.PREEMPTLAB_UNFINISHED_PER_USER = 2
    snapshot = snapshot_load_demo(owner=owner)
    api = _api(owner)
    services.analysis_create(snapshot=snapshot, pod=demo_pod("orange-0", "cat-3"))
    assert api.get(_plan(snapshot)).status_code == 202
    # An analysis and a ranking unfinished: a third question is refused, as analyses are.
    r = api.get(_plan(snapshot, limit="20"))
    assert r.status_code == 429
    assert "PREEMPTLAB_UNFINISHED_PER_USER" in r.json()["detail"] and r["Retry-After"]
    assert not FirstInLineRanking.objects.filter(snapshot=snapshot, limit=20).exists()
    client.force_login(owner)
    page = client.get(f"/snapshots/{snapshot.pk}/plan/first-in-line/?cpu=1&memory=2Gi&limit=20")
    assert page.status_code == 429
    assert 'id="first-in-line-busy"' in page.content.decode()
    # A question already asked is still answered (no new work).
    assert api.get(_plan(snapshot)).status_code == 202
    # Once the worker has done both, there is room again.
    celery_worker_factory()
    _poll(api, _plan(snapshot))
    deadline = time.monotonic() + 60
    while (r := api.get(_plan(snapshot, limit="20"))).status_code == 429:
        assert time.monotonic() < deadline, "the analysis was not run within 60 s"
        time.sleep(0.2)
    assert r.status_code in (200, 202)


def test_a_ranking_whose_worker_died_is_ranked_again(
    celery_worker_factory: Any, owner: Any
) -> None:
    # A ranking left running by a worker that died (its lease long expired, no message
    # left): the next worker's reconciler queues it again, and that worker ranks it.
    snapshot = snapshot_load_demo(owner=owner)
    ranking = FirstInLineRanking.objects.create(
        snapshot=snapshot,
        cpu_millis=1000,
        memory_bytes=2 * GIB,
        limit=50,
        status="running",
        attempts=1,
        lease_task_id="a-task-of-a-dead-worker",
        lease_expires_at=timezone.now() - timedelta(minutes=5),
    )
    celery_worker_factory(env={"PREEMPTLAB_RECONCILE_SECONDS": "1"})
    deadline = time.monotonic() + 60
    while not ranking.is_done:
        assert time.monotonic() < deadline, f"still {ranking.status} after 60 s"
        time.sleep(0.2)
        ranking.refresh_from_db()
    assert ranking.attempts == 2 and ranking.lease_task_id == ""
    done = _api(owner).get(_plan(snapshot))
    assert done.status_code == 200
    assert done.json()["first_in_line"][0]["app"] == "Deployment default/purple"
