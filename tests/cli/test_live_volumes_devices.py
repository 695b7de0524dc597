"""The live read of volume and device objects: the real kubectl against a stand-in API
server serving a real cluster's dump with every storage and DRA kind. Each kind is
listed (pinned to storage.k8s.io/v1 and resource.k8s.io/v1) and kept, secret references
scrubbed; a cluster that does not serve resource.k8s.io, or refuses one list, still
gives its snapshot and says what it left out."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from clusters.constants import DRA_KINDS, STORAGE_KINDS
from preemptlab.kube import OPTIONAL_RESOURCES
from tests.cli.fake_apiserver import FakeAPIServer
from tests.storage_dra_dump import SECRET, storage_dra_dump


def _snapshot(run_cli: Any, tmp_path: Path, fake: FakeAPIServer) -> tuple[Any, dict[str, int]]:
    out = tmp_path / "snap.json"
    with fake.running(tmp_path) as kubeconfig:
        r = run_cli("snapshot", "-o", str(out), "--kubeconfig", str(kubeconfig))
    assert r.returncode == 0, r.stderr.decode()
    text = out.read_text()
    assert SECRET not in text
    return r, dict(Counter(o["kind"] for o in json.loads(text)["items"]))


def test_every_volume_and_device_kind_is_listed_and_kept(run_cli: Any, tmp_path: Path) -> None:
    objects = storage_dra_dump()["items"]
    fake = FakeAPIServer(objects)
    r, kinds = _snapshot(run_cli, tmp_path, fake)
    served = Counter(o["kind"] for o in objects)
    for kind in STORAGE_KINDS | DRA_KINDS | {"Node", "Pod"}:
        assert kinds.get(kind) == served[kind], kind
    # Each resource was listed at the version the snapshot reads, and nothing was written.
    for resources in OPTIONAL_RESOURCES.values():
        for resource in resources:
            base = f"/apis/{resource.group}/{resource.version}" if resource.group else "/api/v1"
            assert any(p.split("?")[0] == f"{base}/{resource.plural}" for p in fake.requests), (
                resource
            )
    assert not fake.writes
    assert "left out" not in r.stderr.decode()


def test_a_cluster_without_resource_k8s_io_still_reads(run_cli: Any, tmp_path: Path) -> None:
    fake = FakeAPIServer(storage_dra_dump()["items"], unserved={"resource.k8s.io"})
    r, kinds = _snapshot(run_cli, tmp_path, fake)
    assert not set(kinds) & DRA_KINDS
    assert set(kinds) >= STORAGE_KINDS and kinds["Node"] > 0
    said = r.stderr.decode()
    for plural in ("deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates"):
        assert f"{plural}.v1.resource.k8s.io left out: the cluster does not serve it" in said


def test_a_refused_list_leaves_out_only_that_resource(run_cli: Any, tmp_path: Path) -> None:
    fake = FakeAPIServer(storage_dra_dump()["items"], forbidden={"csistoragecapacities"})
    r, kinds = _snapshot(run_cli, tmp_path, fake)
    assert "CSIStorageCapacity" not in kinds
    assert (STORAGE_KINDS - {"CSIStorageCapacity"}) | DRA_KINDS <= set(kinds)
    said = r.stderr.decode()
    assert "csistoragecapacities.v1.storage.k8s.io left out: the cluster refused to list" in said
    assert "needs get and list on csistoragecapacities.v1.storage.k8s.io" in said
    assert said.count("left out") == 1
