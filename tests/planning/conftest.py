"""Analyses to compare, run by the services the worker runs, on the demo snapshot."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from clusters.demo import demo_cat3_pod
from scheduling import services
from scheduling.models import Analysis
from tests.clusters.builders import make_deployment
from tests.engine.builders import make_pod

# The snapshots, the API client, the empty per-process caches and the broker left
# alone: as the scheduling tests have them.
from tests.scheduling.conftest import (  # noqa: F401
    _empty_cluster_cache,
    api,
    demo_snapshot,
    no_broker,
)


def demo_pod(name: str, priority_class: str, cpu: str = "1") -> dict[str, Any]:
    """The demo's orange pod, under another name, class and CPU request."""
    pod = copy.deepcopy(demo_cat3_pod())
    pod["metadata"]["name"] = name
    pod["spec"]["priorityClassName"] = priority_class
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu
    return pod


def deployment(name: str, replicas: int, priority_class: str = "cat-3") -> dict[str, Any]:
    """A Deployment of ``replicas`` pods of 1 CPU and 1 GiB in ``priority_class``."""
    pod = make_pod(name).priority_class(priority_class).req(cpu="1", memory="1Gi").obj()
    return make_deployment(name, pod["spec"], replicas=replicas)


def urgent(name: str, cpu: str) -> dict[str, Any]:
    """A pending pod of class "high" (1000) asking for ``cpu``."""
    return make_pod(name).priority_class("high").req(cpu=cpu).obj()


def run_pod(snapshot: Any, pod: dict[str, Any]) -> Analysis:
    """A single-pod what-if queued and run as the worker runs it."""
    queued = services.analysis_create(snapshot=snapshot, pod=pod)
    return services.analysis_run(analysis_id=queued.pk)


def run_workload(snapshot: Any, objects: list[dict[str, Any]], **options: Any) -> Analysis:
    queued = services.analysis_create_workload(snapshot=snapshot, objects=objects, **options)
    return services.analysis_run(analysis_id=queued.pk)


@pytest.fixture
def pair(no_broker: Any, demo_snapshot: Any) -> tuple[Analysis, Analysis]:  # noqa: F811
    """A: the demo's cat-3 pod of 1 CPU (it preempts one cat-1 pod on node-5);
    B: a cat-2 pod of 2 CPUs (two cat-1 pods on node-5 make its room)."""
    return (
        run_pod(demo_snapshot, demo_pod("orange-0", "cat-3")),
        run_pod(demo_snapshot, demo_pod("orange-1", "cat-2", cpu="2")),
    )


@pytest.fixture
def rankings_eager() -> Any:
    """The answers' contents, here: Celery's eager mode (CELERY_TASK_ALWAYS_EAGER) runs
    the ranking's task in the asking process, so a first ask answers 200. How a real
    worker takes it while the web process answers 202 is tests/planning/
    test_first_in_line_worker.py's."""
    from config.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = eager
