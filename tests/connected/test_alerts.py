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
from connected.history_models import AlertDelivery, ObservedPreemption
from connected.models import Cluster
from tests.clusters.builders import small_cluster
from tests.connected.history_builders import (
    MONDAY,
    TUESDAY,
    cluster_snapshot,
    later_objects,
    preempted_event,
)


class Receiver:
    """A webhook receiver: records each POST's JSON body and answers ``status``."""

    def __init__(self, port: int, status: int) -> None:
        self.bodies: list[dict[str, Any]] = []
        received = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                received.append(json.loads(self.rfile.read(length)))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks/secret-path"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receivers() -> Iterator[tuple[Receiver, Receiver]]:
    good, failing = Receiver(8893, 200), Receiver(8894, 500)
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
def test_a_new_error_and_a_critical_preemption_reach_each_receiver_once(
    cluster: Cluster,
    receivers: tuple[Receiver, Receiver],
    eager: None,
    settings: Any,
    no_first_in_line: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    good, failing = receivers
    settings.PREEMPTLAB_CRITICAL_CLASSES = ["low"]
    cluster.webhook_urls = [good.url, failing.url]
    cluster.save()
    cluster_snapshot(cluster, small_cluster(), MONDAY)
    after = cluster_snapshot(cluster, later_objects(), TUESDAY, events=[preempted_event()])
    with django_capture_on_commit_callbacks(execute=True):
        alerts.after_snapshot(after)
    kinds = sorted(b["kind"] for b in good.bodies)
    assert kinds == ["critical-preemption", "new-error"]
    by_kind = {b["kind"]: b for b in good.bodies}
    assert "missing-class on gone, shop/api" in by_kind["new-error"]["text"]
    assert by_kind["new-error"]["finding"]["rule"] == "missing-class"
    assert by_kind["critical-preemption"]["text"] == (
        "[prod] default/web-2 (low) was preempted by batch/urgent-1 on node node-b"
    )
    assert by_kind["critical-preemption"]["preemption"]["victim_class"] == "low"
    # The failing receiver was asked four times per alert, then listed as failed.
    assert len(failing.bodies) == 2 * 4
    failed = AlertDelivery.objects.filter(url=failing.url)
    assert {(d.status, d.http_status, d.attempts) for d in failed} == {("failed", 500, 4)}
    sent = AlertDelivery.objects.filter(url=good.url)
    assert {(d.status, d.http_status) for d in sent} == {("sent", 200)}
    # Again: nothing is sent twice.
    with django_capture_on_commit_callbacks(execute=True):
        alerts.after_snapshot(after)
    assert len(good.bodies) == 2
    assert ObservedPreemption.objects.count() == 1


@pytest.mark.django_db
def test_an_unreachable_receiver_never_fails_the_snapshots_follow_up(
    cluster: Cluster, eager: None, no_first_in_line: Any, django_capture_on_commit_callbacks: Any
) -> None:
    cluster.webhook_urls = ["http://127.0.0.1:8895/nobody-listens"]
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
