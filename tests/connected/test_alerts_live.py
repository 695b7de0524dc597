"""Alerts end to end, as they run in the cluster: a stand-in API server read by the real
kubectl, real `celery beat` sending the reads on the cluster's schedule, a real reader
worker (the cluster-reads queue alone) beside a real worker of the rest, and a webhook
receiver on loopback. Under the default rules a preemption of a victim of priority 10^9
(OpenShift's openshift-user-critical, the lowest class the cluster marks critical) posts
one signed webhook whose url is absolute and whose text names victim, preemptor and node;
a PDB going to 0 posts one; /metrics says the read is failing within two periods of the
API server stopping, and the PDBs at 0 of the newest snapshot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.db import close_old_connections
from prometheus_client.parser import text_string_to_metric_families

from clusters.models import Snapshot
from config.celery import app
from connected.services import cluster_create
from connected.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, verify
from tests.cli.fake_apiserver import FakeAPIServer
from tests.conftest import ROOT, WorkerFactory, _database_url_for_subprocess

from .conftest import demo_objects

pytestmark = pytest.mark.worker

PERIOD = 3  # seconds between two reads
TOKEN = "metrics-token-for-the-live-test"
BASE_URL = "https://preemptlab.example.com"
VICTIM_UID = "uid-checkout-1"
PREEMPTOR_UID = "uid-ingress-gw-1"


class Receiver:
    """A webhook receiver on loopback: each POST's raw body and headers."""

    def __init__(self) -> None:
        self.posts: list[tuple[bytes, dict[str, str]]] = []
        posts = self.posts

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                posts.append((body, dict(self.headers.items())))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks/T000/B000"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def of_kind(self, kind: str) -> list[tuple[dict[str, Any], bytes, dict[str, str]]]:
        return [(json.loads(b), b, h) for b, h in self.posts if json.loads(b)["kind"] == kind]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def beat(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []

    def start(env: dict[str, str]) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "config", "beat",
                "-S", "django_celery_beat.schedulers:DatabaseScheduler", "--loglevel=INFO",
                "--pidfile=", f"--schedule={tmp_path / 'beat-schedule'}",
            ],
            cwd=ROOT,
            env=env,
            stdout=(tmp_path / "beat.log").open("w"),
            stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=20)


def rfc3339(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def pod(name: str, uid: str, node: str, cls: str, priority: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "shop",
            "uid": uid,
            "creationTimestamp": "2025-01-06T09:00:00Z",
            "labels": {"app": name.rsplit("-", 1)[0]},
        },
        "spec": {
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}],
            "nodeName": node,
            "priorityClassName": cls,
            "priority": priority,
            "preemptionPolicy": "PreemptLowerPriority",
            "schedulerName": "default-scheduler",
        },
        "status": {"phase": "Running"},
    }


def preempted(at: datetime) -> dict[str, Any]:
    """kube-scheduler's event on the victim, naming the preemptor's uid and the node."""
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "checkout-1.preempted", "namespace": "shop"},
        "involvedObject": {"kind": "Pod", "namespace": "shop", "name": "checkout-1",
                           "uid": VICTIM_UID},
        "related": {"kind": "Pod", "namespace": "shop", "name": "ingress-gw-1",
                    "uid": PREEMPTOR_UID},
        "reason": "Preempted",
        "message": f"Preempted by pod {PREEMPTOR_UID} on node node-3",
        "source": {"component": "default-scheduler"},
        "firstTimestamp": rfc3339(at),
        "lastTimestamp": rfc3339(at),
        "count": 1,
        "type": "Normal",
    }  # fmt: skip


def openshift_classes() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "openshift-user-critical"},
            "value": 1000000000,
            "preemptionPolicy": "PreemptLowerPriority",
        }
    ]


def wait_until(what: str, check: Callable[[], Any], timeout: float, logs: Path) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        close_old_connections()
        got = check()
        if got:
            return got
        time.sleep(0.25)
    said = "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(logs.glob("*.log")))
    raise AssertionError(f"{what}: not within {timeout:g} s\n{said}")


def metrics(client: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    got = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert got.status_code == 200
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(got.content.decode())
        for s in family.samples
    }


def test_a_critical_preemption_and_a_pdb_at_zero_are_alerted_signed_and_the_failing_read_is_a_metric(
    celery_worker_factory: WorkerFactory,
    beat: Callable[[dict[str, str]], subprocess.Popen[str]],
    receiver: Receiver,
    owner: Any,
    client: Any,
    tmp_path: Path,
    settings: Any,
) -> None:
    settings.METRICS_TOKEN = TOKEN
    # The receiver is on loopback: allowed here as an in-house receiver would be.
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    victim = pod("checkout-1", VICTIM_UID, "node-3", "openshift-user-critical", 10**9)
    objects = [*demo_objects(), *openshift_classes(), victim]
    fake = FakeAPIServer(objects)
    env = {
        "KUBECACHEDIR": str(tmp_path / "kube-cache"),
        "PREEMPTLAB_BASE_URL": BASE_URL,
        # Receivers on loopback are refused unless listed.
        "PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
        "PREEMPTLAB_HEARTBEAT_FILE": str(tmp_path / "alive"),
    }
    logs = ROOT / "var"
    with fake.running(tmp_path) as kubeconfig:
        env["CONNECTED_KUBECONFIG"] = str(kubeconfig)
        # The worker of everything but the reads, and beside it the reader alone, as the
        # manifests run them.
        celery_worker_factory(env=env, consume=("default", "alerts"))
        queue = str(app.conf.task_default_queue)
        celery_worker_factory(env=env, queue=queue, consume=("reads",))
        cluster = cluster_create(
            name="shop-prod",
            source="fake",
            owner=owner,
            schedule_seconds=PERIOD,
            keep=100,
            webhook_urls=[receiver.url],
        )
        assert cluster.alert_rules is None  # the defaults
        beat(
            {
                **os.environ,
                **env,
                "DATABASE_URL": _database_url_for_subprocess(),
                "REDIS_URL": str(app.conf.broker_url),
                "CELERY_QUEUE": queue,
                "PREEMPTLAB_CLUSTER_READS_QUEUE": settings.PREEMPTLAB_CLUSTER_READS_QUEUE,
                "PREEMPTLAB_ALERTS_QUEUE": settings.PREEMPTLAB_ALERTS_QUEUE,
                "DEBUG": "1",
            }
        )
        ready = Snapshot.objects.filter(cluster=cluster, status="ready")
        first = wait_until("a first snapshot", lambda: ready.order_by("taken_at").first(), 90, logs)
        assert first.taken_at is not None

        # The victim is preempted: gone, the preemptor on its node, the event after the
        # first snapshot was taken.
        preemptor = pod("ingress-gw-1", PREEMPTOR_UID, "node-3", "system-cluster-critical",
                        2 * 10**9)  # fmt: skip
        # Its time: after every read claimed so far (the next whole second), as a real
        # event is after every read that did not see it.
        now = datetime.now(UTC)
        at = now.replace(microsecond=0) + timedelta(seconds=1)
        fake.objects = [*demo_objects(), *openshift_classes(), preemptor, preempted(at)]
        (body, raw, headers), *more = wait_until(
            "the preemption's webhook", lambda: receiver.of_kind("preemption"), 90, logs
        )
        cluster.refresh_from_db()
        assert body["url"] == f"{BASE_URL}/clusters/{cluster.pk}/"
        assert body["url"].startswith("https://")
        assert body["cluster"] == "shop-prod" and body["rule"] == "preemption"
        text = body["text"]
        assert "\n" not in text
        for named in ("shop/checkout-1", "shop/ingress-gw-1", "node-3"):
            assert named in text, text
        assert body["facts"]["victim_priority"] == 10**9
        assert body["facts"]["threshold"] == 10**9  # openshift-user-critical
        assert verify(cluster.webhook_secret, headers[TIMESTAMP_HEADER], raw,
                      headers[SIGNATURE_HEADER])  # fmt: skip

        # A PDB goes to 0 allowed disruptions.
        for o in fake.objects:
            if o["kind"] == "PodDisruptionBudget" and o["metadata"]["name"] == "blue-pdb":
                o["status"]["disruptionsAllowed"] = 0
        (pdb, raw, headers), *_ = wait_until(
            "the PDB's webhook", lambda: receiver.of_kind("pdb-at-zero"), 90, logs
        )
        assert pdb["facts"] == {"pdb": "default/blue-pdb", "from": 1, "to": 0}
        assert pdb["url"] == f"{BASE_URL}/clusters/{cluster.pk}/"
        assert verify(cluster.webhook_secret, headers[TIMESTAMP_HEADER], raw,
                      headers[SIGNATURE_HEADER])  # fmt: skip
        # Two more reads: nothing is sent twice.
        count = ready.count()
        wait_until("two more snapshots", lambda: ready.count() >= count + 2, 60, logs)
        newest = ready.order_by("-taken_at").first()
        assert newest is not None
        label = (("cluster", "shop-prod"),)
        at_zero = newest.pdbs.filter(disruptions_allowed=0).count()
        assert at_zero == 1 and metrics(client)[("preemptlab_pdbs_at_zero", label)] == at_zero
        assert metrics(client)[("preemptlab_cluster_read_failing", label)] == 0
        stopped = time.monotonic()
    # The API server stopped: the read fails, and /metrics says so within two periods.
    failing = ("preemptlab_cluster_read_failing", label)
    wait_until("the read failing", lambda: metrics(client)[failing] == 1, 2 * PERIOD, logs)
    took = time.monotonic() - stopped
    assert took <= 2 * PERIOD, took
    assert len(receiver.of_kind("preemption")) == 1 and more == []
    assert len(receiver.of_kind("pdb-at-zero")) == 1
    assert fake.writes == []
    last = metrics(client)[("preemptlab_cluster_last_read_success_timestamp_seconds", label)]
    cluster.refresh_from_db()
    assert cluster.last_success_at is not None
    assert abs(last - cluster.last_success_at.timestamp()) < 1
    print(f"read failing on /metrics {took:.1f} s after the API server stopped (period {PERIOD} s)")
