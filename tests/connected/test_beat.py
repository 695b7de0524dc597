"""A real `celery beat` with the DatabaseScheduler and a real worker take a cluster's
snapshots on its own schedule; beat stopped and started again keeps the schedule."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import close_old_connections

from clusters.models import Snapshot
from config.celery import app
from connected.models import Cluster
from connected.services import cluster_create
from tests.cli.fake_apiserver import FakeAPIServer
from tests.conftest import ROOT, WorkerFactory, _database_url_for_subprocess

from .conftest import demo_objects

pytestmark = pytest.mark.worker


@pytest.fixture
def beat(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], subprocess.Popen[str]]]:
    """Starts `celery beat -S django_celery_beat.schedulers:DatabaseScheduler` on the test
    database, sending to the queue of the last worker started."""
    started: list[subprocess.Popen[str]] = []

    def start(env: dict[str, str]) -> subprocess.Popen[str]:
        log = tmp_path / f"beat-{len(started)}.log"
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "config", "beat",
                "-S", "django_celery_beat.schedulers:DatabaseScheduler", "--loglevel=INFO",
                "--pidfile=", f"--schedule={tmp_path / 'beat-schedule'}",
            ],
            cwd=ROOT,
            env=env,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=20)


def _wait_for(count: int, cluster: Cluster, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        close_old_connections()
        ready = Snapshot.objects.filter(cluster=cluster, status="ready").count()
        if ready >= count:
            return ready
        time.sleep(0.5)
    return Snapshot.objects.filter(cluster=cluster, status="ready").count()


def test_beat_takes_snapshots_on_the_schedule_and_keeps_it_across_a_restart(
    celery_worker_factory: WorkerFactory,
    beat: Callable[[dict[str, str]], subprocess.Popen[str]],
    owner: Any,
    tmp_path: Path,
) -> None:
    fake = FakeAPIServer(demo_objects())
    with fake.running(tmp_path) as kubeconfig:
        kube = {"CONNECTED_KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(tmp_path / "kc")}
        celery_worker_factory(env=kube)
        cluster = cluster_create(
            name="demo", source="fake", owner=owner, schedule_seconds=2, keep=100
        )
        env = {
            **os.environ,
            **kube,
            "DATABASE_URL": _database_url_for_subprocess(),
            "REDIS_URL": str(app.conf.broker_url),
            "CELERY_QUEUE": str(app.conf.task_default_queue),
            "PREEMPTLAB_CLUSTER_READS_QUEUE": settings.PREEMPTLAB_CLUSTER_READS_QUEUE,
            "PREEMPTLAB_ALERTS_QUEUE": settings.PREEMPTLAB_ALERTS_QUEUE,
            "DEBUG": "1",
        }
        env.pop("TEST_DB_NAME", None)
        first = beat(env)
        assert _wait_for(2, cluster, timeout=60) >= 2, (tmp_path / "beat-0.log").read_text()
        first.terminate()
        first.wait(timeout=20)
        close_old_connections()
        before = Snapshot.objects.filter(cluster=cluster).count()
        beat(env)  # started again: the schedule is the database's, nothing to redo
        assert _wait_for(before + 1, cluster, timeout=60) > before
    taken = [s.taken_at for s in Snapshot.objects.filter(cluster=cluster).order_by("taken_at")]
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(taken) if a and b]
    assert gaps and min(gaps) >= 1, gaps  # on the schedule, not all at once
    assert fake.writes == []
    cluster.refresh_from_db()
    assert cluster.last_success_at is not None and not cluster.failing
