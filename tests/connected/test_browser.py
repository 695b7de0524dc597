"""The cluster page in Debian's chromium, against a real worker on Redis and the stand-in
API server: "Take a snapshot now" shows the read under way, then the new snapshot; a
cluster that cannot be read says why, its snapshot still listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from connected.models import Cluster
from connected.services import cluster_create
from tests.cli.fake_apiserver import FakeAPIServer
from tests.conftest import WorkerFactory, browser_login

from .conftest import demo_objects

pytestmark = [pytest.mark.browser, pytest.mark.worker]


def test_take_a_snapshot_now_then_a_failing_read(
    live_server: Any,
    celery_worker_factory: WorkerFactory,
    page: Any,
    owner: Any,
    tmp_path: Path,
    settings: Any,
) -> None:
    settings.PREEMPTLAB_TAKE_NOW_SECONDS = 0  # two reads in a row, on purpose
    fake = FakeAPIServer(demo_objects())
    with fake.running(tmp_path) as kubeconfig:
        celery_worker_factory(
            env={"CONNECTED_KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(tmp_path / "kc")}
        )
        cluster = cluster_create(name="live", source="fake", owner=owner, schedule_seconds=3600)
        browser_login(page, live_server, "owner")
        page.set_viewport_size({"width": 1366, "height": 900})
        page.goto(f"{live_server.url}/clusters/")
        page.get_by_role("link", name="live").click()
        assert "No snapshot yet" in page.locator("#cluster-snapshots").inner_text()
        page.click("#take-snapshot")
        page.wait_for_selector("#cluster-reading")  # queued, then reading
        page.wait_for_selector("#cluster-snapshots tbody tr", timeout=60_000)
        assert page.locator("#cluster-reading").count() == 0
        assert "never" not in page.locator("#cluster-last-success").inner_text()
        assert fake.writes == []
        Cluster.objects.filter(pk=cluster.pk).update(source="gone")
        page.click("#take-snapshot")
        page.wait_for_selector("#cluster-last-failure", timeout=60_000)
        assert 'context "gone"' in page.locator("#cluster-last-failure").inner_text()
        assert page.locator("#cluster-snapshots tbody tr").count() == 1
