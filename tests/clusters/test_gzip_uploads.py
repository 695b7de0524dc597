"""Gzipped dumps: uploaded as they come (real clusters' dumps are gzipped), expanded by
a worker, bounded: a gzip bomb is a 400 when it declares its size, and stops at the
limit when it lies."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import orjson
from django.core.files.uploadedfile import SimpleUploadedFile

from clusters import models, services
from tests.clusters.builders import dump, make_node, make_pod

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "realworld"


def test_a_real_gzipped_dump_uploads_from_the_page_and_ingests(owner_client: Any) -> None:
    raw = (REAL / "ocp-vsphere" / "snapshot.json.gz").read_bytes()
    kinds = [i.get("kind") for i in orjson.loads(gzip.decompress(raw))["items"]]
    r = owner_client.post(
        "/snapshots/new/", {"files": [SimpleUploadedFile("snapshot.json.gz", raw)]}
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    snapshot = models.Snapshot.objects.get()
    assert snapshot.is_ingesting  # expanding is a worker's job, not the web process's
    services.snapshot_ingest(snapshot=snapshot)  # what the worker does
    snapshot.refresh_from_db()
    assert snapshot.is_ready, snapshot.error
    assert (snapshot.node_count, snapshot.pod_count) == (kinds.count("Node"), kinds.count("Pod"))


def test_gzipped_yaml_reads_as_yaml(owner: Any) -> None:
    text = b"apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"
    snapshot = services.snapshot_create(
        owner=owner,
        name="yaml",
        files=[services.UploadedFile(name="nodes.yaml.gz", data=gzip.compress(text))],
    )
    services.snapshot_ingest(snapshot=snapshot)
    snapshot.refresh_from_db()
    assert snapshot.is_ready and snapshot.node_count == 1


def test_a_bomb_that_declares_its_size_is_a_400_at_once(owner_client: Any, settings: Any) -> None:
    settings.MAX_UNCOMPRESSED_BYTES = 10 * 1024 * 1024
    bomb = gzip.compress(b" " * (50 * 1024 * 1024), compresslevel=9)  # ~50 KB -> 50 MB
    r = owner_client.post("/snapshots/new/", {"files": [SimpleUploadedFile("big.json.gz", bomb)]})
    body = r.content.decode()
    assert r.status_code == 400
    assert "big.json.gz: expands to 52,428,800 bytes uncompressed" in body
    assert "MAX_UNCOMPRESSED_MB" in body
    assert not models.Snapshot.objects.exists()


def test_a_bomb_that_lies_about_its_size_stops_at_the_limit(owner: Any, settings: Any) -> None:
    settings.MAX_UNCOMPRESSED_BYTES = 10 * 1024 * 1024
    bomb = bytearray(gzip.compress(b" " * (50 * 1024 * 1024), compresslevel=9))
    bomb[-4:] = (100).to_bytes(4, "little")  # "100 bytes", says the trailer
    snapshot = services.snapshot_create(
        owner=owner, name="liar", files=[services.UploadedFile(name="liar.gz", data=bytes(bomb))]
    )
    services.snapshot_ingest(snapshot=snapshot)
    snapshot.refresh_from_db()
    assert snapshot.is_failed
    assert "liar.gz: expands to more than 10,485,760 bytes uncompressed" in snapshot.error


def test_a_damaged_gzip_file_says_so(owner: Any) -> None:
    whole = gzip.compress(dump([make_node(), make_pod()]))
    data = whole[: len(whole) // 2] + whole[-8:]  # its middle lost, its trailer kept
    snapshot = services.snapshot_create(
        owner=owner, name="cut", files=[services.UploadedFile(name="cut.json.gz", data=data)]
    )
    services.snapshot_ingest(snapshot=snapshot)
    snapshot.refresh_from_db()
    assert snapshot.is_failed and "cut.json.gz" in snapshot.error
    assert "gzip" in snapshot.error
