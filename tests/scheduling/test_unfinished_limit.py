"""One user's unfinished work (analyses queued or running, snapshots ingesting) is capped,
uploads included, and the cap holds under parallel submissions: the count and the new
row are one step under a lock on the user."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from clusters import models as cluster_models
from clusters.demo import demo_cat3_pod
from clusters.services import UploadedFile, snapshot_create, snapshot_delete
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis, StoppingRun
from scheduling.running.budgets import TooManyUnfinished, check_unfinished
from scheduling.services import analysis_create
from tests.clusters.builders import as_list, dump, make_node
from tests.config.served import ROOT, _free_port
from tests.conftest import _database_url_for_subprocess


def _nodes_json() -> bytes:
    return dump([make_node("node-a")])


@pytest.mark.django_db
def test_an_upload_beyond_the_limit_is_a_429_and_stores_nothing(
    owner: Any, stranger: Any, settings: Any, client: Any
) -> None:
    settings.PREEMPTLAB_UNFINISHED_PER_USER = 2
    for i in range(2):  # two ingests waiting for a worker: two unfinished pieces of work
        snapshot_create(
            owner=owner,
            name=f"queued {i}",
            files=[UploadedFile("n.json", _nodes_json())],
            run_async=True,
        )
    api = APIClient()
    api.force_authenticate(owner)
    r = api.post(
        "/api/snapshots/",
        {"files": [SimpleUploadedFile("n.json", _nodes_json())]},
        format="multipart",
    )
    assert r.status_code == 429, r.content
    assert "PREEMPTLAB_UNFINISHED_PER_USER" in r.json()["detail"] and int(r["Retry-After"]) > 0
    r = api.post("/api/snapshots/", {"objects": as_list([make_node("node-b")])}, format="json")
    assert r.status_code == 429
    assert cluster_models.Snapshot.objects.count() == 2
    assert not cluster_models.SnapshotUpload.objects.exclude(
        snapshot__name__startswith="queued"
    ).exists()

    client.force_login(owner)
    r = client.post("/snapshots/new/", {"files": [SimpleUploadedFile("n.json", _nodes_json())]})
    assert r.status_code == 429 and "one user may have at once" in r.content.decode()
    assert cluster_models.Snapshot.objects.count() == 2

    # Another user uploads as before.
    api.force_authenticate(stranger)
    r = api.post("/api/snapshots/", {"objects": as_list([make_node("node-c")])}, format="json")
    assert r.status_code == 201, r.content


@pytest.mark.django_db
def test_ingesting_snapshots_count_against_what_ifs(
    owner: Any, demo_snapshot: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_UNFINISHED_PER_USER = 1
    snapshot_create(
        owner=owner, name="queued", files=[UploadedFile("n.json", _nodes_json())], run_async=True
    )
    api = APIClient()
    api.force_authenticate(owner)
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"pod": demo_cat3_pod()}, format="json"
    )
    assert r.status_code == 429 and not Analysis.objects.exists()


@pytest.mark.django_db
def test_a_queued_first_in_line_ranking_counts_against_what_ifs_and_uploads(
    owner: Any, demo_snapshot: Any, settings: Any
) -> None:
    """One count for every kind of work: a ranking waiting for a worker holds the place a
    what-if or an upload would take."""
    from planning.models import FirstInLineRanking

    settings.PREEMPTLAB_UNFINISHED_PER_USER = 1
    FirstInLineRanking.objects.create(
        snapshot=demo_snapshot,
        cpu_millis=1000,
        memory_bytes=2**31,
        limit=50,
        status=AnalysisStatus.QUEUED,
        requested_by=owner,
    )
    api = APIClient()
    api.force_authenticate(owner)
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"pod": demo_cat3_pod()}, format="json"
    )
    assert r.status_code == 429 and "first-in-line rankings" in r.json()["detail"]
    r = api.post("/api/snapshots/", {"objects": as_list([make_node("node-b")])}, format="json")
    assert r.status_code == 429
    assert not Analysis.objects.exists()
    # Done, it holds nothing.
    FirstInLineRanking.objects.update(status=AnalysisStatus.DONE)
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"pod": demo_cat3_pod()}, format="json"
    )
    assert r.status_code == 202, r.content


@pytest.fixture
def gunicorn(transactional_db: Any, tmp_path: Path) -> Iterator[str]:
    """The app under gunicorn with three workers of ten threads each, on the test database, its
    limit 4; the URL it serves."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "TEST_DB_NAME")}
    env |= {
        "DEBUG": "1",
        "DATABASE_URL": _database_url_for_subprocess(),
        "REDIS_URL": "",  # the embedded broker, in a directory of this test's own
        "PREEMPTLAB_VAR_DIR": str(tmp_path),
        "PREEMPTLAB_UNFINISHED_PER_USER": "4",
    }
    proc = subprocess.Popen(
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "config.wsgi",
            "-w",
            "3",
            "--threads",
            "10",
            "-b",
            f"127.0.0.1:{port}",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, "gunicorn exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not listen"
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
    and not settings.DATABASES["default"].get("TEST", {}).get("NAME"),
    reason="gunicorn's processes cannot share an in-memory SQLite database; the "
    "PostgreSQL pass runs it (and SQLite with a TEST NAME file)",
)
def test_thirty_parallel_submissions_accept_at_most_the_limit(
    gunicorn: str, owner: Any, demo_snapshot: Any
) -> None:
    """Thirty threads POST a what-if at once to three gunicorn workers, each request with
    its own database connection on PostgreSQL (or the SQLite file)."""
    token = Token.objects.create(user=owner).key
    url = f"{gunicorn}/api/snapshots/{demo_snapshot.pk}/analyses/"
    body = json.dumps({"pod": demo_cat3_pod()}).encode()
    start = threading.Barrier(30)

    def post(_: int) -> int:
        request = urllib.request.Request(
            url,
            data=body,
            method="POST",
            headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        )
        start.wait()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return int(response.status)
        except urllib.error.HTTPError as err:
            return int(err.code)

    with ThreadPoolExecutor(max_workers=30) as pool:
        codes = list(pool.map(post, range(30)))
    assert codes.count(202) == 4, codes
    assert set(codes) == {202, 429}, codes
    assert Analysis.objects.filter(snapshot__owner=owner).count() == 4


@pytest.mark.django_db
def test_a_snapshot_deleted_under_a_running_analysis_keeps_the_slot_for_the_window_at_most(
    owner: Any, demo_snapshot: Any, settings: Any
) -> None:
    """A run whose worker died along with its row never says it stopped: its slot comes
    back once no run could still be going (the analysis budget, then a lease)."""
    settings.PREEMPTLAB_UNFINISHED_PER_USER = 1
    analysis = analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod())
    Analysis.objects.filter(pk=analysis.pk).update(status=AnalysisStatus.RUNNING)
    snapshot_delete(snapshot=demo_snapshot)
    assert not Analysis.objects.exists()
    assert StoppingRun.objects.filter(analysis_id=analysis.pk, owner=owner).exists()
    with pytest.raises(TooManyUnfinished):
        check_unfinished(user=owner)

    settings.PREEMPTLAB_ANALYSIS_SECONDS = 0
    settings.PREEMPTLAB_LEASE_SECONDS = 0
    check_unfinished(user=owner)  # past the window: free again
