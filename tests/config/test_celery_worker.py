"""A real worker process takes a task from Redis and answers through the result backend."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from config.celery import app

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.worker
def test_it_runs_a_task_through_redis_on_a_real_worker(celery_worker_process):
    result = app.send_task("preemptlab.ping", queue=app.conf.task_default_queue)
    assert result.get(timeout=20) == "pong"
    assert celery_worker_process.poll() is None


def test_the_task_settings_survive_a_dying_worker():
    # Late acknowledgement plus reject-on-worker-lost is what puts a task back
    # on the queue when its worker dies mid-way.
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.task_time_limit and app.conf.task_soft_time_limit < app.conf.task_time_limit


@pytest.mark.worker
def test_the_embedded_default_runs_a_task_without_redis(tmp_path):
    """SQLite plus the filesystem broker: what `make run` uses on a bare machine."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "TEST_DB_NAME")
    }
    env |= {"DEBUG": "1", "PREEMPTLAB_VAR_DIR": str(tmp_path), "CELERY_QUEUE": "embedded-test"}
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert migrate.returncode == 0, migrate.stderr
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "-Q",
            "embedded-test",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        code = (
            "import django, os; django.setup()\n"
            "from config.celery import app\n"
            "print(app.send_task('preemptlab.ping', queue='embedded-test').get(timeout=60))\n"
        )
        client = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert client.returncode == 0, client.stderr
        assert client.stdout.strip() == "pong"
        assert (tmp_path / "preemptlab.sqlite3").exists()
    finally:
        worker.terminate()
        deadline = time.monotonic() + 20
        while worker.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        if worker.poll() is None:
            worker.kill()
