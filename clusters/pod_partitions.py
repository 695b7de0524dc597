"""On PostgreSQL each snapshot's pods are a partition of their own.

``clusters_pod`` is partitioned by snapshot (LIST on snapshot_id, migration 0013), with a
default partition for rows written one by one. A snapshot's browse rows are written
once and never changed, so ingest COPYs them into a bare table, builds that table's
indexes in one sorted pass each and attaches it: 2 s for 150,000 pods where COPY into
the indexed table took 4.5 s (every row went into seven B-trees one at a time). Deleting
a snapshot drops its table instead of deleting its rows one by one.

SQLite, and a PostgreSQL table left unpartitioned, keep the single table.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import connection as default_connection

from clusters import models

_ON_TABLE = re.compile(r" ON (?:ONLY )?\S+ ")


def parent_table() -> str:
    return models.Pod._meta.db_table


def partition_table(snapshot_id: int) -> str:
    """The table holding one snapshot's pods."""
    return f"{parent_table()}_p{int(snapshot_id)}"


def pods_partitioned(connection: Any = default_connection) -> bool:
    """Whether this database keeps the pods partitioned by snapshot."""
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE oid = to_regclass(%s)", [parent_table()])
        row = cursor.fetchone()
    return row is not None and row[0] == "p"


def create_bare_partition(cursor: Any, snapshot_id: int) -> str:
    """A table shaped like the pods table (columns, defaults, checks) without indexes,
    for COPY. A partition left by an earlier use of this id (a test database flushed
    with TRUNCATE keeps its partitions) is dropped first."""
    table = partition_table(snapshot_id)
    cursor.execute(f'DROP TABLE IF EXISTS "{table}"')
    cursor.execute(
        f'CREATE TABLE "{table}" (LIKE "{parent_table()}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)'
    )
    return table


def index_partition(cursor: Any, snapshot_id: int) -> None:
    """Give the loaded table the parent's primary key and indexes, each built in one
    sorted pass; attaching then adopts them instead of building them again."""
    table = partition_table(snapshot_id)
    parent = parent_table()
    cursor.execute(
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = to_regclass(%s) AND contype = 'p'",
        [parent],
    )
    for (definition,) in cursor.fetchall():
        cursor.execute(f'ALTER TABLE "{table}" ADD {definition}')
    cursor.execute(
        "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i "
        "WHERE i.indrelid = to_regclass(%s) AND NOT i.indisprimary ORDER BY i.indexrelid",
        [parent],
    )
    for n, (definition,) in enumerate(cursor.fetchall()):
        # "CREATE INDEX pod_node ON ONLY public.clusters_pod USING btree (...)"
        using = _ON_TABLE.split(definition, maxsplit=1)[-1]
        cursor.execute(f'CREATE INDEX "{table}_{n}" ON "{table}" {using}')


def attach_partition(cursor: Any, snapshot_id: int) -> None:
    """The indexed table becomes the snapshot's partition."""
    cursor.execute(
        f'ALTER TABLE "{parent_table()}" ATTACH PARTITION "{partition_table(snapshot_id)}" '
        f"FOR VALUES IN ({int(snapshot_id)})"
    )


def drop_partition(snapshot_id: int, connection: Any = default_connection) -> None:
    """Drop a snapshot's pods with their table (before the snapshot row goes)."""
    if not pods_partitioned(connection):
        return
    with connection.cursor() as cursor:
        cursor.execute(f'DROP TABLE IF EXISTS "{partition_table(snapshot_id)}"')
