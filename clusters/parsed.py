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

from clusters.models import ParsedCluster, Snapshot
from scheduling.engine import ENGINE_VERSION, Cluster

logger = logging.getLogger(__name__)

# What a stored pickle depends on: the engine's classes and the Python that wrote it.
STORE_FORMAT = "pickle-5"
PARSED_VERSION = f"{ENGINE_VERSION}|{STORE_FORMAT}|py{sys.version_info[0]}.{sys.version_info[1]}"


def parsed_cluster_store(*, snapshot: Snapshot, cluster: Cluster) -> None:
    """Keeps ``cluster`` as the snapshot's stored form (replacing an older one)."""
    data = pickle.dumps(cluster, protocol=5)
    ParsedCluster.objects.update_or_create(
        snapshot=snapshot, defaults={"version": PARSED_VERSION, "data": data}
    )


def parsed_cluster_fetch(*, snapshot: Snapshot) -> Cluster | None:
    """The stored Cluster of this engine version, or None (none stored, or stale)."""
    row = (
        ParsedCluster.objects.filter(snapshot=snapshot, version=PARSED_VERSION)
        .values_list("data", flat=True)
        .first()
    )
    if row is None:
        return None
    # Unpickling makes ~10 objects per pod: the cyclic collector would walk them all
    # again and again while they are being made.
    enabled = gc.isenabled()
    gc.disable()
    try:
        cluster = pickle.loads(bytes(row))
        # And afterwards: a long-lived cluster in a worker, never garbage; freezing
        # it spares every later collection a walk over its million objects.
        gc.freeze()
    except Exception:
        logger.warning("stored cluster of snapshot %s unreadable; parsing again", snapshot.pk)
        return None
    finally:
        if enabled:
            gc.enable()
    return cluster if isinstance(cluster, Cluster) else None
