"""Celery tasks of a cluster's history: a new snapshot's follow-up (digest, drift,
alerts), the look (every minute) for unreadable clusters, and one alert's delivery."""

from __future__ import annotations

import json
import logging
from typing import Any

import requests
from celery import Task, shared_task
from django.conf import settings
from django.utils import timezone

from clusters.models import Snapshot
from connected import alerts
from connected.history.models import AlertDelivery
from connected.models import Cluster
from connected.signing import signed_headers
from connected.webhooks import ReceiverRefused, failure_class, receiver_check, status_class

log = logging.getLogger(__name__)

# Seconds a receiver has to answer; attempts before an alert is listed as failed.
ALERT_TIMEOUT = 10
ALERT_ATTEMPTS = 4


@shared_task(name=alerts.SNAPSHOT_FOLLOWUP_TASK, ignore_result=True)
def snapshot_followup_task(snapshot_id: int) -> int:
    snapshot = Snapshot.objects.defer("events").filter(pk=snapshot_id, status="ready").first()
    if snapshot is None:
        return 0
    return len(alerts.snapshot_followup(snapshot))


@shared_task(name="connected.snapshot_digest", ignore_result=True)
def snapshot_digest_task(snapshot_id: int) -> str:
    """A snapshot's digest alone (a page found it missing): no alert."""
    from connected.history.services import digest_snapshot

    snapshot = Snapshot.objects.defer("events").filter(pk=snapshot_id, status="ready").first()
    if snapshot is not None:
        digest_snapshot(snapshot)
    return "done"


@shared_task(name="connected.unreadable_check", ignore_result=True)
def unreadable_check_task() -> int:
    return len(alerts.unreadable_check())


class ReceiverFailed(Exception):
    pass


@shared_task(
    bind=True,
    name=alerts.ALERT_SEND_TASK,
    ignore_result=True,
    max_retries=ALERT_ATTEMPTS - 1,
    soft_time_limit=ALERT_TIMEOUT * 3,
)
def alert_send_task(self: Task[Any, Any], delivery_id: int) -> str:
    delivery = AlertDelivery.objects.filter(pk=delivery_id).first()
    if delivery is None or delivery.status == AlertDelivery.Status.SENT:
        return "gone"
    try:
        alert_send(delivery)
    except ReceiverFailed as exc:
        if self.request.retries + 1 >= ALERT_ATTEMPTS:
            delivery.status = AlertDelivery.Status.FAILED
            delivery.save(update_fields=["status"])
            return "failed"
        delay = getattr(settings, "PREEMPTLAB_ALERT_RETRY_SECONDS", 30) * 2**self.request.retries
        raise self.retry(exc=exc, countdown=delay) from exc
    return "sent"


def alert_send(delivery: AlertDelivery) -> None:
    """One attempt: POST the payload; a 2xx marks it sent, anything else raises
    ReceiverFailed after recording the status or the error."""
    delivery.attempts += 1
    # Signed over the exact bytes sent, with this attempt's time (connected/signing.py).
    body = json.dumps(delivery.payload, ensure_ascii=False).encode()
    secret = Cluster.objects.values_list("webhook_secret", flat=True).get(pk=delivery.cluster_id)
    try:
        # Judged again at each send: the host may resolve elsewhere than at save.
        receiver_check(delivery.url)
        response = requests.post(
            delivery.url,
            data=body,
            timeout=ALERT_TIMEOUT,
            allow_redirects=False,
            headers={
                "User-Agent": "preemptlab-alerts",
                "Content-Type": "application/json",
                **signed_headers(secret, body),
            },
        )
    except (requests.RequestException, ReceiverRefused) as e:
        # Its class only: the library's text quotes the URL, whose path is a secret.
        delivery.error = failure_class(e)
        delivery.http_status = None
        delivery.save(update_fields=["attempts", "error", "http_status"])
        raise ReceiverFailed(delivery.error) from None
    delivery.http_status = response.status_code
    if 200 <= response.status_code < 300:
        delivery.status = AlertDelivery.Status.SENT
        delivery.sent_at = timezone.now()
        delivery.error = ""
        delivery.save(update_fields=["attempts", "http_status", "status", "sent_at", "error"])
        return
    delivery.error = status_class(response.status_code)
    delivery.save(update_fields=["attempts", "http_status", "error"])
    raise ReceiverFailed(delivery.error)
