"""/metrics: Prometheus' text format, read from the database at each scrape.

A custom collector, not process-global counters: the web processes do not see the
workers' work, the database does. Every sample about a cluster carries
``cluster="NAME"``. Readable with ``Authorization: Bearer <METRICS_TOKEN>``; open to all
only when an admin sets METRICS_OPEN=true.
"""

from __future__ import annotations

import hmac
from collections import Counter
from collections.abc import Iterator

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from clusters.models import Snapshot
from connected.health_metrics import ClusterHealthCollector
from connected.history.models import ObservedPreemption, SnapshotDigest
from connected.models import Cluster
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis

# victim_class of a class the cluster does not define now (or none).
OTHER = "other"


class DatabaseCollector(Collector):
    def collect(self) -> Iterator[Metric]:
        findings = GaugeMetricFamily(
            "preemptlab_findings",
            "Audit findings of the cluster's latest digested snapshot",
            labels=["cluster", "rule", "severity"],
        )
        age = GaugeMetricFamily(
            "preemptlab_snapshot_age_seconds",
            "Seconds since the cluster's latest ready snapshot was taken",
            labels=["cluster"],
        )
        pending = GaugeMetricFamily(
            "preemptlab_pending_pods",
            "Pods pending (no node) in the cluster's latest ready snapshot",
            labels=["cluster"],
        )
        now = timezone.now()
        # The classes each cluster defines now (its latest ready snapshot's): the only
        # values victim_class takes, so a cluster's events cannot grow the series.
        defined: dict[str, set[str]] = {}
        for cluster in Cluster.objects.order_by("name"):
            latest = (
                Snapshot.objects.filter(cluster=cluster, status="ready", taken_at__isnull=False)
                .order_by("-taken_at", "-id")
                .only("pk", "taken_at")
                .first()
            )
            if latest is None or latest.taken_at is None:
                continue
            defined[cluster.name] = set(latest.priority_classes.values_list("name", flat=True))
            age.add_metric([cluster.name], (now - latest.taken_at).total_seconds())
            pending.add_metric(
                [cluster.name], latest.pods.filter(phase="Pending", node_name="").count()
            )
            digest = (
                SnapshotDigest.objects.filter(snapshot__cluster=cluster)
                .order_by("-snapshot__taken_at")
                .only("findings")
                .first()
            )
            counts = Counter(
                (f["rule"], f["severity"]) for f in (digest.findings if digest else [])
            )
            for (rule, severity), n in sorted(counts.items()):
                findings.add_metric([cluster.name, rule, severity], n)
        preemptions = CounterMetricFamily(
            "preemptlab_preemptions",
            "Real preemptions read from the cluster's events, by the victim's class",
            labels=["cluster", "victim_class"],
        )
        by_class: Counter[tuple[str, str]] = Counter()
        for row in ObservedPreemption.objects.values("cluster__name", "victim_class").annotate(
            n=Count("id")
        ):
            name, victim_class = row["cluster__name"], row["victim_class"]
            known = victim_class in defined.get(name, set())
            by_class[(name, victim_class if known else OTHER)] += row["n"]
        for (name, victim_class), n in sorted(by_class.items()):
            preemptions.add_metric([name, victim_class], n)
        analyses = GaugeMetricFamily(
            "preemptlab_analyses", "Analyses queued, running or failed", labels=["status"]
        )
        by_status = dict(
            Analysis.objects.values_list("status").annotate(n=Count("id")).order_by("status")
        )
        for status in (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING, AnalysisStatus.FAILED):
            analyses.add_metric([str(status)], by_status.get(status, 0))
        yield from (findings, age, pending, preemptions, analyses)


def _allowed(request: HttpRequest) -> bool:
    if settings.METRICS_OPEN:
        return True
    token = str(settings.METRICS_TOKEN or "")
    given = request.headers.get("Authorization", "")
    scheme, _, value = given.partition(" ")
    if not token or scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(value.strip().encode(), token.encode())


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        response = HttpResponse(
            "A bearer token is needed.\n", status=401, content_type="text/plain"
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DatabaseCollector())
    registry.register(ClusterHealthCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
