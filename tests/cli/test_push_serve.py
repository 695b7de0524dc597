"""preemptlab push to a running server over its REST API, and preemptlab serve starting
the app on the embedded default."""

from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
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
    assert "visible" in r.stderr.decode()  # --token still works, with a warning
    bad = run_cli("push", str(DEMO), "--server", live_server.url, "--token", "wrong")
    assert bad.returncode == 2 and "401" in bad.stderr.decode()


@dataclass
class Seen:
    method: str
    path: str
    authorization: str | None
    body: bytes


class Origin:
    """A real HTTP server on loopback: answers each path as told, records every request."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.seen: list[Seen] = []
        origin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                origin.seen.append(
                    Seen(self.command, self.path, self.headers.get("Authorization"), body)
                )
                status, headers, answer = origin.routes.get(self.path, (404, {}, b"{}"))
                self.send_response(status)
                for k, v in {**headers, "Content-Length": str(len(answer))}.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(answer)

            do_GET = do_POST = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def origins() -> Any:
    made: list[Origin] = []

    def make() -> Origin:
        made.append(Origin())
        return made[-1]

    yield make
    for o in made:
        o.close()


CREATED = (201, {"Content-Type": "application/json"}, b'{"id": 7, "status": "ready"}')
TOKEN = "s3cret-token-value"


def _push(tmp_path: Path, server: str, *args: str, token: str | None = TOKEN) -> Any:
    env = user_env(tmp_path, **({"PREEMPTLAB_TOKEN": token} if token else {}))
    if not token:
        env.pop("PREEMPTLAB_TOKEN", None)
    return subprocess.run(
        [sys.executable, "-m", "preemptlab", "push", str(DEMO), "--server", server, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )


def test_push_refuses_a_redirect_to_another_origin_and_sends_it_no_token(
    tmp_path: Path, origins: Any
) -> None:
    elsewhere = origins()
    elsewhere.routes["/api/snapshots/"] = (200, {"Content-Type": "application/json"}, b"[]")
    server = origins()
    for code in (302, 307):
        server.routes["/api/snapshots/"] = (
            code,
            {"Location": f"{elsewhere.url}/api/snapshots/"},
            b"",
        )
        r = _push(tmp_path, server.url)
        assert r.returncode == 2, r.stdout.decode()
        assert "another origin" in r.stderr.decode() and elsewhere.url in r.stderr.decode()
        assert r.stdout == b""
    assert elsewhere.seen == []


def test_push_follows_a_307_on_its_origin_with_the_whole_upload(
    tmp_path: Path, origins: Any
) -> None:
    server = origins()
    server.routes["/api/snapshots/"] = (307, {"Location": "/v2/api/snapshots/"}, b"")
    server.routes["/v2/api/snapshots/"] = CREATED
    r = _push(tmp_path, server.url)
    assert r.returncode == 0, r.stderr.decode()
    first, second = server.seen
    assert (second.method, second.path) == ("POST", "/v2/api/snapshots/")
    assert second.authorization == f"Token {TOKEN}"
    assert DEMO.read_bytes() in second.body and len(second.body) == len(first.body)


def test_push_refuses_a_redirect_that_would_make_the_upload_a_get(
    tmp_path: Path, origins: Any
) -> None:
    server = origins()
    server.routes["/api/snapshots/"] = (302, {"Location": "/elsewhere/"}, b"")
    server.routes["/elsewhere/"] = (200, {"Content-Type": "application/json"}, b"{}")
    r = _push(tmp_path, server.url)
    assert r.returncode == 2 and "GET" in r.stderr.decode()
    assert [s.path for s in server.seen] == ["/api/snapshots/"]


def test_push_fails_when_the_answer_is_not_a_snapshot_made(tmp_path: Path, origins: Any) -> None:
    server = origins()
    server.routes["/api/snapshots/"] = (200, {"Content-Type": "text/html"}, b"<html>hi</html>")
    r = _push(tmp_path, server.url)
    assert r.returncode == 2 and "nothing was uploaded" in r.stderr.decode()


def test_push_reads_the_token_from_a_file_or_the_environment_never_asking_argv(
    tmp_path: Path, origins: Any
) -> None:
    server = origins()
    server.routes["/api/snapshots/"] = CREATED
    token_file = tmp_path / "token"
    token_file.write_text("from-the-file\n")
    r = _push(tmp_path, server.url, "--token-file", str(token_file), token=None)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stderr == b""
    r = _push(tmp_path, server.url)
    assert r.returncode == 0 and r.stderr == b""
    assert [s.authorization for s in server.seen] == ["Token from-the-file", f"Token {TOKEN}"]
    none = _push(tmp_path, server.url, token=None)
    assert none.returncode == 2 and "PREEMPTLAB_TOKEN" in none.stderr.decode()


def test_push_wants_https_beyond_this_machine_unless_told_insecure(tmp_path: Path) -> None:
    # A name that never resolves (RFC 6761): the refusal comes before any connection.
    r = _push(tmp_path, "http://preemptlab.invalid")
    assert r.returncode == 2 and "--insecure" in r.stderr.decode()
    assert "cannot reach" not in r.stderr.decode()
    r = _push(tmp_path, "http://preemptlab.invalid", "--insecure")
    assert r.returncode == 2
    assert "plain http" in r.stderr.decode() and "cannot reach" in r.stderr.decode()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _readable_by_others(folder: Path) -> list[str]:
    return [
        f"{p.relative_to(folder)} {stat.S_IMODE(p.lstat().st_mode):o}"
        for p in [folder, *folder.rglob("*")]
        if not p.is_symlink() and stat.S_IMODE(p.lstat().st_mode) & 0o077
    ]


def test_serve_runs_the_app_on_the_embedded_default(tmp_path: Path) -> None:
    port = _free_port()
    # A log an earlier version left readable: serve takes it back.
    (tmp_path / "var" / "logs").mkdir(parents=True, mode=0o755)
    (tmp_path / "var" / "logs").chmod(0o755)
    (tmp_path / "var" / "logs" / "old.log").write_text("x")
    (tmp_path / "var" / "logs" / "old.log").chmod(0o644)
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
        # The SQLite file (and its WAL), the demo's ingest, the broker's folders, the
        # static files: folders 0700, files 0600.
        assert stat.S_IMODE((tmp_path / "var" / "preemptlab.sqlite3").stat().st_mode) == 0o600
        assert (tmp_path / "var" / "broker").is_dir()
        assert _readable_by_others(tmp_path / "var") == []
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)


def test_manage_py_creates_the_sqlite_file_for_this_user_only(tmp_path: Path) -> None:
    env = {**user_env(tmp_path), "DEBUG": "1"}
    r = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0, r.stderr.decode()
    assert stat.S_IMODE((tmp_path / "var" / "preemptlab.sqlite3").stat().st_mode) == 0o600
    assert _readable_by_others(tmp_path / "var") == []
