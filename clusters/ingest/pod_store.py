"""A snapshot's pod rows written: checked, then COPY on PostgreSQL (into the snapshot's
own partition where the pods are partitioned), bulk_create elsewhere; inside the
caller's transaction either way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import connection

from clusters import models
from clusters.constants import BULK_BATCH_SIZE
from clusters.ingest.bounds import check_columns, column
from clusters.ingest.copy_text import copy_text
from clusters.pod_partitions import create_bare_partition, index_and_attach, pods_partitioned

# About 2,000 pods of COPY text per write: the progress bar moves as the server reads.
_COPY_PIECE = 1 << 20

Progress = Callable[[int, str], None]


def _progress_of(progress: Progress, stored: int, total: int) -> None:
    progress(65 + int(25 * stored / max(total, 1)), f"Storing pods: {stored:,} of {total:,}")


def store_pods(
    snapshot: models.Snapshot, columns: dict[str, list[Any]], progress: Progress
) -> None:
    """Store the pods' browse rows, given as columns (rows.pod_columns)."""
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
        return
    fields = [f for f in models.Pod._meta.concrete_fields if not f.primary_key]
    data = memoryview(copy_text(models.Pod, fields, columns))
    partitioned = pods_partitioned(connection)
    with connection.cursor() as cursor:
        if partitioned:
            table = create_bare_partition(cursor, snapshot.pk)
        else:
            table = models.Pod._meta.db_table
        names = ", ".join(connection.ops.quote_name(column(f)) for f in fields)
        with cursor.cursor.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:
            for start in range(0, len(data), _COPY_PIECE):
                copy.write(data[start : start + _COPY_PIECE])
                _progress_of(
                    progress, total * min(start + _COPY_PIECE, len(data)) // len(data), total
                )
        if partitioned:
            progress(92, f"Indexing {total:,} pods")
            index_and_attach(cursor, snapshot.pk)
