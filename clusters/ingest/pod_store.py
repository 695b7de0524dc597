"""A snapshot's pod rows written: checked, then COPY on PostgreSQL, bulk_create elsewhere.

Where the pods are partitioned by snapshot (clusters.pod_partitions), a large snapshot's
partition is loaded and indexed on a second connection, in a thread, while the ingest's
own transaction stores everything else: the server builds seven indexes for 1.5 s
that the ingest no longer waits for. That table is committed on its own and attached
by the ingest's transaction, so it is visible only once the snapshot is ready; if the
ingest fails it is dropped (``PodsStoring.abandon``), and a table left by a process
that died is dropped when the snapshot is ingested again or deleted.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.db import connection, connections, transaction

from clusters import models
from clusters.constants import BULK_BATCH_SIZE
from clusters.ingest import rows
from clusters.ingest.bounds import check_columns, column
from clusters.ingest.copy_text import ROWS_PER_PIECE, copy_pieces
from clusters.pod_partitions import (
    attach_partition,
    create_bare_partition,
    drop_partition,
    index_partition,
    pods_partitioned,
)
from scheduling.engine import Cluster

# Below this many pods the second connection costs more than it saves.
PARALLEL_PODS = 20_000

Progress = Callable[[int, str], None]


@functools.cache
def _executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="snapshot-pods")


def _fields() -> list[Any]:
    return [f for f in models.Pod._meta.concrete_fields if not f.primary_key]


def _copy(
    conn: Any,
    table: str,
    columns: dict[str, list[Any]],
    on_piece: Callable[[int], None] | None = None,
) -> None:
    """COPY the rows, each piece sent as soon as it is formatted."""
    fields = _fields()
    names = ", ".join(conn.ops.quote_name(column(f)) for f in fields)
    done = 0
    with (
        conn.cursor() as cursor,
        cursor.cursor.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy,
    ):
        for piece in copy_pieces(models.Pod, fields, columns):
            copy.write(piece)
            done += ROWS_PER_PIECE
            if on_piece is not None:
                on_piece(done)


def _load_partition(snapshot_id: int, columns: dict[str, list[Any]]) -> None:
    """In the pods thread: the snapshot's table loaded, indexed and committed, on this
    thread's own connection (closed after)."""
    conn = connections["default"]
    try:
        with transaction.atomic(using=conn.alias):
            with conn.cursor() as cursor:
                table = create_bare_partition(cursor, snapshot_id)
            _copy(conn, table, columns)
            with conn.cursor() as cursor:
                index_partition(cursor, snapshot_id)
    finally:
        conn.close()


class PodsStoring:
    """The pods being stored; ``finish`` inside the ingest's transaction, before it
    commits, or ``abandon`` when the ingest fails."""

    def __init__(self, snapshot_id: int, pending: Future[None] | None) -> None:
        self.snapshot_id = snapshot_id
        self.pending = pending

    def finish(self, progress: Progress) -> None:
        if self.pending is None:
            return
        progress(92, "Indexing the pods")
        self.pending.result()  # re-raises what failed in the pods thread
        with connection.cursor() as cursor:
            attach_partition(cursor, self.snapshot_id)

    def abandon(self) -> None:
        """Wait for the pods thread (it must not commit a table after this) and drop
        what it stored; the ingest's own transaction has rolled back, and with it the
        attach if ``finish`` got that far, so the committed table is left bare."""
        if self.pending is None:
            return
        try:
            self.pending.exception()
            drop_partition(self.snapshot_id, connection)
        except Exception:
            pass  # the database is gone: the next ingest of this snapshot drops the table
        self.pending = None


def store_pods(
    snapshot: models.Snapshot,
    cluster: Cluster,
    locations: dict[tuple[str, str], tuple[int, int]],
    progress: Progress,
) -> PodsStoring:
    """Start storing the pods' browse rows (rows.pod_columns), refusing at once a value
    that no column can hold."""
    columns = rows.pod_columns(cluster, snapshot, locations)
    check_columns(models.Pod, columns)
    total = len(columns["name"])
    if connection.vendor != "postgresql":
        attnames = list(columns)
        for start in range(0, total, BULK_BATCH_SIZE):
            batch = zip(
                *(columns[n][start : start + BULK_BATCH_SIZE] for n in attnames), strict=True
            )
            models.Pod.objects.bulk_create(
                [models.Pod(**dict(zip(attnames, v, strict=True))) for v in batch]
            )
            _progress_of(progress, min(start + BULK_BATCH_SIZE, total), total)
        return PodsStoring(snapshot.pk, None)
    partitioned = pods_partitioned(connection)
    if partitioned and total >= PARALLEL_PODS:
        return PodsStoring(snapshot.pk, _executor().submit(_load_partition, snapshot.pk, columns))
    if partitioned:
        with connection.cursor() as cursor:
            table = create_bare_partition(cursor, snapshot.pk)
    else:
        table = models.Pod._meta.db_table
    _copy(connection, table, columns, lambda done: _progress_of(progress, min(done, total), total))
    if partitioned:
        progress(92, f"Indexing {total:,} pods")
        with connection.cursor() as cursor:
            index_partition(cursor, snapshot.pk)
            attach_partition(cursor, snapshot.pk)
    return PodsStoring(snapshot.pk, None)


def _progress_of(progress: Progress, stored: int, total: int) -> None:
    progress(65 + int(25 * stored / max(total, 1)), f"Storing pods: {stored:,} of {total:,}")
