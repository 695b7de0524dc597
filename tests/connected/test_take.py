"""A cluster read through the real kubectl from the stand-in API server: a snapshot like an
upload, the events of the last hour scrubbed, no write; and every way a read can fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.utils.html import escape

from clusters.models import Snapshot
from connected.models import Cluster
from connected.services import cluster_snapshot_take
from tests.cli.fake_apiserver import FakeAPIServer

from .conftest import demo_objects, event

pytestmark = pytest.mark.django_db


def test_a_read_is_an_ingested_snapshot_of_the_owner_with_its_events(
    served: Path, fake: FakeAPIServer, demo_cluster: Cluster
) -> None:
    snapshot = cluster_snapshot_take(cluster_id=demo_cluster.pk)
    assert snapshot is not None and snapshot.is_ready
    assert snapshot.owner == demo_cluster.owner and snapshot.cluster == demo_cluster
    assert (snapshot.node_count, snapshot.pod_count) == (5, 22)
    # The hour's Preempted event is kept, the one of five hours ago is not.
    assert [e["reason"] for e in snapshot.events] == ["Preempted"]
    kept = snapshot.events[0]
    assert kept["message"] == "Preempted by pod u-2 on node node-1"
    assert kept["involved"] == {
        "kind": "Pod",
        "namespace": "default",
        "name": "web-1",
        "uid": "u-1",
    }
    assert kept["related"]["name"] == "batch-1" and kept["source"] == "default-scheduler"
    assert "must not be kept" not in str(snapshot.events) and "managedFields" not in str(kept)
    demo_cluster.refresh_from_db()
    assert demo_cluster.last_success_at is not None and not demo_cluster.failing
    assert demo_cluster.reading_since is None
    assert snapshot.taken_at is not None
    # Read-only: every request was a GET, and the lists and events were among them.
    assert fake.calls and fake.writes == []
    assert {m for m, _ in fake.calls} == {"GET"}
    paths = [p.split("?")[0] for _, p in fake.calls]
    assert "/api/v1/events" in paths and "/api/v1/pods" in paths


def test_hostile_event_text_is_cut_and_cleared(
    fake: FakeAPIServer, served: Path, demo_cluster: Cluster, owner_client: Any
) -> None:
    hostile = "<script>alert(1)</script>\x00" + "x" * 100_000
    fake.objects.append(event("FailedScheduling", hostile, minutes_ago=1, name="evil"))
    snapshot = cluster_snapshot_take(cluster_id=demo_cluster.pk)
    assert snapshot is not None
    evil = next(e for e in snapshot.events if e["involved"]["name"] == "evil")
    assert "\x00" not in evil["message"] and len(evil["message"]) == 2000
    page = owner_client.get(f"/clusters/{demo_cluster.pk}/")
    assert page.status_code == 200 and b"<script>alert(1)" not in page.content


def _good_then(demo_cluster: Cluster) -> Snapshot:
    good = cluster_snapshot_take(cluster_id=demo_cluster.pk)
    assert good is not None
    return good


def _assert_failed_keeping(
    demo_cluster: Cluster, good: Snapshot, owner_client: Any, *words: str
) -> None:
    assert cluster_snapshot_take(cluster_id=demo_cluster.pk) is None
    demo_cluster.refresh_from_db()
    assert demo_cluster.failing and demo_cluster.reading_since is None
    for word in words:
        assert word in demo_cluster.last_failure_reason, demo_cluster.last_failure_reason
    # Nothing lost, nothing replaced: the good snapshot alone, as it was.
    assert list(Snapshot.objects.filter(cluster=demo_cluster)) == [good]
    good.refresh_from_db()
    assert good.is_ready and good.pod_count == 22
    assert demo_cluster.last_success_at is not None
    page = owner_client.get(f"/clusters/{demo_cluster.pk}/")
    assert page.status_code == 200
    assert escape(demo_cluster.last_failure_reason[:40]).encode() in page.content
    assert owner_client.get(f"/api/clusters/{demo_cluster.pk}/").json()["failing"] is True


def test_a_forbidden_resource_is_named(
    fake: FakeAPIServer, served: Path, demo_cluster: Cluster, owner_client: Any
) -> None:
    good = _good_then(demo_cluster)
    fake.forbidden = {"events"}
    _assert_failed_keeping(demo_cluster, good, owner_client, "refused to list events")


def test_ten_megabytes_of_garbage_fail_the_read(
    fake: FakeAPIServer, served: Path, demo_cluster: Cluster, owner_client: Any
) -> None:
    good = _good_then(demo_cluster)
    fake.garbage = {"pods": 10 * 2**20}
    _assert_failed_keeping(demo_cluster, good, owner_client, "not Kubernetes JSON")


def test_a_cluster_that_does_not_answer_in_time(
    fake: FakeAPIServer, served: Path, demo_cluster: Cluster, owner_client: Any, settings: Any
) -> None:
    good = _good_then(demo_cluster)
    fake.delay, settings.CONNECTED_READ_TIMEOUT = 4, 1
    _assert_failed_keeping(demo_cluster, good, owner_client, "did not answer")


def test_an_unreachable_cluster(
    tmp_path: Path, settings: Any, kube_env: None, demo_cluster: Cluster, owner_client: Any
) -> None:
    with FakeAPIServer(demo_objects()).running(tmp_path) as kubeconfig:
        settings.CONNECTED_KUBECONFIG = str(kubeconfig)
        good = _good_then(demo_cluster)
    _assert_failed_keeping(demo_cluster, good, owner_client, "could not be reached")


def test_an_unknown_context(served: Path, demo_cluster: Cluster, owner_client: Any) -> None:
    good = _good_then(demo_cluster)
    Cluster.objects.filter(pk=demo_cluster.pk).update(source="elsewhere")
    _assert_failed_keeping(
        demo_cluster, good, owner_client, 'no usable kubectl context (context "elsewhere")'
    )


def test_objects_the_ingest_refuses_fail_the_read(
    fake: FakeAPIServer, served: Path, demo_cluster: Cluster, owner_client: Any
) -> None:
    good = _good_then(demo_cluster)
    fake.objects = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": ""}}]
    _assert_failed_keeping(demo_cluster, good, owner_client)


def test_a_read_under_way_is_not_started_twice(served: Path, demo_cluster: Cluster) -> None:
    from django.utils import timezone

    Cluster.objects.filter(pk=demo_cluster.pk).update(reading_since=timezone.now())
    assert cluster_snapshot_take(cluster_id=demo_cluster.pk) is None
    assert not Snapshot.objects.filter(cluster=demo_cluster).exists()


def test_openshifts_scheduler_profile_becomes_the_snapshots_configuration(
    fake: FakeAPIServer, served: Path, demo_cluster: Cluster
) -> None:
    fake.objects.append(
        {
            "apiVersion": "config.openshift.io/v1",
            "kind": "Scheduler",
            "metadata": {"name": "cluster"},
            "spec": {"profile": "HighNodeUtilization"},
        }
    )
    snapshot = cluster_snapshot_take(cluster_id=demo_cluster.pk)
    assert snapshot is not None
    assert snapshot.scheduler_preset == "openshift-high-node-utilization"
    assert snapshot.scheduler_origin.startswith("OpenShift's Scheduler profile")
    assert fake.writes == []
