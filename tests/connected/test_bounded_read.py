"""A read cannot hurt the worker: an endless list from the API server, read by the real
kubectl in a real worker, fails fast naming the size with kubectl's memory far below the
worker's; a redirect to an internal server is refused before anything is sent there; the
next good read clears the reason."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.db import close_old_connections

from connected.models import Cluster
from connected.services import cluster_create, cluster_snapshot_request, cluster_snapshot_take
from tests.cli.fake_apiserver import FakeAPIServer
from tests.conftest import WorkerFactory

from .conftest import demo_objects

SECRET = b'{"internal_secret": "db-password=hunter2-s3cr3t"}'


class PeakWatch:
    """Polls /proc for the kubectl children of ``parent`` and keeps the highest VmHWM
    (the kernel's own peak resident size of each) seen, in bytes."""

    def __init__(self, parent: int) -> None:
        self.parent = parent
        self.peak = 0
        self.seen: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            for pid in os.listdir("/proc"):
                if pid.isdigit():
                    self._look(int(pid))
            time.sleep(0.01)

    def _look(self, pid: int) -> None:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("Name", "").strip() != "kubectl":
            return
        if int(fields.get("PPid", "0")) != self.parent:
            return
        self.seen.add(pid)
        hwm = fields.get("VmHWM", "0 kB").split()[0]
        self.peak = max(self.peak, int(hwm) * 1024)


def _failure(cluster: Cluster, *, within: float) -> str:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        close_old_connections()
        cluster.refresh_from_db()
        if cluster.last_failure_reason:
            return cluster.last_failure_reason
        time.sleep(0.1)
    return ""


@pytest.mark.worker
@pytest.mark.parametrize("max_upload_mb", [64, 256])  # 256: the default
def test_an_endless_pods_list_fails_fast_naming_the_size_with_kubectl_bounded(
    celery_worker_factory: WorkerFactory, owner: Any, tmp_path: Path, max_upload_mb: int
) -> None:
    fake = FakeAPIServer(demo_objects(), endless={"pods"})
    with fake.running(tmp_path) as kubeconfig:
        worker = celery_worker_factory(
            env={
                "CONNECTED_KUBECONFIG": str(kubeconfig),
                "KUBECACHEDIR": str(tmp_path / "kc"),
                "MAX_UPLOAD_MB": str(max_upload_mb),
                "CONNECTED_READ_TIMEOUT": "120",
            }
        )
        cluster = cluster_create(name="endless", source="fake", owner=owner, schedule_seconds=3600)
        with PeakWatch(worker.pid) as watch:
            t0 = time.monotonic()
            cluster_snapshot_request(cluster=cluster)
            reason = _failure(cluster, within=30)
            took = time.monotonic() - t0
    print(
        f"endless read, MAX_UPLOAD_MB={max_upload_mb}: failed after {took:.1f} s, "
        f"kubectl peak RSS {watch.peak / 2**20:.0f} MiB: {reason}"
    )
    assert reason, "the read did not fail within 30 s"
    # Stopped at MAX_UPLOAD_MB received, or at kubectl's memory bound (2 x MAX_UPLOAD_MB
    # + 128 MB), whichever comes first: either names the list and a size.
    assert reason.startswith("the cluster's pods list is larger than"), reason
    assert f"{max_upload_mb} MB" in reason or f"{2 * max_upload_mb + 128} MB of memory" in reason
    assert took < 30
    assert watch.seen, "no kubectl child of the worker was seen"
    assert 0 < watch.peak < (2 * max_upload_mb + 200) * 2**20, watch.peak
    cluster.refresh_from_db()
    assert cluster.failing and cluster.reading_since is None


@contextmanager
def internal_server() -> Iterator[tuple[str, list[str]]]:
    """A server only the worker's network reaches, answering a secret to any GET."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(SECRET)))
            self.end_headers()
            self.wfile.write(SECRET)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", asked
    finally:
        server.shutdown()
        server.server_close()


def _holds_nothing_of(text: str) -> None:
    for piece in ("internal_secret", "db-password", "hunter2", "s3cr3t", "{"):
        assert piece not in text, text


@pytest.mark.django_db
@pytest.mark.parametrize("resource", ["nodes", "pods"])
def test_a_redirect_to_an_internal_server_is_refused_and_its_answer_never_kept(
    resource: str,
    tmp_path: Path,
    settings: Any,
    kube_env: None,
    owner: Any,
    owner_client: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = FakeAPIServer(demo_objects())
    cluster = cluster_create(name="moved", source="fake", owner=owner, schedule_seconds=3600)
    with internal_server() as (internal, asked), fake.running(tmp_path) as kubeconfig:
        settings.CONNECTED_KUBECONFIG, settings.CONNECTED_READ_TIMEOUT = str(kubeconfig), 20
        fake.redirect = {resource: f"{internal}/api/v1/{resource}"}
        with caplog.at_level(logging.INFO):
            assert cluster_snapshot_take(cluster_id=cluster.pk) is None
        cluster.refresh_from_db()
        reason = cluster.last_failure_reason
        assert reason.startswith(
            "the cluster answered with a redirect (HTTP 302) to another host, which is not followed"
        ), reason
        # Refused on the wire: the internal server was never sent a request.
        assert asked == []
        _holds_nothing_of(reason)
        _holds_nothing_of(caplog.text)
        for page in (f"/clusters/{cluster.pk}/", f"/api/clusters/{cluster.pk}/"):
            answer = owner_client.get(page)
            assert answer.status_code == 200
            assert b"hunter2" not in answer.content and b"internal_secret" not in answer.content
        # The next good read clears the reason.
        fake.redirect = {}
        assert cluster_snapshot_take(cluster_id=cluster.pk) is not None
    cluster.refresh_from_db()
    assert cluster.last_failure_reason == "" and not cluster.failing
