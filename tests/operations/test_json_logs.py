"""LOG_FORMAT=json: every line gunicorn, Django and a Celery worker write is one JSON
object, with the request's or the task's fields, and nothing secret."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from config.celery import app as celery_app
from operations.logs import ContextFilter, JsonFormatter
from tests.conftest import ROOT, _database_url_for_subprocess

PORT = 8923


def _json_lines(text: str) -> list[dict]:
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines
    return [json.loads(line) for line in lines]  # any line that is not JSON fails here


def test_an_exception_is_a_field_of_its_line():
    formatter = JsonFormatter()
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.getLogger("x").makeRecord(
            "x", logging.ERROR, __file__, 1, "it failed: %s", ("here",), sys.exc_info()
        )
    ContextFilter().filter(record)
    entry = json.loads(formatter.format(record))
    assert entry["message"] == "it failed: here"
    assert entry["level"] == "ERROR"
    assert entry["logger"] == "x"
    assert "ValueError: boom" in entry["exception"]
    assert "\n" not in formatter.format(record)


@pytest.mark.worker
def test_a_request_and_a_task_log_json_lines_only(
    transactional_db, celery_worker_factory, tmp_path
):
    env = {
        **os.environ,
        "LOG_FORMAT": "json",
        "DEBUG": "1",
        "DATABASE_URL": _database_url_for_subprocess(),
        "PREEMPTLAB_VAR_DIR": str(tmp_path),
    }
    env.pop("TEST_DB_NAME", None)
    log_path = tmp_path / "gunicorn.log"
    with open(log_path, "w") as log:
        web = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-b",
                f"127.0.0.1:{PORT}",
                "-w",
                "1",
                "config.wsgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    requests.get(f"http://127.0.0.1:{PORT}/healthz", timeout=2)
                    break
                except requests.ConnectionError:
                    assert time.monotonic() < deadline, log_path.read_text()
                    time.sleep(0.2)
            secret = "Token abcdef-the-secret-token"
            missing = requests.get(
                f"http://127.0.0.1:{PORT}/api/no-such-page/?code=the-secret-code",
                headers={
                    "Authorization": secret,
                    "Cookie": "sessionid=the-secret-cookie",
                    "X-Request-ID": "req-42",
                },
                timeout=5,
            )
            assert missing.headers["X-Request-ID"] == "req-42"
        finally:
            web.terminate()
            web.wait(timeout=20)
    web_lines = _json_lines(log_path.read_text())
    access = [e for e in web_lines if e["logger"] == "gunicorn.access"]
    assert {"path": "/api/no-such-page/", "request_id": "req-42"}.items() <= next(
        e for e in access if e.get("request_id") == "req-42"
    ).items()
    assert any(e["logger"] == "gunicorn.error" for e in web_lines)
    # Django's own line about the request carries its id, path and status.
    assert any(
        e["logger"] == "django.request" and e.get("request_id") == "req-42" and e["status"] == 404
        for e in web_lines
    ), web_lines
    assert all({"time", "level", "logger", "message"} <= e.keys() for e in web_lines)
    for word in ("the-secret-token", "the-secret-cookie", "the-secret-code"):
        assert word not in log_path.read_text()

    celery_worker_factory(env={"LOG_FORMAT": "json"})
    queue = celery_app.conf.task_default_queue
    result = celery_app.send_task("preemptlab.ping", queue=queue)
    assert result.get(timeout=10) == "pong"
    worker_log = Path(ROOT / "var" / f"worker-{queue}.log")
    # The task's own lines (its "succeeded" line) are written by the pool's process after
    # the result is stored, and the main process's "received" line names the id without
    # being inside the task: wait for a line of the task itself, reading whole lines only.
    deadline = time.monotonic() + 10
    while True:
        text = worker_log.read_text()
        whole = text[: text.rfind("\n") + 1]
        worker_lines = _json_lines(whole) if whole.strip() else []
        done = [e for e in worker_lines if e.get("task_id") == result.id]
        if done:
            break
        assert time.monotonic() < deadline, text
        time.sleep(0.2)
    assert all(e["task_name"] == "preemptlab.ping" for e in done)
