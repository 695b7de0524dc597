"""The whole way, as a platform team meets it: a stand-in API server serves the demo
cluster, then the same cluster changed (a class added, a PDB at 0 allowed disruptions, a
pod naming a deleted class, a real Preempted event); two reads through kubectl, and the
drift, the alert at a webhook receiver on this machine and /metrics say so. The stand-in
server saw no write."""

from __future__ import annotations

import copy
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from rest_framework.test import APIClient

from connected.models import Cluster
from connected.services import cluster_snapshot_take
from tests.cli.fake_apiserver import FakeAPIServer
from tests.clusters.builders import make_pod, make_priority_class
from tests.connected.conftest import demo_objects
from tests.connected.test_alerts import Receiver, eager  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake() -> FakeAPIServer:
    return FakeAPIServer(demo_objects())


def _victim(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return next(
        o for o in objects if o["kind"] == "Pod" and o["spec"].get("priorityClassName") == "cat-1"
    )


def _changed(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cluster a moment later, and kube-scheduler's event of what it did."""
    items = copy.deepcopy(objects)
    victim = _victim(items)
    items.remove(victim)
    node = victim["spec"]["nodeName"]
    for o in items:
        if o["kind"] == "PodDisruptionBudget" and o["metadata"]["name"] == "red-pdb":
            o["status"]["disruptionsAllowed"] = 0
    urgent = make_pod("urgent-1", namespace="batch", node=node, priority_class="batch-high")
    urgent["metadata"]["uid"] = "uid-urgent-1"
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "victim.preempted", "namespace": victim["metadata"]["namespace"]},
        "involvedObject": {
            "kind": "Pod",
            "namespace": victim["metadata"]["namespace"],
            "name": victim["metadata"]["name"],
            "uid": victim["metadata"]["uid"],
        },
        "related": {"kind": "Pod", "namespace": "batch", "name": "urgent-1", "uid": "uid-urgent-1"},
        "reason": "Preempted",
        "message": f"Preempted by pod uid-urgent-1 on node {node}",
        "source": {"component": "default-scheduler"},
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
        "type": "Normal",
    }
    return [
        *items,
        make_priority_class("batch-high", 25_000),
        urgent,
        make_pod("api", namespace="shop", node="node-2", priority_class="gone"),
        event,
    ]


def test_two_reads_drift_alert_and_metrics(
    served: Path,
    fake: FakeAPIServer,
    demo_cluster: Cluster,
    eager: None,  # noqa: F811
    settings: Any,
    client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.PREEMPTLAB_CRITICAL_CLASSES = ["cat-1"]
    settings.METRICS_TOKEN = "scrape"
    # The receiver listens on loopback: listed as allowed.
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    receiver = Receiver(200)
    try:
        Cluster.objects.filter(pk=demo_cluster.pk).update(webhook_urls=[receiver.url])
        victim = _victim(fake.objects)
        victim_key = f"{victim['metadata']['namespace']}/{victim['metadata']['name']}"
        with django_capture_on_commit_callbacks(execute=True):
            first = cluster_snapshot_take(cluster_id=demo_cluster.pk)
        assert first is not None and receiver.bodies == []  # nothing to compare with yet
        time.sleep(1.1)  # the event happens after the first read
        fake.objects = _changed(fake.objects)
        with django_capture_on_commit_callbacks(execute=True):
            second = cluster_snapshot_take(cluster_id=demo_cluster.pk)
        assert second is not None and second.is_ready
    finally:
        receiver.close()

    api = APIClient()
    api.force_authenticate(demo_cluster.owner)
    body = api.get(f"/api/clusters/{demo_cluster.pk}/drift/").data
    assert (body["from"], body["to"]) == (first.pk, second.pk)
    assert [c["name"] for c in body["classes"]["added"]] == ["batch-high"]
    assert {"rule": "missing-class", "severity": "error"}.items() <= body["findings"]["new"][
        0
    ].items()
    assert body["pdbs_at_zero"] == [{"pdb": "default/red-pdb", "from": 1, "to": 0}]
    assert [(p["victim"], p["preemptor"], p["victim_class"]) for p in body["preemptions"]] == [
        (victim_key, "batch/urgent-1", "cat-1")
    ]
    assert "class batch-high added above cat-2" in body["sentence"]

    # The default rules: cat-1 is marked critical, so the lowest critical class.
    kinds = sorted(b["kind"] for b in receiver.bodies)
    assert kinds == ["finding", "pdb-at-zero", "preemption"], receiver.bodies
    assert any(victim_key in b["text"] for b in receiver.bodies)

    scraped = client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape").content.decode()
    findings = {
        (s.labels["cluster"], s.labels["rule"], s.labels["severity"]): s.value
        for family in text_string_to_metric_families(scraped)
        if family.name == "preemptlab_findings"
        for s in family.samples
    }
    assert findings[("demo", "missing-class", "error")] == 1
    assert fake.writes == []
