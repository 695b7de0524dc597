"""Alerts about a connected cluster, sent to the webhooks staff set on it.

Sent on what the cluster's rules say (connected/alert_rules.py: a real preemption of a
victim at or above a priority, a PDB at 0 allowed disruptions, a new finding of a
severity, reads failing for a while). Each alert goes to each receiver once
(AlertDelivery's key), as JSON: ``{cluster, rule, kind, text, url, facts}``, ``text``
one line a Slack or Teams incoming webhook shows as is, ``url`` absolute
(PREEMPTLAB_BASE_URL); each POST signed with the cluster's webhook secret
(connected/signing.py). A Celery task sends it with a timeout and retries; a failing
receiver never holds a snapshot, and every attempt's HTTP status is kept for the cluster
page.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from clusters.models import Snapshot
from connected import alert_rules
from connected.alert_rules import Alert, slack_escape
from connected.history.models import AlertDelivery
from connected.models import Cluster
from operations.faults import task_named

log = logging.getLogger(__name__)

# The Celery tasks this module enqueues, by name (connected.history.tasks registers them
# and imports this module to run them): one alert's delivery, a new snapshot's follow-up.
ALERT_SEND_TASK = "connected.alert_send"
SNAPSHOT_FOLLOWUP_TASK = "connected.snapshot_followup"

__all__ = ["Alert", "slack_escape"]


def critical_classes() -> frozenset[str]:
    """The classes PREEMPTLAB_CRITICAL_CLASSES marks critical beside every *-critical one."""
    return frozenset(getattr(settings, "PREEMPTLAB_CRITICAL_CLASSES", ()) or ())


def drift_alerts(cluster: Cluster, drift: Any) -> list[Alert]:
    """The alerts a drift (connected.drift.Drift) raises under the cluster's rules."""
    rules = alert_rules.rules_of(cluster.alert_rules)
    return alert_rules.drift_alerts(cluster.name, rules, drift, critical_classes())


def unreadable_alert(cluster: Cluster, now: Any = None) -> Alert | None:
    """The alert of a cluster whose reads have failed for as long as its rule says."""
    return alert_rules.unreadable_alert(
        cluster.name,
        alert_rules.rules_of(cluster.alert_rules),
        failing=cluster.failing,
        since=cluster.last_success_at or cluster.created,
        reason=cluster.last_failure_reason,
        now=now or timezone.now(),
    )


def absolute_url(path: str) -> str:
    """A link people open from a chat tool: PREEMPTLAB_BASE_URL and the path."""
    return str(settings.PREEMPTLAB_BASE_URL).rstrip("/") + path


def payload(cluster: Cluster, alert: Alert) -> dict[str, Any]:
    url = absolute_url(cluster.get_absolute_url())
    return {
        "cluster": cluster.name,
        "rule": alert.rule,
        "kind": alert.kind,
        "text": f"{alert.text}. {url}",
        "url": url,
        "facts": alert.details,
    }


def alerts_queue(cluster: Cluster, alerts: Iterable[Alert]) -> list[AlertDelivery]:
    """One delivery per alert and receiver not sent before, each task sent after commit."""
    made = []
    for alert in alerts:
        for url in cluster.webhook_urls or []:
            try:
                with transaction.atomic():
                    delivery = AlertDelivery.objects.create(
                        cluster=cluster,
                        kind=alert.kind,
                        key=alert.key,
                        url=url,
                        text=alert.text,
                        payload=payload(cluster, alert),
                    )
            except IntegrityError:
                continue  # this receiver has had it
            made.append(delivery)
            transaction.on_commit(partial(_publish, delivery.pk))
    return made


def _publish(delivery_id: int) -> None:
    try:
        task_named(ALERT_SEND_TASK).delay(delivery_id)
    except Exception:  # the broker away: the alert is listed as queued, never a failed snapshot
        log.warning("alert %s not sent to the broker", delivery_id, exc_info=True)


def after_snapshot(snapshot: Snapshot) -> None:
    """Call after each successful scheduled snapshot: a worker digests it, works out the
    drift against the one before and sends the alerts. Never raises."""
    try:
        task_named(SNAPSHOT_FOLLOWUP_TASK).delay(snapshot.pk)
    except Exception:
        log.warning("follow-up of snapshot %s not queued", snapshot.pk, exc_info=True)


def snapshot_followup(snapshot: Snapshot) -> list[AlertDelivery]:
    """The digest of a new snapshot, its drift against the one before, the alerts."""
    from connected.history.services import cluster_drift, digest_snapshot, snapshot_before

    digest_snapshot(snapshot)
    before = snapshot_before(snapshot)
    if before is None or snapshot.cluster is None:
        return []
    answer = cluster_drift(before, snapshot)
    return alerts_queue(snapshot.cluster, drift_alerts(snapshot.cluster, answer.drift))


def unreadable_check(now: Any = None) -> list[AlertDelivery]:
    """Every cluster unreadable for an hour gets its alert (once per outage)."""
    made = []
    for cluster in Cluster.objects.exclude(last_failure_at=None):
        alert = unreadable_alert(cluster, now)
        if alert is not None:
            made += alerts_queue(cluster, [alert])
    return made
