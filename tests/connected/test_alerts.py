"""Alerts to real webhook receivers (HTTP servers on this machine): a new error and a
preemption of a critical class reach every receiver once, a failing receiver is retried
and listed as failed without holding anything, hostile text is shown literally."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.utils import timezone

from config.celery import app
from connected import alerts
from connected.history.models import AlertDelivery, ObservedPreemption
from connected.models import Cluster
from connected.signing import verify
from tests.clusters.builders import small_cluster
from tests.connected.history_builders import (
    MONDAY,
    TUESDAY,
    cluster_snapshot,
    later_objects,
    preempted_event,
)


class Receiver:
    """A webhook receiver: records each POST's JSON body, raw bytes and headers, and
    answers ``status``."""

    def __init__(self, status: int) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.raw: list[tuple[bytes, dict[str, str]]] = []
        received, raw = self.bodies, self.raw

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                raw.append((body, dict(self.headers.items())))
                received.append(json.loads(body))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks/secret-path"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(autouse=True)
def loopback_receivers_allowed(settings: Any) -> None:
    """The receivers here listen on loopback: listed as allowed (receivers are refused
    on loopback unless listed)."""
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    settings.PREEMPTLAB_BASE_URL = "https://preemptlab.example.com"


@pytest.fixture
def receivers() -> Iterator[tuple[Receiver, Receiver]]:
    good, failing = Receiver(200), Receiver(500)
    yield good, failing
    good.close()
    failing.close()


@pytest.fixture
def eager(settings: Any) -> Iterator[None]:
    """Tasks run in this process (retries too, at once); the receivers here are on
    loopback, which webhooks reach only when allowed."""
    settings.PREEMPTLAB_ALERT_RETRY_SECONDS = 0
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.mark.django_db
def test_the_default_rules_alert_a_new_error_a_pdb_at_zero_and_a_preemption_once_each(
    cluster: Cluster,
    receivers: tuple[Receiver, Receiver],
    eager: None,
    settings: Any,
    no_first_in_line: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    good, failing = receivers
    # "low" marked critical: the lowest critical class (100; the built-in system classes
    # are 2*10^9) is the default preemption rule's floor.
    settings.PREEMPTLAB_CRITICAL_CLASSES = ["low"]
    cluster.webhook_urls = [good.url, failing.url]
    cluster.save()
    cluster.refresh_from_db()
    cluster_snapshot(cluster, small_cluster(), MONDAY)
    after = cluster_snapshot(cluster, later_objects(), TUESDAY, events=[preempted_event()])
    with django_capture_on_commit_callbacks(execute=True):
        alerts.after_snapshot(after)
    by_kind = {b["kind"]: b for b in good.bodies}
    assert sorted(by_kind) == ["finding", "pdb-at-zero", "preemption"]
    url = f"https://preemptlab.example.com/clusters/{cluster.pk}/"
    for body in good.bodies:
        assert set(body) == {"cluster", "rule", "kind", "text", "url", "facts"}
        assert body["cluster"] == "prod" and body["url"] == url
        assert "\n" not in body["text"] and body["text"].endswith(url)
    assert by_kind["preemption"]["rule"] == "preemption"
    assert by_kind["preemption"]["text"] == (
        f"[prod] default/web-2 (low, priority 100) was preempted by batch/urgent-1 on node "
        f"node-b. {url}"
    )
    assert by_kind["preemption"]["facts"]["preemption"]["victim_class"] == "low"
    assert by_kind["preemption"]["facts"]["threshold"] == 100
    assert by_kind["pdb-at-zero"]["facts"] == {"pdb": "default/web-pdb", "from": 1, "to": 0}
    assert (
        "PodDisruptionBudget default/web-pdb now allows 0 disruptions (was 1)"
        in (by_kind["pdb-at-zero"]["text"])
    )
    assert by_kind["finding"]["rule"] == "finding>=error"
    assert "missing-class on gone, shop/api" in by_kind["finding"]["text"]
    assert by_kind["finding"]["facts"]["finding"]["rule"] == "missing-class"
    # Each POST is signed over its exact bytes with the cluster's secret.
    for body, headers in good.raw:
        assert verify(
            cluster.webhook_secret,
            headers["X-Preemptlab-Timestamp"],
            body,
            headers["X-Preemptlab-Signature"],
        )
        assert not verify("another-secret-entirely", headers["X-Preemptlab-Timestamp"], body,
                          headers["X-Preemptlab-Signature"])  # fmt: skip
    # The failing receiver was asked four times per alert, then listed as failed.
    assert len(failing.bodies) == 3 * 4
    failed = AlertDelivery.objects.filter(url=failing.url)
    assert {(d.status, d.http_status, d.attempts) for d in failed} == {("failed", 500, 4)}
    sent = AlertDelivery.objects.filter(url=good.url)
    assert {(d.status, d.http_status) for d in sent} == {("sent", 200)}
    # Again: nothing is sent twice.
    with django_capture_on_commit_callbacks(execute=True):
        alerts.after_snapshot(after)
    assert len(good.bodies) == 3
    assert ObservedPreemption.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("rules", "critical", "kinds"),
    [
        # At or above 1000: web-2 (low, 100) is below.
        (["preemption>=1000"], [], []),
        (["preemption>=100"], [], ["preemption"]),
        # By default the floor is the lowest class marked critical: the built-in
        # system-cluster-critical (2*10^9), or "high" (1000) when named; web-2 is below.
        (["preemption"], [], []),
        (["preemption"], ["high"], []),
        (["preemption"], ["low"], ["preemption"]),
        (["pdb-at-zero"], [], ["pdb-at-zero"]),
        # missing-class is an error; warnings and worse include it.
        (["finding>=warning"], [], ["finding"]),
        ([], [], []),
    ],
)
def test_the_rules_a_team_sets_decide_what_alerts(
    cluster: Cluster,
    receivers: tuple[Receiver, Receiver],
    eager: None,
    settings: Any,
    no_first_in_line: Any,
    django_capture_on_commit_callbacks: Any,
    rules: list[str],
    critical: list[str],
    kinds: list[str],
) -> None:
    good, _ = receivers
    settings.PREEMPTLAB_CRITICAL_CLASSES = critical
    cluster.webhook_urls = [good.url]
    cluster.alert_rules = rules
    cluster.save()
    cluster_snapshot(cluster, small_cluster(), MONDAY)
    after = cluster_snapshot(cluster, later_objects(), TUESDAY, events=[preempted_event()])
    with django_capture_on_commit_callbacks(execute=True):
        alerts.after_snapshot(after)
    assert sorted({b["kind"] for b in good.bodies}) == kinds


@pytest.mark.django_db
def test_an_unreachable_receiver_never_fails_the_snapshots_follow_up(
    cluster: Cluster, eager: None, no_first_in_line: Any, django_capture_on_commit_callbacks: Any
) -> None:
    cluster.webhook_urls = ["http://127.0.0.1:8895/nobody-listens"]
    cluster.alert_rules = ["finding>=error"]
    cluster.save()
    cluster_snapshot(cluster, small_cluster(), MONDAY)
    after = cluster_snapshot(cluster, later_objects(), TUESDAY)
    with django_capture_on_commit_callbacks(execute=True):
        alerts.after_snapshot(after)
    (delivery,) = AlertDelivery.objects.all()
    assert delivery.status == "failed" and delivery.http_status is None
    assert delivery.error == "connection refused"


@pytest.mark.django_db
def test_unreadable_for_an_hour_is_alerted_once_per_outage(
    cluster: Cluster,
    receivers: tuple[Receiver, Receiver],
    eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    good, _ = receivers
    now = timezone.now()
    Cluster.objects.filter(pk=cluster.pk).update(
        webhook_urls=[good.url],
        last_success_at=now - timedelta(minutes=50),
        last_failure_at=now,
        last_failure_reason="forbidden: list <!channel> events",
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert alerts.unreadable_check(now) == []
        made = alerts.unreadable_check(now + timedelta(minutes=11))
        alerts.unreadable_check(now + timedelta(minutes=40))
    assert len(made) == 1 and len(good.bodies) == 1
    # The reason is the cluster's own text: Slack and Teams show it, never act on it.
    assert "forbidden: list &lt;!channel&gt; events" in good.bodies[0]["text"]
    assert "<!channel>" not in good.bodies[0]["text"]
