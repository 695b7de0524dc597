"""/readyz: the database, the broker and a worker seen within the last minute."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from config.celery import app as celery_app
from operations.heartbeat import beat
from operations.models import WorkerHeartbeat


@pytest.mark.django_db
def test_without_a_worker_it_answers_503_naming_the_worker(client):
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["down"] == ["worker"]
    assert body["worker"] == {"ok": False, "detail": "not seen"}
    assert body["database"]["ok"] is True
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_a_heartbeat_older_than_a_minute_does_not_count(client):
    WorkerHeartbeat.objects.create(
        worker="gone@host", seen_at=timezone.now() - timedelta(seconds=61)
    )
    assert client.get("/readyz").status_code == 503
    beat("alive@host")
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "ok"


@pytest.mark.django_db
def test_it_names_the_broker_when_it_is_down_and_says_nothing_secret(client):
    beat("alive@host")
    previous = celery_app.conf.broker_url
    celery_app.conf.broker_url = "redis://:hunter2@127.0.0.1:1/0"
    try:
        response = client.get("/readyz")
    finally:
        celery_app.conf.broker_url = previous
    assert response.status_code == 503
    assert response.json()["down"] == ["broker"]
    assert "hunter2" not in response.content.decode()
    assert "127.0.0.1" not in response.content.decode()


@pytest.mark.django_db
def test_healthz_is_unchanged_without_a_worker(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert set(response.json()) == {"status", "down", "database", "broker"}


@pytest.mark.worker
def test_a_real_worker_makes_it_ready_and_its_shutdown_stops_the_beat(
    client, celery_worker_factory, settings
):
    settings.PREEMPTLAB_WORKER_SEEN_SECONDS = 3
    worker = celery_worker_factory(env={"PREEMPTLAB_HEARTBEAT_SECONDS": "1"})
    deadline = time.monotonic() + 20
    while client.get("/readyz").status_code != 200:
        assert time.monotonic() < deadline, client.get("/readyz").json()
        time.sleep(0.2)
    assert WorkerHeartbeat.objects.filter(worker__startswith="test-").exists()
    worker.terminate()
    worker.wait(timeout=20)
    time.sleep(3.5)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["down"] == ["worker"]
