"""The stored form of a parsed cluster: written at ingest, read by workers.

Decoding a 5,000-node snapshot's JSON and building its Cluster takes seconds; the
pickled Cluster loads in about one. The pickle is this app's own (written from a
Cluster it built out of objects it validated and scrubbed), never a user's bytes.
"""

from __future__ import annotations

import gc
import logging
import pickle
import sys

import psycopg
from django.db import connection

from clusters.models import ParsedCluster, Snapshot
from scheduling.engine import ENGINE_VERSION, Cluster
from scheduling.engine.collector import collector_paused

logger = logging.getLogger(__name__)

# What a stored pickle depends on: the engine's classes and the Python that wrote it.
# The suffix changes whenever a pickled class changes shape (v2: NodeInfo's
# preemption_order, Pod pickled as one tuple), so an older row is parsed again.
STORE_FORMAT = "pickle-5-v2"
PARSED_VERSION = f"{ENGINE_VERSION}|{STORE_FORMAT}|py{sys.version_info[0]}.{sys.version_info[1]}"


def _raw_cursor() -> psycopg.Cursor[tuple[object, ...]]:
    """A cursor binding parameters on the server, in binary. Django's psycopg cursors bind
    on the client: 77 MiB of pickle would travel as 154 MiB of quoted hex, and back."""
    connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


def parsed_cluster_store(*, snapshot: Snapshot, cluster: Cluster) -> None:
    """Keeps ``cluster`` as the snapshot's stored form (replacing an older one)."""
    with collector_paused():
        data = pickle.dumps(cluster, protocol=5)
    if connection.vendor != "postgresql":
        ParsedCluster.objects.update_or_create(
            snapshot=snapshot, defaults={"version": PARSED_VERSION, "data": data}
        )
        return
    table = connection.ops.quote_name(ParsedCluster._meta.db_table)
    with _raw_cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (snapshot_id, version, data) VALUES (%s, %s, %b) "
            "ON CONFLICT (snapshot_id) DO UPDATE SET version = EXCLUDED.version, "
            "data = EXCLUDED.data",
            [snapshot.pk, PARSED_VERSION, data],
        )


def _stored_bytes(snapshot: Snapshot) -> bytes | None:
    if connection.vendor != "postgresql":
        row = (
            ParsedCluster.objects.filter(snapshot=snapshot, version=PARSED_VERSION)
            .values_list("data", flat=True)
            .first()
        )
        return None if row is None else bytes(row)
    table = connection.ops.quote_name(ParsedCluster._meta.db_table)
    with _raw_cursor() as cursor:
        cursor.execute(
            f"SELECT data FROM {table} WHERE snapshot_id = %s AND version = %s",
            [snapshot.pk, PARSED_VERSION],
            binary=True,
        )
        found = cursor.fetchone()
    if found is None:
        return None
    data = found[0]
    assert isinstance(data, bytes)  # bytea in binary: psycopg gives bytes
    return data


def parsed_cluster_fetch(*, snapshot: Snapshot) -> Cluster | None:
    """The stored Cluster of this engine version, or None (none stored, or stale)."""
    data = _stored_bytes(snapshot)
    if data is None:
        return None
    try:
        with collector_paused():
            cluster = pickle.loads(data)
            # A long-lived cluster in a worker, never garbage: freezing it spares every
            # later collection a walk over its million objects.
            gc.freeze()
    except Exception:
        logger.warning("stored cluster of snapshot %s unreadable; parsing again", snapshot.pk)
        return None
    return cluster if isinstance(cluster, Cluster) else None
