"""The app as `make run` serves it (scripts/run.sh), on a fresh var/ directory, for the
tests of the default mode and of the README's commands: one instance for the session."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    """A port nothing listens on now, so concurrent test runs do not collide."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


PORT = int(os.environ.get("MAKE_RUN_TEST_PORT") or _free_port())


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def served_get(path: str) -> tuple[int, str, str]:
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(f"http://127.0.0.1:{PORT}{path}", timeout=10) as r:
            return r.status, r.headers.get("Location") or "", r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Location") or "", e.read().decode()


def served_env(var_dir: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "TEST_DB_NAME")
    }
    return env | {"PREEMPTLAB_VAR_DIR": str(var_dir), "PORT": str(PORT)}


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    var_dir = tmp_path_factory.mktemp("var")
    log = var_dir / "run.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            ["scripts/run.sh"],
            cwd=ROOT,
            env=served_env(var_dir),
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
