"""/readyz: a web pod is ready when its database answers; the broker and the workers are
reported (?verbose), never decisive, so that the workers down never take the pages, the
API and /metrics with them. The worker's heartbeat is its own probe (operations/alive.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from config.celery import app as celery_app
from operations.alive import alive
from operations.heartbeat import beat, worker_seen
from operations.models import WorkerHeartbeat

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_with_no_worker_web_readiness_answers_200_and_verbose_names_the_worker(client):
    assert not worker_seen()
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    assert response["Cache-Control"] == "no-store"
    assert response.json()["status"] == "ok"
    assert "worker" not in response.json()  # not asked for the probe
    verbose = client.get("/readyz?verbose")
    assert verbose.status_code == 200
    body = verbose.json()
    assert body["down"] == ["worker"]
    assert body["worker"] == {"ok": False, "detail": "not seen", "decides": False}
    assert body["database"] == {"ok": True, "detail": "reachable", "decides": True}
    assert body["broker"]["ok"] is True and body["broker"]["decides"] is False


@pytest.mark.django_db
def test_a_heartbeat_older_than_a_minute_does_not_count_as_seen(client):
    WorkerHeartbeat.objects.create(
        worker="gone@host", seen_at=timezone.now() - timedelta(seconds=61)
    )
    assert client.get("/readyz?verbose").json()["worker"]["ok"] is False
    beat("alive@host")
    body = client.get("/readyz?verbose").json()
    assert body["worker"]["ok"] is True and body["down"] == []


@pytest.mark.django_db
def test_the_broker_down_is_reported_without_anything_secret_and_stays_ready(client):
    previous = celery_app.conf.broker_url
    celery_app.conf.broker_url = "redis://:hunter2@127.0.0.1:1/0"
    try:
        plain = client.get("/readyz")
        response = client.get("/readyz?verbose")
    finally:
        celery_app.conf.broker_url = previous
    assert plain.status_code == 200 and response.status_code == 200
    assert "broker" in response.json()["down"]
    assert "hunter2" not in response.content.decode()
    assert "127.0.0.1" not in response.content.decode()


def test_the_alive_probe_reads_the_heartbeat_files_age(tmp_path):
    path = tmp_path / "alive"
    assert alive(str(path), 60)[0] is False
    path.touch()
    assert alive(str(path), 60)[0] is True
    assert alive(str(path), 60, now=time.time() + 61)[0] is False
    proc = subprocess.run(
        [sys.executable, "-m", "operations.alive", str(tmp_path / "none"), "60"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1 and "no heartbeat yet" in proc.stderr


@pytest.mark.worker
def test_a_real_worker_beats_its_row_and_its_probe_file_and_stops_on_shutdown(
    client, celery_worker_factory, settings, tmp_path
):
    settings.PREEMPTLAB_WORKER_SEEN_SECONDS = 3
    probe_file = tmp_path / "alive"
    worker = celery_worker_factory(
        env={"PREEMPTLAB_HEARTBEAT_SECONDS": "1", "PREEMPTLAB_HEARTBEAT_FILE": str(probe_file)}
    )
    deadline = time.monotonic() + 20
    while not client.get("/readyz?verbose").json()["worker"]["ok"]:
        assert time.monotonic() < deadline, client.get("/readyz?verbose").json()
        time.sleep(0.2)
    assert WorkerHeartbeat.objects.filter(worker__startswith="test-").exists()
    probe = [sys.executable, "-m", "operations.alive", str(probe_file), "3"]
    env = {**os.environ}
    assert subprocess.run(probe, cwd=ROOT, env=env, check=False).returncode == 0
    worker.terminate()
    worker.wait(timeout=20)
    time.sleep(3.5)
    body = client.get("/readyz?verbose").json()
    assert body["down"] == ["worker"]
    assert client.get("/readyz").status_code == 200
    assert subprocess.run(probe, cwd=ROOT, env=env, check=False).returncode == 1
