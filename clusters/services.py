"""Writes: create, ingest, fail and delete snapshots.

The HTML views, the API, the CLI and the Celery task all go through these.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
import time
import uuid
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import Model
from django.template.defaultfilters import filesizeformat
from django.utils import timezone

from clusters import models
from clusters.constants import (
    ASYNC_INGEST_BYTES,
    BULK_BATCH_SIZE,
    KIND_PDB,
    KIND_POD,
    OBJECTS_PER_CHUNK,
    UPLOAD_PART_BYTES,
    SnapshotStatus,
)
from clusters.ingest import rows
from clusters.ingest.bounds import beyond_64_bits, column, within_columns
from clusters.ingest.pod_store import PodsStoring, store_pods
from clusters.ingest.reading import (
    FileObjects,
    max_uncompressed_bytes,
    read_file,
    refuse_unstorable_object,
)
from clusters.parsed import parsed_cluster_store
from clusters.pod_partitions import partition_table, pods_partitioned
from config.faults import BrokerUnavailable, is_database_fault, publish
from config.incidents import record_incident
from config.input_limits import unstorable_value
from config.leases import lease_heartbeat, lease_release_fields
from scheduling.engine import InvalidInput, load_cluster
from scheduling.engine.collector import collector_paused
from scheduling.engine.documents import is_gzip

log = logging.getLogger(__name__)


class SnapshotRejected(Exception):
    """An upload refused before or during a synchronous ingest; nothing was kept."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass
class UploadedFile:
    """One uploaded file: its bytes, or ``stream``, a Django upload (spooled to a
    temporary file by Django past FILE_UPLOAD_MAX_MEMORY_SIZE) that a queued ingest
    copies to the database in parts without ever holding it whole."""

    name: str
    data: bytes | memoryview
    stream: Any = None

    @property
    def size(self) -> int:
        return int(self.stream.size) if self.stream is not None else len(self.data)

    def read(self) -> bytes | memoryview:
        if self.stream is None:
            return self.data
        self.stream.seek(0)
        data: bytes = self.stream.read()
        return data

    def head_and_tail(self, n: int) -> tuple[bytes, bytes]:
        """The first and the last ``n`` bytes, without reading the rest."""
        if self.stream is None:
            return bytes(self.data[:n]), bytes(self.data[-n:])
        self.stream.seek(0)
        head = self.stream.read(n)
        self.stream.seek(max(0, self.size - n))
        tail = self.stream.read(n)
        self.stream.seek(0)
        return bytes(head), bytes(tail)

    def is_gzip(self) -> bool:
        return is_gzip(self.head_and_tail(2)[0])

    def parts(self) -> Iterator[bytes | memoryview]:
        if self.stream is not None:
            self.stream.seek(0)
            while chunk := self.stream.read(UPLOAD_PART_BYTES):
                yield chunk
            return
        view = memoryview(self.data)
        for start in range(0, max(len(view), 1), UPLOAD_PART_BYTES):
            yield view[start : start + UPLOAD_PART_BYTES]


def max_upload_bytes() -> int:
    return int(settings.MAX_UPLOAD_BYTES)


def async_ingest_bytes() -> int:
    return int(getattr(settings, "SNAPSHOT_ASYNC_INGEST_BYTES", ASYNC_INGEST_BYTES))


def upload_too_large_message(size: int) -> str:
    limit = max_upload_bytes()
    return (
        f"The upload is {filesizeformat(size)}, over the limit of {filesizeformat(limit)} "
        f"for one snapshot (set by MAX_UPLOAD_MB). Upload fewer objects, or leave out "
        f"kinds the snapshot does not use."
    )


def _check_declared_size(f: UploadedFile) -> None:
    """A gzip file says its uncompressed size (mod 4 GiB) in its last four bytes: an
    honest bomb is refused at once (400). One that lies is stopped by the bounded
    decompression of the ingest all the same."""
    declared = int.from_bytes(f.head_and_tail(4)[1], "little")
    limit = max_uncompressed_bytes()
    if declared > limit:
        raise SnapshotRejected(
            f"{f.name}: expands to {declared:,} bytes uncompressed; at most {limit:,} are "
            "read (MAX_UNCOMPRESSED_MB). Upload it split by namespace.",
            status=400,
        )


def snapshot_check_size(*, size: int) -> None:
    if size > max_upload_bytes():
        raise SnapshotRejected(upload_too_large_message(size), status=413)


def snapshot_create(
    *,
    owner: Any,
    name: str,
    files: Sequence[UploadedFile],
    run_async: bool | None = None,
) -> models.Snapshot:
    """Create a snapshot from uploaded files and ingest it.

    Small uploads are ingested now: the snapshot comes back ready, or
    SnapshotRejected is raised and nothing is kept. Large ones (or
    run_async=True) are queued for a worker and come back ingesting; a failure
    there is recorded on the snapshot.
    """
    files = [f for f in files if f.data is not None or f.stream is not None]
    if not files:
        raise SnapshotRejected("Choose at least one file, or paste YAML or JSON.")
    total = sum(f.size for f in files)
    snapshot_check_size(size=total)
    gzipped = [f for f in files if f.is_gzip()]
    for f in gzipped:
        _check_declared_size(f)
    if run_async is None:
        # Expanding a gzipped dump is work for a worker, not for the web process.
        run_async = total > async_ingest_bytes() or bool(gzipped)
    name = (name or "").strip() or files[0].name
    snapshot = models.Snapshot(
        owner=owner,
        name=name[:200],
        source_files=[{"name": f.name, "size": f.size} for f in files],
        total_bytes=total,
        status=SnapshotStatus.INGESTING,
        progress_note="Waiting for a worker" if run_async else "Reading",
    )
    if not run_async:
        snapshot.save()
        files = [UploadedFile(name=f.name, data=f.read()) for f in files]  # small: at most
        snapshot_ingest_files(snapshot=snapshot, files=files)  # SNAPSHOT_ASYNC_INGEST_BYTES
        if snapshot.is_failed:
            error = snapshot.error
            snapshot.delete()
            raise SnapshotRejected(error)
        return snapshot

    snapshot.enqueued_at = timezone.now()
    with transaction.atomic():
        snapshot.save()
        # Part by part, each written before the next is read: the web process holds
        # one part of the upload at a time, never all of it.
        for i, f in enumerate(files):
            for part, data in enumerate(f.parts()):
                models.SnapshotUpload.objects.create(
                    snapshot=snapshot, position=i, part=part, name=f.name[:255], data=data
                )
    snapshot_enqueue(snapshot=snapshot)
    return snapshot


def snapshot_publish(snapshot_id: int) -> None:
    """Sends the message that ingests the snapshot (the reconciler sends it again if lost)."""
    from clusters.tasks import snapshot_ingest_task

    publish(snapshot_ingest_task, snapshot_id)


def snapshot_enqueue(*, snapshot: models.Snapshot) -> None:
    """Sends the ingest task of a committed snapshot; if the broker is down, deletes the
    snapshot and its uploads again and raises SnapshotRejected (503): nothing is kept."""
    pk = snapshot.pk
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: _publish_or_leave_queued(pk))
        return
    try:
        snapshot_publish(pk)
    except BrokerUnavailable as err:
        models.Snapshot.objects.filter(pk=pk).delete()
        raise SnapshotRejected(err.message, status=503) from None


def _publish_or_leave_queued(snapshot_id: int) -> None:
    try:
        snapshot_publish(snapshot_id)
    except BrokerUnavailable:
        log.warning("snapshot %s stays queued for the reconciler", snapshot_id)


def snapshot_create_from_objects(
    *, owner: Any, name: str, objects: Any, run_async: bool | None = None
) -> models.Snapshot:
    """Create a snapshot from already-decoded objects (a v1 List or a list), e.g. a JSON body."""
    problem = unstorable_value(objects, "objects")
    if problem is not None:
        raise SnapshotRejected(f"{problem}; Kubernetes never writes such a value.")
    data = orjson.dumps(objects)
    return snapshot_create(
        owner=owner,
        name=name or "objects",
        files=[UploadedFile(name="objects", data=data)],
        run_async=run_async,
    )


def snapshot_claim(*, snapshot_id: int, task_id: str) -> models.Snapshot | None:
    """Locks the snapshot and takes its lease; None when this task must leave it alone
    (ingested or failed already, or another live task holds it)."""
    with transaction.atomic():
        snapshot = models.Snapshot.objects.select_for_update().filter(pk=snapshot_id).first()
        if snapshot is None or snapshot.status != SnapshotStatus.INGESTING:
            return None
        if snapshot.lease_taken_by_other(task_id):
            return None
        snapshot.save(update_fields=snapshot.lease_take(task_id))
    return snapshot


def snapshot_ingest(*, snapshot: models.Snapshot, task_id: str = "") -> models.Snapshot:
    """Ingest a queued snapshot from its stored uploads (the Celery task's body). Idempotent:
    a snapshot already ingested, failed, or held by another live task is left as it is."""
    task_id = task_id or f"direct-{uuid.uuid4().hex}"
    claimed = snapshot_claim(snapshot_id=snapshot.pk, task_id=task_id)
    if claimed is None:
        snapshot.refresh_from_db()
        return snapshot
    snapshot = claimed
    with lease_heartbeat(models.Snapshot, snapshot.pk, task_id):
        return _snapshot_ingest_uploads(snapshot)


def _snapshot_ingest_uploads(snapshot: models.Snapshot) -> models.Snapshot:
    files = _stored_uploads(snapshot)
    if not files:
        snapshot_fail(snapshot=snapshot, error="The uploaded files are gone; upload again.")
        return snapshot
    return snapshot_ingest_files(snapshot=snapshot, files=files)


def _stored_uploads(snapshot: models.Snapshot) -> list[UploadedFile]:
    """The stored files, each joined from its parts (read a few at a time)."""
    files: list[UploadedFile] = []
    positions = (
        models.SnapshotUpload.objects.filter(snapshot=snapshot)
        .order_by("position")
        .values_list("position", "name")
        .distinct()
    )
    for position, name in positions:
        parts = (
            models.SnapshotUpload.objects.filter(snapshot=snapshot, position=position)
            .order_by("part")
            .values_list("data", flat=True)
            .iterator(chunk_size=4)
        )
        files.append(UploadedFile(name=name, data=b"".join(bytes(p) for p in parts)))
    return files


def snapshot_fail(*, snapshot: models.Snapshot, error: str) -> None:
    """Record a failed ingest; the browse rows were never written (or rolled back)."""
    # The message quotes names from the input, which may hold the NUL it refuses.
    error = error.replace("\x00", "\\u0000")
    snapshot.status = SnapshotStatus.FAILED
    snapshot.error = error
    snapshot.progress = 0
    snapshot.progress_note = ""
    models.Snapshot.objects.filter(pk=snapshot.pk).update(
        status=snapshot.status, error=error, progress=0, progress_note="", **lease_release_fields()
    )
    models.SnapshotUpload.objects.filter(snapshot_id=snapshot.pk).delete()


def snapshot_delete(*, snapshot: models.Snapshot) -> None:
    snapshot.delete()


# -- the ingest itself ----------------------------------------------------------------


class _Progress:
    """Writes progress where the snapshot page can see it while the ingest runs.

    Before the storing transaction it updates the row directly. Inside it, the
    update goes through a second connection on PostgreSQL (visible at once);
    SQLite has one writer at a time, so there the last phase shows no steps.
    """

    def __init__(self, snapshot: models.Snapshot) -> None:
        self.snapshot = snapshot
        self.own_transactions = not connection.in_atomic_block
        self.side: Any = None

    def __call__(self, percent: int, note: str) -> None:
        self.snapshot.progress = percent
        self.snapshot.progress_note = note
        if not connection.in_atomic_block:
            models.Snapshot.objects.filter(pk=self.snapshot.pk).update(
                progress=percent, progress_note=note
            )
        elif self.own_transactions and connection.vendor == "postgresql":
            try:
                if self.side is None:
                    self.side = connections.create_connection("default")
                with self.side.cursor() as cursor:
                    cursor.execute(
                        f"UPDATE {models.Snapshot._meta.db_table} "
                        "SET progress = %s, progress_note = %s WHERE id = %s",
                        [percent, note, self.snapshot.pk],
                    )
            except Exception:  # progress is best effort; never fail the ingest for it
                log.exception("progress update failed")

    def close(self) -> None:
        if self.side is not None:
            self.side.close()
            self.side = None


@functools.cache
def _executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="snapshot-compress")


def _relocate(err: InvalidInput, parts: list[FileObjects], origins: list[int]) -> InvalidInput:
    """Name the file and the item in it, rather than the index in the merged list."""
    if err.index is not None and 0 <= err.index < len(origins):
        part = parts[origins[err.index]]
        position = part.positions[err.index - _offset(parts, origins[err.index])]
        return _moved(err, source=part.source, index=position)
    if err.kind and err.name:
        for part in parts:
            for obj, position in zip(part.objects, part.positions, strict=True):
                meta = obj.get("metadata") or {}
                if (
                    obj.get("kind") == err.kind
                    and meta.get("name") == err.name
                    and (meta.get("namespace") or "default") == (err.namespace or "default")
                ):
                    return _moved(err, source=part.source, index=position)
    if not err.source and len(parts) == 1:
        return err.located(source=parts[0].source)
    return err


def _moved(err: InvalidInput, *, source: str, index: int) -> InvalidInput:
    """The same error, placed at an item of one uploaded file instead of the merged list."""
    return InvalidInput(
        err.message,
        source=source,
        index=index,
        kind=err.kind,
        namespace=err.namespace,
        name=err.name,
        field=err.field,
    )


def _offset(parts: list[FileObjects], part_index: int) -> int:
    return sum(len(p.objects) for p in parts[:part_index])


def _analyze_tables(snapshot: models.Snapshot) -> None:
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


def _insert(model: type[Model], rows_iter: Iterable[dict[str, Any]]) -> Iterator[int]:
    """Insert rows (dicts of column values by attribute name), yielding the running count.

    PostgreSQL gets COPY (several times faster than INSERT for 150,000 pods);
    other databases get bulk_create in batches. Either way inside the caller's
    transaction.
    """
    done = 0
    rows_iter = within_columns(model, rows_iter)
    if connection.vendor != "postgresql":
        it = iter(rows_iter)
        while batch := list(itertools.islice(it, BULK_BATCH_SIZE)):
            model._default_manager.bulk_create([model(**row) for row in batch])
            done += len(batch)
            yield done
        return
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    defaults = {f.attname: f.get_default() for f in fields}
    attnames = [f.attname for f in fields]
    json_names = {f.attname for f in fields if f.get_internal_type() == "JSONField"}
    quote = connection.ops.quote_name
    sql = (
        f"COPY {quote(model._meta.db_table)} "
        f"({', '.join(quote(column(f)) for f in fields)}) FROM STDIN"
    )
    dumps = orjson.dumps
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        write_row = copy.write_row
        for row in rows_iter:
            values = []
            for name in attnames:
                value = row[name] if name in row else defaults[name]
                if name in json_names and value is not None:
                    try:
                        value = dumps(value).decode()
                    except orjson.JSONEncodeError:  # only an integer beyond 64 bits
                        raise beyond_64_bits(model, row, name) from None
                values.append(value)
            write_row(values)
            done += 1
            if done % BULK_BATCH_SIZE == 0:
                yield done
    yield done


def snapshot_ingest_files(
    *, snapshot: models.Snapshot, files: list[UploadedFile]
) -> models.Snapshot:
    """Read, scrub, validate and store; the snapshot ends ready or failed.

    ``files`` is consumed (emptied) so each file's bytes are freed once read.
    """
    progress = _Progress(snapshot)
    started = time.monotonic()
    cluster = None
    try:
        with collector_paused():
            cluster = _ingest(snapshot, files, progress)
    except InvalidInput as err:
        snapshot_fail(snapshot=snapshot, error=str(err))
    except MemoryError:
        snapshot_fail(snapshot=snapshot, error="The snapshot is too large to ingest.")
    except Exception as exc:
        if is_database_fault(exc):
            raise  # the database went away: the task retries, the reconciler takes over
        if _deleted_meanwhile(snapshot):
            snapshot.status = SnapshotStatus.FAILED  # for the task's result; no row to write
        else:
            # Anything else the input provoked ends the ingest now, never left "ingesting".
            reference = record_incident("ingest of snapshot %s", snapshot.pk)
            snapshot_fail(snapshot=snapshot, error=unexpected_ingest_error(reference))
    finally:
        progress.close()
    if snapshot.is_ready:
        # Ready (browsable, what-ifs accepted) since the commit: that is the duration.
        snapshot.duration_ms = int((time.monotonic() - started) * 1000)
        models.Snapshot.objects.filter(pk=snapshot.pk).update(duration_ms=snapshot.duration_ms)
        _analyze_tables(snapshot)
        if cluster is not None:
            _keep_parsed(snapshot, cluster)
    return snapshot


def _keep_parsed(snapshot: models.Snapshot, cluster: Any) -> None:
    """The cluster just built, kept for the what-ifs to come: stored for every worker
    (clusters.parsed) and put in this process's cache. The snapshot is ready whatever
    happens here: a what-if then parses the objects again."""
    from scheduling import cluster_cache

    cluster_cache.cluster_cache_put(
        key=cluster_cache.cluster_cache_key(snapshot=snapshot), value=cluster
    )
    try:
        parsed_cluster_store(snapshot=snapshot, cluster=cluster)
    except Exception as exc:
        if is_database_fault(exc):
            raise
        if not _deleted_meanwhile(snapshot):
            record_incident("storing the parsed cluster of snapshot %s", snapshot.pk)


def _deleted_meanwhile(snapshot: models.Snapshot) -> bool:
    """A user may delete a snapshot while it is ingested: the rows written for it then
    fail their foreign keys. That is the user's choice, not an incident to report."""
    if models.Snapshot.objects.filter(pk=snapshot.pk).exists():
        return False
    log.info("snapshot %s was deleted during its ingest", snapshot.pk)
    return True


def unexpected_ingest_error(reference: str) -> str:
    return (
        f"The snapshot could not be read: an unexpected error (reference {reference}). "
        "Nothing was stored; check that the files are what kubectl get -o json or -o yaml "
        "prints, and give the reference to the administrator if it happens again."
    )


def _chunks(
    objects: list[dict[str, Any]], parts: list[FileObjects], origins: list[int]
) -> list[bytes]:
    """The scrubbed objects as JSON, OBJECTS_PER_CHUNK to a chunk."""
    try:
        return [
            orjson.dumps(objects[i : i + OBJECTS_PER_CHUNK])
            for i in range(0, len(objects), OBJECTS_PER_CHUNK)
        ]
    except orjson.JSONEncodeError:
        # An integer beyond 64 bits (the only value orjson refuses here): say where.
        for i, obj in enumerate(objects):
            refuse_unstorable_object(obj, parts[origins[i]].source, i - _offset(parts, origins[i]))
        raise


def _compress_all(raws: list[bytes]) -> list[bytes]:
    """Each chunk compressed, freeing its JSON as soon as it is."""
    out = []
    for i, raw in enumerate(raws):
        out.append(zlib.compress(raw, 1))
        raws[i] = b""
    return out


def _no_cluster_message(skipped: Counter[str]) -> str:
    """Why an upload without a Node or a Pod is refused, and what to upload instead."""
    found = ", ".join(f"{n:,} {kind}" for kind, n in skipped.most_common(5))
    what = f"it holds {found}" if found else "it holds no object the scheduler reads"
    return (
        f"Not a snapshot of a cluster: no Node and no Pod in the upload ({what}). Upload what "
        "kubectl get nodes,pods,pdb,priorityclasses -A -o json prints. To ask where a "
        "Deployment's pods would go, open a snapshot and use “What if…” with the pod template."
    )


# kubectl prints every metav1.Time this way (seconds, UTC): such strings sort as times.
_KUBE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_CONDITION_TIMES = ("lastHeartbeatTime", "lastTransitionTime", "lastProbeTime")


def latest_timestamp(objects: list[dict[str, Any]]) -> datetime | None:
    """The latest time any object records (creation, a pod's start, a condition's last
    heartbeat or transition): about when the dump was taken."""
    latest = ""
    for obj in objects:
        meta = obj.get("metadata")
        found = [meta.get("creationTimestamp")] if isinstance(meta, dict) else []
        status = obj.get("status")
        if isinstance(status, dict):
            found.append(status.get("startTime"))
            for condition in status.get("conditions") or ():
                if isinstance(condition, dict):
                    found.extend(condition.get(k) for k in _CONDITION_TIMES)
        for t in found:
            if isinstance(t, str) and t > latest and _KUBE_TIME.fullmatch(t):
                latest = t
    return datetime.fromisoformat(latest) if latest else None


def _namespaced_name(obj: dict[str, Any]) -> tuple[str, str]:
    """An object's (namespace, name) as the engine keys it; load_cluster refuses a missing name."""
    meta: dict[str, Any] = obj.get("metadata") or {}
    return meta.get("namespace") or "default", meta.get("name") or ""


def _ingest(snapshot: models.Snapshot, files: list[UploadedFile], progress: _Progress) -> Any:
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
    progress(40, f"Validating {len(objects):,} objects")
    try:
        cluster = load_cluster(objects)
    except InvalidInput as err:
        raise _relocate(err, parts, origins) from None
    for kind, n in cluster.skipped.items():
        skipped[kind] += n
    if not cluster.nodes and not cluster.pods:
        raise InvalidInput(_no_cluster_message(skipped))
    # Stored in chunks so that "clone this pod" decodes one chunk, not the snapshot;
    # each pod's browse row says where its object is.
    locations = {
        _namespaced_name(obj): divmod(i, OBJECTS_PER_CHUNK)
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
                _namespaced_name(obj): obj.get("status") or {}
                for obj in objects
                if obj.get("kind") == KIND_PDB
            }
            raws = _chunks(objects, parts, origins)
            raw_sizes = [len(raw) for raw in raws]
            del objects, origins, parts
            # zlib releases the GIL: compress on the second core while the rows are stored.
            compressing = _executor().submit(_compress_all, raws)
            del raws
            bands = rows.compute_bands(cluster)
            for _ in _insert(models.Node, rows.node_rows(cluster, snapshot, bands)):
                pass
            pdb_rows = rows.pdb_rows(cluster, snapshot, pdb_status)
            for _ in _insert(models.PodDisruptionBudget, pdb_rows):
                pass
            classes = list(rows.priority_class_rows(cluster, snapshot))
            for _ in _insert(models.PriorityClass, classes):
                pass
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
            _mark_ready(snapshot, cluster, classes, bands, taken_at, skipped, scrubbed)
    except BaseException:
        if storing is not None:
            storing.abandon()
        raise
    return cluster


def _mark_ready(
    snapshot: models.Snapshot,
    cluster: Any,
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
    snapshot.warnings = list(cluster.warnings) + _node_warnings(cluster)
    snapshot.scrubbed = dict(sorted(scrubbed.items()))
    snapshot.bands = bands
    snapshot.facets = {
        "namespace": sorted({p.namespace for p in cluster.pods}),
        "phase": sorted({p.phase for p in cluster.pods if p.phase}),
    }
    snapshot.save()


def _node_warnings(cluster: Any) -> list[str]:
    """A snapshot without Nodes, or with pods bound to Nodes it lacks, is kept (a dump of
    one namespace's pods is still worth browsing) but says what that means for what-ifs."""
    warnings = []
    if not cluster.nodes:
        warnings.append(
            "The snapshot has no Node objects: every what-if on it is unschedulable. "
            "Include nodes in the dump (kubectl get nodes,pods,pdb,priorityclasses -A -o json)."
        )
    known = {node.name for node in cluster.nodes}
    absent = Counter(p.node_name for p in cluster.pods if p.node_name and p.node_name not in known)
    if absent and cluster.nodes:
        names = ", ".join(sorted(absent)[:5]) + (", ..." if len(absent) > 5 else "")
        warnings.append(
            f"{sum(absent.values()):,} pods are bound to {len(absent):,} nodes missing from "
            f"the snapshot ({names}): they count on no node, so no what-if can preempt them."
        )
    return warnings


def snapshot_load_demo(*, owner: Any) -> models.Snapshot:
    """The demo snapshot (the planning example of the Kubernetes docs), ingested now."""
    from clusters.demo import DEMO_NAME, demo_objects

    return snapshot_create(
        owner=owner,
        name=DEMO_NAME,
        files=[UploadedFile(name="demo.json", data=orjson.dumps(demo_objects()))],
        run_async=False,
    )
