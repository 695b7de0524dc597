"""One snapshot's ingest: read each file, validate the objects with the engine, store
the browse rows, the pods and the chunks in one transaction, and mark it ready."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from clusters import models
from clusters.constants import KEPT_KINDS, KIND_PDB, KIND_POD, OBJECTS_PER_CHUNK, SnapshotStatus
from clusters.ingest import rows
from clusters.ingest.chunks import compress_in_background, raw_chunks
from clusters.ingest.copy_rows import insert_rows
from clusters.ingest.located import relocate
from clusters.ingest.pod_store import PodsStoring, store_pods
from clusters.ingest.progress import IngestProgress
from clusters.ingest.reading import FileObjects, read_file
from clusters.ingest.summary import latest_timestamp, no_cluster_message, node_warnings
from clusters.ingest.uploaded import UploadedFile
from clusters.ingest.volume_rows import (
    StorageObjects,
    attachment_rows,
    claim_rows,
    device_rows,
)
from clusters.pod_partitions import partition_table, pods_partitioned
from scheduling.engine import Cluster, InvalidInput, load_cluster


def read_and_store(
    snapshot: models.Snapshot, files: list[UploadedFile], progress: IngestProgress
) -> Cluster:
    """Reads, validates and stores the snapshot; the Cluster it built."""
    scrubbed: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    parts: list[FileObjects] = []
    count = len(files)
    for i in range(count):
        upload = files.pop(0)
        name, box = upload.name, [upload.data]
        del upload  # read_file frees the bytes as soon as they are decoded
        progress(int(5 + 30 * i / count), f"Reading {name} ({i + 1} of {count})")
        parts.append(read_file(box, name, scrubbed=scrubbed, skipped=skipped))
    objects: list[dict[str, Any]] = []
    origins: list[int] = []
    for i, part in enumerate(parts):
        objects.extend(part.objects)
        origins.extend(itertools.repeat(i, len(part.objects)))
    scheduler = scheduler_config_of(parts)
    progress(40, f"Validating {len(objects):,} objects")
    try:
        cluster = load_cluster(objects)
    except InvalidInput as err:
        raise relocate(err, parts, origins) from None
    for kind, n in cluster.skipped.items():
        if kind not in KEPT_KINDS:  # kept for the pages even where the engine reads none
            skipped[kind] += n
    if not cluster.nodes and not cluster.pods:
        raise InvalidInput(no_cluster_message(skipped))
    # Stored in chunks so that "clone this pod" decodes one chunk, not the snapshot;
    # each pod's browse row says where its object is.
    locations = {
        namespaced_name(obj): divmod(i, OBJECTS_PER_CHUNK)
        for i, obj in enumerate(objects)
        if obj.get("kind") == KIND_POD
    }
    storing: PodsStoring | None = None
    try:
        with transaction.atomic():
            # The pods first: a large snapshot's are stored on a second connection
            # meanwhile (ingest/pod_store.py), while this one does all the rest.
            progress(55, f"Storing {len(cluster.pods):,} pods")
            storing = store_pods(snapshot, cluster, locations, progress)
            del locations
            taken_at = latest_timestamp(objects)
            pdb_status = {
                namespaced_name(obj): obj.get("status") or {}
                for obj in objects
                if obj.get("kind") == KIND_PDB
            }
            storage = StorageObjects.of(objects)
            raws = raw_chunks(objects, parts, origins)
            raw_sizes = [len(raw) for raw in raws]
            del objects, origins, parts
            compressing = compress_in_background(raws)
            del raws
            bands = rows.compute_bands(cluster)
            for _ in insert_rows(models.Node, rows.node_rows(cluster, snapshot, bands)):
                pass
            pdb_rows = rows.pdb_rows(cluster, snapshot, pdb_status)
            for _ in insert_rows(models.PodDisruptionBudget, pdb_rows):
                pass
            classes = list(rows.priority_class_rows(cluster, snapshot))
            for _ in insert_rows(models.PriorityClass, classes):
                pass
            store_volumes_and_devices(snapshot, storage)
            del storage
            models.SnapshotChunk.objects.bulk_create(
                (
                    models.SnapshotChunk(snapshot=snapshot, position=i, data=data, raw_size=size)
                    for i, (data, size) in enumerate(
                        zip(compressing.result(), raw_sizes, strict=True)
                    )
                ),
                batch_size=100,  # about 10 MB of compressed JSON per INSERT
            )
            models.SnapshotUpload.objects.filter(snapshot=snapshot).delete()
            storing.finish(progress)
            if scheduler is not None:
                snapshot.scheduler_config, snapshot.scheduler_origin = scheduler
            mark_ready(snapshot, cluster, classes, bands, taken_at, skipped, scrubbed)
    except BaseException:
        if storing is not None:
            storing.abandon()
        raise
    return cluster


def store_volumes_and_devices(snapshot: models.Snapshot, storage: StorageObjects) -> None:
    """The Volumes and Devices tabs' rows; their counts on the snapshot (saved with it).
    insert_rows yields its running count: the largest is how many rows it stored."""
    snapshot.volume_claim_count = max(
        insert_rows(models.VolumeClaim, claim_rows(storage, snapshot)), default=0
    )
    for _ in insert_rows(models.NodeAttachments, attachment_rows(storage, snapshot)):
        pass
    snapshot.device_count = max(
        insert_rows(models.Device, device_rows(storage, snapshot)), default=0
    )


def scheduler_config_of(parts: list[FileObjects]) -> tuple[dict[str, Any], str] | None:
    """The KubeSchedulerConfiguration uploaded with the dump and where it came from (each
    one was validated as its file was read); at most one, as kube-scheduler reads one."""
    found = [(config, part.source) for part in parts for config in part.scheduler_configs]
    if len(found) > 1:
        files = sorted({source for _, source in found})
        raise InvalidInput(
            f"{len(found)} KubeSchedulerConfiguration documents (in {', '.join(files)}): "
            "upload the one kube-scheduler runs with"
        )
    if not found:
        return None
    config, source = found[0]
    return config, f"uploaded with the dump ({source})"


def mark_ready(
    snapshot: models.Snapshot,
    cluster: Cluster,
    classes: list[dict[str, Any]],
    bands: list[dict[str, Any]],
    taken_at: datetime | None,
    skipped: Counter[str],
    scrubbed: Counter[str],
) -> None:
    """The snapshot's row as a ready one, with what the pages show of the ingest."""
    snapshot.status = SnapshotStatus.READY
    snapshot.lease_task_id = ""
    snapshot.lease_expires_at = None
    snapshot.error = ""
    snapshot.progress = 100
    snapshot.progress_note = ""
    snapshot.ingested_at = timezone.now()
    snapshot.taken_at = taken_at
    snapshot.node_count = len(cluster.nodes)
    snapshot.pod_count = len(cluster.pods)
    snapshot.pdb_count = len(cluster.pdbs)
    snapshot.priority_class_count = len(classes)
    snapshot.skipped = dict(sorted(skipped.items()))
    snapshot.warnings = list(cluster.warnings) + node_warnings(cluster)
    snapshot.scrubbed = dict(sorted(scrubbed.items()))
    snapshot.bands = bands
    snapshot.facets = {
        "namespace": sorted({p.namespace for p in cluster.pods}),
        "phase": sorted({p.phase for p in cluster.pods if p.phase}),
    }
    snapshot.save()


def namespaced_name(obj: dict[str, Any]) -> tuple[str, str]:
    """An object's (namespace, name) as the engine keys it; load_cluster refuses a missing name."""
    meta: dict[str, Any] = obj.get("metadata") or {}
    return meta.get("namespace") or "default", meta.get("name") or ""


def analyze_tables(snapshot: models.Snapshot) -> None:
    """Refresh PostgreSQL's statistics after a big insert, so the next pages get index
    plans instead of guesses about an 'empty' table. Partitioned pods: the snapshot's
    own partition only (ANALYZE of the parent would sample every snapshot's)."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    pods = models.Pod._meta.db_table
    if pods_partitioned(connection):
        pods = partition_table(snapshot.pk)
    with connection.cursor() as cursor:
        for table in (pods, models.Node._meta.db_table):
            cursor.execute(f"ANALYZE {connection.ops.quote_name(table)}")
