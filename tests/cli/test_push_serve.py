"""preemptlab push to a running server over its REST API, and preemptlab serve starting
the app on the embedded default."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from clusters.models import Snapshot

from .conftest import DEMO, ROOT, user_env


@pytest.mark.django_db(transaction=True)
def test_push_uploads_a_snapshot_and_prints_its_page(
    live_server: Any, owner: Any, run_cli: Any
) -> None:
    token = Token.objects.create(user=owner).key
    r = run_cli(
        "push", str(DEMO), "--server", live_server.url, "--token", token, "--name", "demo-push"
    )
    assert r.returncode == 0, r.stderr.decode()
    snapshot = Snapshot.objects.get(name="demo-push", owner=owner)
    assert f"/snapshots/{snapshot.pk}/" in r.stdout.decode()
    assert snapshot.nodes.count() == sum(
        o["kind"] == "Node" for o in json.loads(DEMO.read_text())["items"]
    )
    bad = run_cli("push", str(DEMO), "--server", live_server.url, "--token", "wrong")
    assert bad.returncode == 2 and "401" in bad.stderr.decode()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_serve_runs_the_app_on_the_embedded_default(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "preemptlab", "serve", "--port", str(port)],
        cwd=ROOT,
        env=user_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                    status = r.status
                    break
            except OSError:
                time.sleep(1)
        assert status == 200, (
            proc.stdout.read().decode() if proc.poll() is not None else "no answer"
        )
        # Its own SQLite file and secret key, in the var dir it was given.
        assert (tmp_path / "var" / "preemptlab.sqlite3").is_file()
        assert (tmp_path / "var" / "secret_key").stat().st_mode & 0o077 == 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=10) as r:
            assert r.status == 200 and b"<form" in r.read()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
