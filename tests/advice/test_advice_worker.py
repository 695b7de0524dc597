"""Advice with a real Celery worker on Redis: the web request queues and answers 202
without searching, the worker searches and stores, the API then answers 200; advice whose
worker died (its lease expired) is queued again by the reconciler and searched."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from advice.models import Advice
from clusters.services import snapshot_load_demo
from operations.reconciler import reconcile
from tests.planning.conftest import demo_pod, run_pod

pytestmark = pytest.mark.worker


def _poll(api: APIClient, url: str, timeout: float = 90) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        r = api.get(url)
        if r.status_code == 200:
            return r.json()
        assert r.status_code == 202, r.content
        if time.monotonic() > deadline:
            raise AssertionError(f"{url} still {r.json()['status']} after {timeout}s")
        time.sleep(0.2)


def test_the_worker_searches_what_the_web_request_queued(
    celery_worker_factory: Any, owner: Any
) -> None:
    snapshot = snapshot_load_demo(owner=owner)
    analysis = run_pod(snapshot, demo_pod("orange", "cat-3"))
    api = APIClient()
    api.force_authenticate(owner)
    url = f"/api/analyses/{analysis.pk}/advice/"
    # Asked before any worker runs: the web process answers at once, without searching.
    r = api.post(url)
    assert r.status_code == 202 and r.json()["status"] == "queued"
    assert Advice.objects.get(analysis=analysis).answer is None

    celery_worker_factory()
    done = _poll(api, url)
    assert done["status"] == "done"
    assert done["baseline"]["outcome"] == "preempts"
    assert done["baseline"]["victims"] == analysis.result["victims"]
    assert done["advice"], "the demo's preemption has advice"
    for item in done["advice"]:
        # Proven: the engine answered the question with the change, and the answer moved
        # (fewer victims, another outcome, or, protected, other victims).
        assert item["proof"]["runs"] >= 1
        assert (item["outcome"], item["victims"]) != ("preempts", done["baseline"]["victims"])
    row = Advice.objects.get(analysis=analysis)
    assert row.attempts == 1 and row.lease_task_id == "" and row.engine_seconds is not None

    # A worker that died mid-search: its lease expires, the reconciler queues it again.
    Advice.objects.filter(pk=row.pk).update(
        status="running",
        answer=None,
        lease_task_id="a-dead-worker",
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    report = reconcile()
    assert report.expired["advice"] == 1
    again = _poll(api, url)
    assert again["status"] == "done"

    def answers(body: Any) -> list[tuple[Any, ...]]:  # what was proven; not how long it took
        return [(i["kind"], i["change"], i["outcome"], i["victims"]) for i in body["advice"]]

    assert answers(again) == answers(done)
    row.refresh_from_db()
    assert row.attempts == 2
