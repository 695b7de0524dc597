"""Snapshots to ask what-ifs of, built through the snapshots app's own services."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from rest_framework.test import APIClient

from clusters.demo import demo_cat3_pod, demo_objects
from clusters.services import snapshot_create_from_objects, snapshot_load_demo
from scheduling.analyses import rendered_cache
from scheduling.running import cluster_cache


@pytest.fixture(autouse=True)
def _empty_cluster_cache() -> Any:
    # Both caches are per process and keyed by row ids, which a rolled-back test
    # database (SQLite above all) hands out again: each test starts with them empty.
    cluster_cache.cluster_cache_clear()
    rendered_cache.rendered_clear()
    yield
    cluster_cache.cluster_cache_clear()
    rendered_cache.rendered_clear()


@pytest.fixture
def demo_snapshot(owner: Any) -> Any:
    return snapshot_load_demo(owner=owner)


@pytest.fixture
def cat3_pod() -> dict[str, Any]:
    return demo_cat3_pod()


@pytest.fixture
def api(owner: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(owner)
    return c


@pytest.fixture
def no_broker() -> Any:
    """Analyses stay queued (their task is run in-process by the test, as the worker
    would): nothing is sent to a broker."""
    with mock.patch("scheduling.tasks.analysis_run_task.delay") as delay:
        yield delay


def make_snapshot(owner: Any, objects: Any, name: str = "snap") -> Any:
    return snapshot_create_from_objects(owner=owner, name=name, objects=objects, run_async=False)


__all__ = ["demo_objects", "make_snapshot"]
