"""Alerts about a connected cluster, sent to the webhooks staff set on it.

Sent on: a new error-severity finding; a real preemption of a victim whose class is
critical (kube's system-node-critical and system-cluster-critical, plus the classes named
in the setting PREEMPTLAB_CRITICAL_CLASSES); a cluster unreadable for an hour. Each alert
goes to each receiver once (AlertDelivery's key), as JSON holding ``text`` (what a Slack
or Teams incoming webhook shows) beside the details. A Celery task sends it with a timeout
and retries; a failing receiver never holds a snapshot, and every attempt's HTTP status is
kept for the cluster page.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from clusters.models import Snapshot
from connected.history_models import AlertDelivery
from connected.models import Cluster

log = logging.getLogger(__name__)

SYSTEM_CRITICAL = ("system-node-critical", "system-cluster-critical")
UNREADABLE_AFTER = timedelta(hours=1)
# Findings and preemptions one alert's text names before "and N more".
NAMED = 5


def critical_classes() -> frozenset[str]:
    return frozenset(SYSTEM_CRITICAL) | frozenset(
        getattr(settings, "PREEMPTLAB_CRITICAL_CLASSES", ()) or ()
    )


def slack_escape(text: str) -> str:
    """Slack's and Teams' text reads <...> as links and mentions: shown literally."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@dataclass(frozen=True)
class Alert:
    kind: str
    key: str
    text: str
    details: dict[str, Any]


def _lines(items: list[str]) -> str:
    shown = items[:NAMED]
    more = f"\n… and {len(items) - len(shown)} more" if len(items) > len(shown) else ""
    return "\n".join(f"• {slack_escape(i)}" for i in shown) + more


def drift_alerts(cluster: Cluster, drift: Any) -> list[Alert]:
    """The alerts a drift (connected.drift.Drift) raises."""
    alerts = []
    for f in drift.new_errors:
        alerts.append(
            Alert(
                "new-error",
                f"{f.rule}:{'|'.join(sorted(f.objects))}"[:500],
                f"[{slack_escape(cluster.name)}] new error: {_lines([f.short])[2:]}\n"
                f"{slack_escape(f.message[:500])}",
                {"finding": f.to_dict()},
            )
        )
    critical = critical_classes()
    hit = [p for p in drift.preemptions if p.victim_class in critical]
    for p in hit:
        alerts.append(
            Alert(
                "critical-preemption",
                f"{p.victim}:{p.victim_uid}:{p.preemptor_uid}"[:500],
                f"[{slack_escape(cluster.name)}] {slack_escape(p.victim)} "
                f"({slack_escape(p.victim_class or '')}) was preempted by "
                f"{slack_escape(p.preemptor or p.preemptor_uid)} on node {slack_escape(p.node)}",
                {"preemption": p.to_dict()},
            )
        )
    return alerts


def unreadable_alert(cluster: Cluster, now: Any = None) -> Alert | None:
    """The alert of a cluster whose reads have failed for an hour, once per outage."""
    now = now or timezone.now()
    if not cluster.failing:
        return None
    since = cluster.last_success_at or cluster.created
    if now - since < UNREADABLE_AFTER:
        return None
    reason = cluster.last_failure_reason[:300] or "no reason given"
    return Alert(
        "unreadable",
        f"since {since.isoformat()}",
        f"[{slack_escape(cluster.name)}] unreadable since {since:%Y-%m-%d %H:%M} UTC: "
        f"{slack_escape(reason)}",
        {"since": since.isoformat(), "reason": reason},
    )


def payload(cluster: Cluster, alert: Alert) -> dict[str, Any]:
    return {
        "text": alert.text,
        "cluster": cluster.name,
        "kind": alert.kind,
        "path": cluster.get_absolute_url(),
        **alert.details,
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
    from connected.history_tasks import alert_send_task

    try:
        alert_send_task.delay(delivery_id)
    except Exception:  # the broker away: the alert is listed as queued, never a failed snapshot
        log.warning("alert %s not sent to the broker", delivery_id, exc_info=True)


def after_snapshot(snapshot: Snapshot) -> None:
    """Call after each successful scheduled snapshot: a worker digests it, works out the
    drift against the one before and sends the alerts. Never raises."""
    from connected.history_tasks import snapshot_followup_task

    try:
        snapshot_followup_task.delay(snapshot.pk)
    except Exception:
        log.warning("follow-up of snapshot %s not queued", snapshot.pk, exc_info=True)


def snapshot_followup(snapshot: Snapshot) -> list[AlertDelivery]:
    """The digest of a new snapshot, its drift against the one before, the alerts."""
    from connected.history import cluster_drift, digest_snapshot, snapshot_before

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
