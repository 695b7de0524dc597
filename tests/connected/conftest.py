"""A stand-in API server serving the demo cluster, and the workers' settings pointing at
it (CONNECTED_KUBECONFIG): the cluster "demo" is its context "fake". For the history: two
snapshots of one cluster (tests/connected/history_builders.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group

from connected.models import Cluster
from connected.services import cluster_create
from scheduling.running import cluster_cache
from tests.cli.conftest import DEMO
from tests.cli.fake_apiserver import FakeAPIServer
from tests.clusters.builders import small_cluster
from tests.conftest import PASSWORD
from tests.connected.history_builders import (
    MONDAY,
    TUESDAY,
    cluster_snapshot,
    later_objects,
    preempted_event,
)
from tests.scheduling.conftest import no_broker  # noqa: F401


def demo_objects() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(DEMO.read_text())["items"]
    return items


def event(reason: str, message: str, *, minutes_ago: float, name: str = "web-1") -> dict[str, Any]:
    at = (datetime.now(UTC) - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{name}.{reason.lower()}",
            "namespace": "default",
            "annotations": {"secret": "must not be kept"},
            "managedFields": [{"manager": "kube-scheduler"}],
        },
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": name, "uid": "u-1"},
        "related": {"kind": "Pod", "namespace": "default", "name": "batch-1", "uid": "u-2"},
        "reason": reason,
        "message": message,
        "source": {"component": "default-scheduler"},
        "firstTimestamp": at,
        "lastTimestamp": at,
        "count": 1,
        "type": "Normal",
    }


@pytest.fixture
def teammate(db: Any) -> Any:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("teammate", "teammate@example.com", PASSWORD)
    user.groups.add(Group.objects.get_or_create(name="platform")[0])
    return user


@pytest.fixture
def kube_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kubectl's discovery cache in this test's directory, not the user's home."""
    monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kube-cache"))


@pytest.fixture
def fake() -> FakeAPIServer:
    return FakeAPIServer(
        [
            *demo_objects(),
            event("Preempted", "Preempted by pod u-2 on node node-1", minutes_ago=5),
            event("Scheduled", "Successfully assigned default/old to node-2", minutes_ago=300),
        ]
    )


@pytest.fixture
def served(fake: FakeAPIServer, tmp_path: Path, settings: Any, kube_env: None) -> Iterator[Path]:
    """The stand-in server running, the workers' kubeconfig pointing at it."""
    with fake.running(tmp_path) as kubeconfig:
        settings.CONNECTED_KUBECONFIG = str(kubeconfig)
        settings.CONNECTED_READ_TIMEOUT = 20
        yield kubeconfig


@pytest.fixture
def demo_cluster(owner: Any, teammate: Any) -> Cluster:
    return cluster_create(
        name="demo",
        source="fake",
        owner=owner,
        schedule_seconds=900,
        keep=5,
        team=Group.objects.get(name="platform"),
        webhook_urls=["https://hooks.example/secret-path"],
    )


@pytest.fixture(autouse=True)
def _fresh_caches() -> Any:
    from planning.services import plan_cache_clear

    cluster_cache.cluster_cache_clear()
    plan_cache_clear()
    yield


@pytest.fixture
def cluster(owner: Any) -> Cluster:
    return Cluster.objects.create(name="prod", source="prod-context", owner=owner)


@pytest.fixture
def two_snapshots(cluster: Cluster, no_first_in_line: Any) -> tuple[Any, Any]:
    before = cluster_snapshot(cluster, small_cluster(), MONDAY)
    after = cluster_snapshot(cluster, later_objects(), TUESDAY, events=[preempted_event()])
    return before, after


@pytest.fixture
def no_first_in_line() -> Any:
    """Rankings stay queued: nothing is sent to a broker."""
    from unittest import mock

    with mock.patch("planning.tasks.first_in_line_run_task.delay") as delay:
        yield delay
