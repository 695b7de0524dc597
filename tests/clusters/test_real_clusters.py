"""The two real clusters' dumps (tests/fixtures/realworld, see each SOURCE.txt) ingest
whole: every name, label and quantity a real cluster writes passes the checks."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import orjson
import pytest

from clusters import services

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "realworld"


@pytest.mark.parametrize("cluster", ["ocp-aws", "ocp-vsphere"])
def test_a_real_clusters_dump_ingests(owner: Any, cluster: str) -> None:
    data = gzip.decompress((REAL / cluster / "snapshot.json.gz").read_bytes())
    kinds = [item.get("kind") for item in orjson.loads(data)["items"]]
    snapshot = services.snapshot_create(
        owner=owner,
        name=cluster,
        files=[services.UploadedFile(name="snapshot.json", data=data)],
        run_async=False,
    )
    assert snapshot.is_ready, snapshot.error
    assert snapshot.node_count == kinds.count("Node") > 0
    assert snapshot.pod_count == kinds.count("Pod") > 0
