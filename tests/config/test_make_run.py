"""`make run` (scripts/run.sh) on a fresh var/ directory: no debug page anywhere,
a secret key kept under var/, the demo login printed once."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PORT = int(os.environ.get("MAKE_RUN_TEST_PORT", "8951"))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _get(path: str) -> tuple[int, str, str]:
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(f"http://127.0.0.1:{PORT}{path}", timeout=10) as r:
            return r.status, r.headers.get("Location") or "", r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Location") or "", e.read().decode()


def _env(var_dir: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "TEST_DB_NAME")
    }
    return env | {"PREEMPTLAB_VAR_DIR": str(var_dir), "PORT": str(PORT)}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    var_dir = tmp_path_factory.mktemp("var")
    log = var_dir / "run.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            ["scripts/run.sh"],
            cwd=ROOT,
            env=_env(var_dir),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                socket.create_connection(("127.0.0.1", PORT), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.5)
        yield var_dir, log
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def test_it_serves_without_debug_pages(served: tuple[Path, Path]) -> None:
    for path in ("/api/no-such-endpoint/", "/s/revoked-or-made-up-token/"):
        status, _, body = _get(path)
        assert status == 404
        assert 'id="not-found"' in body
        assert "URLconf" not in body and "DEBUG = True" not in body


def test_its_api_docs_ask_for_a_login(served: tuple[Path, Path]) -> None:
    status, location, _ = _get("/api/docs/")
    assert status == 302
    assert location == "/accounts/login/?next=/api/docs/"


def test_it_keeps_a_private_secret_key_under_var(served: tuple[Path, Path]) -> None:
    var_dir, _ = served
    key = var_dir / "secret_key"
    assert len(key.read_text().strip()) >= 50
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_it_prints_the_demo_login_once(served: tuple[Path, Path]) -> None:
    var_dir, log = served
    assert log.read_text().count("Log in as 'demo' with password") == 1
    again = subprocess.run(
        [".venv/bin/python", "manage.py", "ensure_demo_user"],
        cwd=ROOT,
        env=_env(var_dir),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "password '" not in again.stdout
    assert "changepassword demo" in again.stdout
