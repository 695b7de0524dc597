"""Each snapshot's pods in a partition of their own on PostgreSQL: written by COPY into
a bare table, indexed, attached; dropped with the snapshot; rolled back with a failed
ingest. And the COPY text the rows travel in keeps every character."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection

from clusters import models, services
from clusters.ingest import copy_text, pipeline, pod_store, rows
from clusters.ingest.copy_text import copy_pieces
from clusters.pod_partitions import partition_table, pods_partitioned
from scheduling.engine import InvalidInput
from tests.clusters.builders import dump, make_node, make_pod, small_cluster

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="partitions are PostgreSQL's"
)


@pytest.fixture(params=["in the ingest's transaction", "on a second connection"])
def pods_path(request: Any, monkeypatch: Any) -> str:
    """Both ways a snapshot's pods are stored: a large snapshot's on a second connection."""
    if request.param == "on a second connection":
        monkeypatch.setattr(pod_store, "PARALLEL_PODS", 1)
    return str(request.param)


def _tables_like(pattern: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE %s", [pattern])
        return {row[0] for row in cursor.fetchall()}


def _partition_of(table: str) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT inhparent::regclass::text FROM pg_inherits WHERE inhrelid = to_regclass(%s)",
            [table],
        )
        row = cursor.fetchone()
    return row[0] if row else None


def _index_count(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_index WHERE indrelid = to_regclass(%s)", [table])
        return int(cursor.fetchone()[0])


def _ingest(owner: Any, objects: list[dict[str, Any]]) -> models.Snapshot:
    return services.snapshot_create(owner=owner, name="s", files=_files(objects))


def _files(objects: list[dict[str, Any]]) -> list[services.UploadedFile]:
    return [services.UploadedFile(name="s.json", data=dump(objects))]


def _refusing(message: str, **where: str) -> Callable[..., Any]:
    """A stand-in for a step of the ingest that refuses the input, as a bad value would."""

    def refuse(*args: Any) -> Any:
        raise InvalidInput(message, **where)

    return refuse


def _ingesting(owner: Any) -> models.Snapshot:
    """A snapshot as a worker claims it, to ingest with services.snapshot_ingest_files."""
    return models.Snapshot.objects.create(
        owner=owner, name="s", source_files=[], total_bytes=1, status="ingesting"
    )


@postgresql_only
def test_a_snapshots_pods_are_a_partition_with_the_parents_indexes(
    owner: Any, pods_path: str
) -> None:
    assert pods_partitioned(connection)
    snapshot = _ingest(owner, small_cluster())
    table = partition_table(snapshot.pk)
    assert _partition_of(table) == models.Pod._meta.db_table
    # The primary key and every index of the model, adopted by the parent's indexes.
    assert _index_count(table) == 1 + len(models.Pod._meta.indexes)
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT count(*) FROM "{table}"')
        assert cursor.fetchone()[0] == snapshot.pod_count == 4
    assert models.Pod.objects.filter(snapshot=snapshot).count() == 4


@postgresql_only
def test_deleting_a_snapshot_drops_its_partition(owner: Any) -> None:
    kept = _ingest(owner, small_cluster())
    gone = _ingest(owner, small_cluster())
    gone_id = gone.pk
    services.snapshot_delete(snapshot=gone)
    assert partition_table(gone_id) not in _tables_like("clusters_pod_p%")
    assert partition_table(kept.pk) in _tables_like("clusters_pod_p%")
    assert not models.Pod.objects.filter(snapshot_id=gone_id).exists()
    assert models.Pod.objects.filter(snapshot=kept).count() == 4


@postgresql_only
def test_an_ingest_failing_after_the_pods_leaves_no_table(
    owner: Any, monkeypatch: Any, pods_path: str
) -> None:
    before = _tables_like("clusters_pod_p%")

    refuse = _refusing("refused after the pods were stored", kind="PodDisruptionBudget")
    monkeypatch.setattr(rows, "pdb_rows", refuse)
    with pytest.raises(services.SnapshotRejected, match="refused after the pods"):
        _ingest(owner, small_cluster())
    assert _tables_like("clusters_pod_p%") == before
    assert not models.Pod.objects.exists()


@postgresql_only
def test_a_failure_writing_the_pods_refuses_the_snapshot_and_leaves_no_table(
    owner: Any, monkeypatch: Any, pods_path: str
) -> None:
    before = _tables_like("clusters_pod_p%")

    refuse = _refusing("holds a number beyond the 64-bit range", kind="Pod", name="web-1")
    monkeypatch.setattr(pod_store, "copy_pieces", refuse)
    with pytest.raises(services.SnapshotRejected, match=r"Pod web-1.*beyond the 64-bit range"):
        _ingest(owner, small_cluster())
    assert _tables_like("clusters_pod_p%") == before
    assert not models.Snapshot.objects.filter(status="ready").exists()


@postgresql_only
def test_an_ingest_failing_after_the_partition_is_attached_leaves_no_table(
    owner: Any, monkeypatch: Any, pods_path: str
) -> None:
    # The attach is rolled back with the ingest's transaction; a table committed on the
    # second connection would stay behind, bare, if nothing dropped it.
    before = _tables_like("clusters_pod_p%")

    monkeypatch.setattr(
        pipeline, "mark_ready", _refusing("refused after the pods were attached", kind="Snapshot")
    )
    # As a worker ingests: the failed snapshot stays, to say why.
    snapshot = _ingesting(owner)
    files = _files(small_cluster())
    services.snapshot_ingest_files(snapshot=snapshot, files=files)
    assert models.Snapshot.objects.get(pk=snapshot.pk).error.endswith(
        "refused after the pods were attached"
    )
    assert _tables_like("clusters_pod_p%") == before
    assert not models.Pod.objects.exists()


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_snapshot_deleted_during_its_ingest_leaves_nothing_and_no_incident(
    owner: Any, monkeypatch: Any, caplog: Any, pods_path: str
) -> None:
    snapshot = _ingesting(owner)
    real_pod_columns = rows.pod_columns

    def deleted_by_the_user(*args: Any) -> Any:
        # The user deletes it (from the web process: another connection) once the
        # ingest's transaction has begun and before any of its rows is written.
        def delete() -> None:
            try:
                services.snapshot_delete(snapshot=models.Snapshot.objects.get(pk=snapshot.pk))
            finally:
                connection.close()

        user = threading.Thread(target=delete)
        user.start()
        user.join()
        return real_pod_columns(*args)

    monkeypatch.setattr(rows, "pod_columns", deleted_by_the_user)
    files = _files(small_cluster())
    with caplog.at_level(logging.INFO, logger="clusters.services"):
        services.snapshot_ingest_files(snapshot=snapshot, files=files)
    assert not models.Snapshot.objects.filter(pk=snapshot.pk).exists()
    assert not _tables_like(partition_table(snapshot.pk))
    assert not models.Pod.objects.filter(snapshot_id=snapshot.pk).exists()
    assert not models.Node.objects.filter(snapshot_id=snapshot.pk).exists()
    assert not models.SnapshotChunk.objects.filter(snapshot_id=snapshot.pk).exists()
    assert not [r for r in caplog.records if "incident" in r.getMessage()]
    assert [r for r in caplog.records if "deleted during its ingest" in r.getMessage()]


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_existing_pods_into_partitions_and_back(owner: Any) -> None:
    snapshot = _ingest(owner, small_cluster())
    names = set(models.Pod.objects.filter(snapshot=snapshot).values_list("name", flat=True))
    try:
        call_command("migrate", "clusters", "0012", verbosity=0)
        assert not pods_partitioned(connection)
        assert set(models.Pod.objects.values_list("name", flat=True)) == names
        # Every app forward: going back to 0012 also unapplied the apps built on clusters.
        call_command("migrate", verbosity=0)
        assert pods_partitioned(connection)
        assert _partition_of(partition_table(snapshot.pk)) == models.Pod._meta.db_table
        assert set(models.Pod.objects.values_list("name", flat=True)) == names
        # New rows still get ids from the column's sequence, after the moved ones.
        later = _ingest(owner, small_cluster())
        old_ids = models.Pod.objects.filter(snapshot=snapshot).values_list("id", flat=True)
        new_ids = models.Pod.objects.filter(snapshot=later).values_list("id", flat=True)
        assert min(new_ids) > max(old_ids)
    finally:
        call_command("migrate", verbosity=0)


@postgresql_only
def test_copy_text_keeps_tabs_newlines_and_backslashes(owner: Any) -> None:
    uid = "a\tb\\c\nd\re \\N"
    pod = make_pod("web-1")
    pod["metadata"]["uid"] = uid
    pod["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "rs\\one",
            "uid": "u",
            "controller": True,
        }
    ]
    snapshot = _ingest(owner, [make_node(), pod])
    row = models.Pod.objects.get(snapshot=snapshot)
    assert row.uid == uid
    assert row.owner == "ReplicaSet/rs\\one"


def test_copy_text_writes_nulls_booleans_times_and_json(monkeypatch: Any) -> None:
    fields = [
        models.Pod._meta.get_field(name)
        for name in ("name", "start_time", "terminating", "requests", "object_chunk")
    ]
    columns = {
        "name": ["a", "b"],
        "start_time": [datetime(2025, 6, 1, tzinfo=UTC), None],
        "terminating": [True, False],
        "requests": [{"cpu": 100, "note": "x\ty"}, {}],
        "object_chunk": [0, None],
    }
    text = b"".join(copy_pieces(models.Pod, fields, columns)).decode()
    monkeypatch.setattr(copy_text, "ROWS_PER_PIECE", 1)  # a row a piece, the same text
    assert b"".join(copy_pieces(models.Pod, fields, columns)).decode() == text
    assert text.split("\n") == [
        'a\t2025-06-01T00:00:00+00:00\tt\t{"cpu":100,"note":"x\\\\ty"}\t0',
        "b\t\\N\tf\t{}\t\\N",
        "",
    ]
