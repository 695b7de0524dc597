"""The /metrics a team alerts on beside the preemption counter (the monitoring component's
PrometheusRule has one alert per metric):

    preemptlab_cluster_read_failing{cluster}                      1: the last read failed
    preemptlab_cluster_last_read_success_timestamp_seconds{cluster}   unix time of it
    preemptlab_pdbs_at_zero{cluster}     PDBs of the newest snapshot allowing 0 disruptions
    preemptlab_workers_seen              workers that beat within
                                         PREEMPTLAB_WORKER_SEEN_SECONDS (none: nothing runs)

Read from the database at each scrape, as the rest of /metrics is."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from clusters.models import Snapshot
from connected.models import Cluster
from operations.models import WorkerHeartbeat


class ClusterHealthCollector(Collector):
    def collect(self) -> Iterator[Metric]:
        failing = GaugeMetricFamily(
            "preemptlab_cluster_read_failing",
            "1 when the cluster's last read failed (its page says why), else 0",
            labels=["cluster"],
        )
        last = GaugeMetricFamily(
            "preemptlab_cluster_last_read_success_timestamp_seconds",
            "Unix time of the cluster's last successful read",
            labels=["cluster"],
        )
        at_zero = GaugeMetricFamily(
            "preemptlab_pdbs_at_zero",
            "PodDisruptionBudgets of the cluster's newest snapshot allowing 0 disruptions",
            labels=["cluster"],
        )
        for cluster in Cluster.objects.order_by("name"):
            failing.add_metric([cluster.name], 1 if cluster.failing else 0)
            if cluster.last_success_at is not None:
                last.add_metric([cluster.name], cluster.last_success_at.timestamp())
            newest = (
                Snapshot.objects.filter(cluster=cluster, status="ready", taken_at__isnull=False)
                .order_by("-taken_at", "-id")
                .only("pk")
                .first()
            )
            if newest is not None:
                at_zero.add_metric(
                    [cluster.name], newest.pdbs.filter(disruptions_allowed__lte=0).count()
                )
        seen = GaugeMetricFamily(
            "preemptlab_workers_seen",
            "Workers whose heartbeat is within PREEMPTLAB_WORKER_SEEN_SECONDS",
        )
        since = timezone.now() - timedelta(seconds=settings.PREEMPTLAB_WORKER_SEEN_SECONDS)
        seen.add_metric([], WorkerHeartbeat.objects.filter(seen_at__gte=since).count())
        yield from (failing, last, at_zero, seen)
