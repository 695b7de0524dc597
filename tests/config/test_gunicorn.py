"""gunicorn as docker-compose runs it (from the image's /app, reading ./gunicorn.conf.py)
believes X-Forwarded-Proto from PREEMPTLAB_PROXY_ADDRESSES only, not from 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _gunicorn(proxy_addresses: str | None) -> Iterator[str]:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "FORWARDED_ALLOW_IPS"}
    env.pop("PREEMPTLAB_PROXY_ADDRESSES", None)
    if proxy_addresses is not None:
        env["PREEMPTLAB_PROXY_ADDRESSES"] = proxy_addresses
    gunicorn = Path(sys.executable).parent / "gunicorn"
    command = [str(gunicorn), "tests.config.scheme_app:app", "--bind", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}/"
        for _ in range(100):
            try:
                urllib.request.urlopen(url, timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        assert proc.stderr is not None
        proc.stderr.close()


def _scheme(url: str) -> str:
    request = urllib.request.Request(url, headers={"X-Forwarded-Proto": "https"})
    with urllib.request.urlopen(request, timeout=5) as r:
        return str(r.read().decode())


def test_a_request_from_the_containers_loopback_cannot_claim_https() -> None:
    with _gunicorn(None) as url:
        assert _scheme(url) == "http"


def test_the_named_proxy_is_believed() -> None:
    with _gunicorn("127.0.0.1") as url:
        assert _scheme(url) == "https"
