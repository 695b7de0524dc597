"""A share link's token is its whole secret: no log line holds it. gunicorn's access
line (request line, path, referer) and django.request's line, in text and in JSON, say
/s/<redacted>/ instead."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from operations.logs import RedactShareTokens, redact_share_tokens
from tests.conftest import ROOT, _database_url_for_subprocess

TOKEN = "tok-the-share-secret-0123456789"
REFERER_TOKEN = "tok-another-share-secret-9876"


def test_the_filter_rewrites_a_message_and_its_path() -> None:
    record = logging.getLogger("django.request").makeRecord(
        "django.request", logging.WARNING, __file__, 1, "Not Found: %s", (f"/s/{TOKEN}/",), None
    )
    record.path = f"/s/{TOKEN}/rejected/2/"
    RedactShareTokens().filter(record)
    assert record.getMessage() == "Not Found: /s/<redacted>/"
    assert record.path == "/s/<redacted>/rejected/2/"
    assert redact_share_tokens("/api/snapshots/3/") == "/api/snapshots/3/"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# A gunicorn process of its own on the test database: PostgreSQL only, as the worker tests.
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("log_format", ["text", "json"])
def test_gunicorn_and_django_log_no_share_token(log_format: str, tmp_path: Path) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "LOG_FORMAT": log_format,
        "DEBUG": "1",
        "DATABASE_URL": _database_url_for_subprocess(),
        "PREEMPTLAB_VAR_DIR": str(tmp_path),
    }
    env.pop("TEST_DB_NAME", None)
    log_path = tmp_path / "gunicorn.log"
    with open(log_path, "w") as log:
        web = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "1",
                "--access-logfile", "-", "config.wsgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    requests.get(f"http://127.0.0.1:{port}/healthz", timeout=10)
                    break
                except requests.RequestException:
                    assert time.monotonic() < deadline, log_path.read_text()
                    time.sleep(0.2)
            for path in (f"/s/{TOKEN}/", f"/s/{TOKEN}/rejected/1/", f"/s/{TOKEN}/advice/"):
                answer = requests.get(
                    f"http://127.0.0.1:{port}{path}",
                    headers={"Referer": f"http://127.0.0.1:{port}/s/{REFERER_TOKEN}/"},
                    timeout=5,
                )
                assert answer.status_code == 404
        finally:
            web.terminate()
            web.wait(timeout=20)
    text = log_path.read_text()
    assert TOKEN not in text and REFERER_TOKEN not in text, text
    assert text.count("/s/<redacted>/") >= 6, text  # three access lines, three of Django's
    assert "Not Found: /s/<redacted>/" in text, text
