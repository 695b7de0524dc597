"""/metrics: Prometheus' text read from the database, parsed by prometheus_client's own
parser; a bearer token, or open only when an admin says so."""

from __future__ import annotations

from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from connected.history.services import digest_snapshot

TOKEN = "metrics-token-for-tests"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


@pytest.mark.django_db
def test_metrics_hold_the_finding_the_preemption_and_the_age_per_cluster(
    two_snapshots: Any, client: Any, settings: Any
) -> None:
    settings.METRICS_TOKEN = TOKEN
    _, after = two_snapshots
    digest_snapshot(after)
    got = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert got.status_code == 200
    assert got["Content-Type"].startswith("text/plain; version=")
    found = samples(got.content.decode())
    finding = ("cluster", "prod"), ("rule", "missing-class"), ("severity", "error")
    assert found[("preemptlab_findings", finding)] == 1
    assert (
        found[("preemptlab_preemptions_total", (("cluster", "prod"), ("victim_class", "low")))] == 1
    )
    assert found[("preemptlab_pending_pods", (("cluster", "prod"),))] == 1  # job-1
    assert found[("preemptlab_snapshot_age_seconds", (("cluster", "prod"),))] > 0
    assert ("preemptlab_analyses", (("status", "queued"),)) in found


@pytest.mark.django_db
@pytest.mark.parametrize(
    "header", [None, "Bearer wrong", f"Token {TOKEN}", f"Bearer {TOKEN}x", "Bearer "]
)
def test_metrics_answer_401_without_the_token(
    client: Any, settings: Any, header: str | None
) -> None:
    settings.METRICS_TOKEN = TOKEN
    extra = {"HTTP_AUTHORIZATION": header} if header is not None else {}
    got = client.get("/metrics", **extra)
    assert got.status_code == 401
    assert got["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.django_db
def test_no_token_set_means_closed_unless_an_admin_opens_it(client: Any, settings: Any) -> None:
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 401
    settings.METRICS_OPEN = True
    got = client.get("/metrics")
    assert got.status_code == 200
    assert "preemptlab_analyses" in got.content.decode()


@pytest.mark.django_db
def test_victim_classes_are_the_clusters_own_else_other(
    two_snapshots: Any, client: Any, settings: Any
) -> None:
    """Events naming 300 classes the cluster does not define make one series, not 300."""
    from connected.history.models import ObservedPreemption

    settings.METRICS_TOKEN = TOKEN
    _, after = two_snapshots
    digest_snapshot(after)
    (real,) = ObservedPreemption.objects.all()
    for i in range(300):
        ObservedPreemption.objects.create(
            cluster=real.cluster,
            snapshot=real.snapshot,
            at=real.at,
            victim=f"default/p-{i}",
            victim_uid=f"u-{i}",
            victim_class=f"made-up-{i}",
            preemptor_uid=f"q-{i}",
        )
    found = samples(client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode())
    series = {labels for name, labels in found if name == "preemptlab_preemptions_total"}
    assert series == {
        (("cluster", "prod"), ("victim_class", "low")),
        (("cluster", "prod"), ("victim_class", "other")),
    }
    assert (
        found[("preemptlab_preemptions_total", (("cluster", "prod"), ("victim_class", "other")))]
        == 300
    )


def test_metrics_say_a_read_failing_its_last_success_the_pdbs_at_zero_and_the_workers(
    two_snapshots: Any, client: Any, settings: Any
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from connected.models import Cluster
    from operations.heartbeat import beat

    settings.METRICS_TOKEN = TOKEN
    _, after = two_snapshots
    cluster = after.cluster
    label = (("cluster", cluster.name),)

    def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        got = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
        assert got.status_code == 200
        return samples(got.content.decode())

    found = scrape()
    # The newest snapshot's PDBs at 0 (web-pdb), counted from the snapshot itself.
    expected = after.pdbs.filter(disruptions_allowed=0).count()
    assert expected == 1 and found[("preemptlab_pdbs_at_zero", label)] == expected
    assert found[("preemptlab_cluster_read_failing", label)] == 0
    assert ("preemptlab_cluster_last_read_success_timestamp_seconds", label) not in found
    assert found[("preemptlab_workers_seen", ())] == 0
    now = timezone.now()
    Cluster.objects.filter(pk=cluster.pk).update(
        last_success_at=now - timedelta(minutes=5), last_failure_at=now
    )
    beat("alive@host")
    found = scrape()
    assert found[("preemptlab_cluster_read_failing", label)] == 1
    last = found[("preemptlab_cluster_last_read_success_timestamp_seconds", label)]
    assert abs(last - (now - timedelta(minutes=5)).timestamp()) < 1
    assert found[("preemptlab_workers_seen", ())] == 1


def test_every_metric_the_prometheus_rule_alerts_on_is_one_metrics_serves() -> None:
    """The monitoring component's PrometheusRule names only metrics /metrics has."""
    import re
    from pathlib import Path

    import yaml

    from connected.health_metrics import ClusterHealthCollector
    from connected.metrics import DatabaseCollector

    rule = Path(__file__).resolve().parents[2] / "deploy/kubernetes/components/monitoring"
    spec = yaml.safe_load((rule / "prometheusrule.yaml").read_text())["spec"]
    named = {
        m
        for g in spec["groups"]
        for r in g["rules"]
        for m in re.findall(r"preemptlab_\w+", r["expr"])
    }
    served = set()
    for collector in (DatabaseCollector, ClusterHealthCollector):
        source = Path(__import__(collector.__module__, fromlist=["x"]).__file__ or "").read_text()
        served |= set(re.findall(r'"(preemptlab_\w+)"', source))
    # A counter family's samples end in _total.
    served |= {f"{m}_total" for m in served}
    assert named and named <= served, named - served
