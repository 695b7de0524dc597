"""When a snapshot was taken: its objects' latest timestamp, shown on every snapshot
page, and the ages kubectl would have shown then (not counted from today: a pod of a
2021 dump is not "5y114d" old)."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clusters import services
from tests.clusters.builders import dump, make_node, make_pod

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "realworld"


def _old_cluster(owner: Any) -> Any:
    node = make_node("node-a")
    node["status"]["conditions"] = [
        {"type": "Ready", "status": "True", "lastHeartbeatTime": "2021-03-11T08:30:00Z"}
    ]
    pod = make_pod("web-1", node="node-a")
    pod["status"]["startTime"] = "2021-03-01T08:30:00Z"
    return services.snapshot_create(
        owner=owner,
        name="old",
        files=[services.UploadedFile(name="old.json", data=dump([node, pod]))],
    )


def test_the_snapshot_time_is_its_latest_timestamp(owner: Any) -> None:
    snapshot = _old_cluster(owner)
    assert snapshot.taken_at == datetime(2021, 3, 11, 8, 30, tzinfo=UTC)


def test_every_snapshot_page_says_when_and_ages_count_from_then(
    owner_client: Any, owner: Any
) -> None:
    snapshot = _old_cluster(owner)
    for page in ("", "nodes/", "pods/", "pdbs/"):
        body = owner_client.get(f"/snapshots/{snapshot.pk}/{page}").content.decode()
        assert 'id="snapshot-taken"' in body and "Taken about 2021-03-11 08:30" in body, page
    pods = owner_client.get(f"/snapshots/{snapshot.pk}/pods/").content.decode()
    assert ">10d</time>" in pods  # started ten days before the dump, whatever today is


def test_a_real_dump_says_when_it_was_taken(owner: Any) -> None:
    data = gzip.decompress((REAL / "ocp-aws" / "snapshot.json.gz").read_bytes())
    snapshot = services.snapshot_create(
        owner=owner,
        name="aws",
        files=[services.UploadedFile(name="aws.json", data=data)],
        run_async=False,
    )
    assert snapshot.taken_at is not None
    assert snapshot.taken_at.year < datetime.now(tz=UTC).year  # months or years ago
