"""Writes: create, ingest, fail and delete snapshots.

The HTML views, the API, the CLI and the Celery task all go through these.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from django.conf import settings
from django.db import transaction
from django.template.defaultfilters import filesizeformat
from django.utils import timezone

from clusters import models
from clusters.constants import ASYNC_INGEST_BYTES, SNAPSHOT_INGEST_TASK, SnapshotStatus
from clusters.ingest.pipeline import analyze_tables, read_and_store
from clusters.ingest.progress import IngestProgress
from clusters.ingest.reading import max_uncompressed_bytes
from clusters.ingest.uploaded import UploadedFile as UploadedFile  # what callers hand in
from clusters.parsed import parsed_cluster_store
from operations.faults import BrokerUnavailable, is_database_fault, publish
from operations.incidents import record_incident
from operations.input_limits import unstorable_value
from operations.leases import lease_heartbeat, lease_release_fields
from scheduling.engine import InvalidInput
from scheduling.engine.collector import collector_paused
from scheduling.running.budgets import unfinished_slot
from scheduling.running.cancellation import keep_running_slots

log = logging.getLogger(__name__)


class SnapshotRejected(Exception):
    """An upload refused before or during a synchronous ingest; nothing was kept."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


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
    fields: Mapping[str, Any] | None = None,
) -> models.Snapshot:
    """Create a snapshot from uploaded files and ingest it (``fields``: more of the
    snapshot's own, e.g. the connected cluster it was read from and its events).

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
    # A connected cluster's read has a slot of its own (one read at a time per cluster,
    # connected/services.py): it never counts against its owner's unfinished work, so
    # what-ifs can never hold the schedule up, nor the read the owner's uploads.
    counted = None if (fields or {}).get("cluster") is not None else owner
    snapshot = models.Snapshot(
        owner=owner,
        name=name[:200],
        source_files=[{"name": f.name, "size": f.size} for f in files],
        total_bytes=total,
        status=SnapshotStatus.INGESTING,
        progress_note="Waiting for a worker" if run_async else "Reading",
        **(fields or {}),
    )
    if not run_async:
        with unfinished_slot(user=counted):  # an ingesting snapshot is unfinished work
            snapshot.save()
        files = [UploadedFile(name=f.name, data=f.read()) for f in files]  # small: at most
        snapshot_ingest_files(snapshot=snapshot, files=files)  # SNAPSHOT_ASYNC_INGEST_BYTES
        if snapshot.is_failed:
            error = snapshot.error
            snapshot.delete()
            raise SnapshotRejected(error)
        return snapshot

    snapshot.enqueued_at = timezone.now()
    with unfinished_slot(user=counted):  # refused (429): no row, no part of the upload kept
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
    publish(SNAPSHOT_INGEST_TASK, snapshot_id)


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


def snapshot_give(*, snapshot: models.Snapshot, team: Any) -> None:
    """Gives the snapshot (its analyses with it) to a team, or back to its owner alone
    (None); clusters/access.py checked the user is in that team."""
    snapshot.team = team
    snapshot.save(update_fields=["team"])


def snapshot_rename(*, snapshot: models.Snapshot, name: str) -> None:
    snapshot.name = name
    snapshot.save(update_fields=["name"])


def snapshot_pin(*, snapshot: models.Snapshot, by: Any, pinned: bool = True) -> None:
    """Pins the snapshot (a connected cluster's retention never deletes it), or unpins it;
    clusters/access.py checked ``by`` may change it. Pinning again keeps the first pin."""
    if pinned and snapshot.pinned_at is None:
        snapshot.pinned_at, snapshot.pinned_by = timezone.now(), by
    elif not pinned:
        snapshot.pinned_at, snapshot.pinned_by = None, None
    snapshot.save(update_fields=["pinned_at", "pinned_by"])


def snapshot_delete(*, snapshot: models.Snapshot) -> None:
    """Deletes the snapshot and its analyses; their runs already going keep the owner's
    slots until they stop (scheduling/running/cancellation.py)."""
    with transaction.atomic():
        keep_running_slots(analyses=snapshot.analyses.all())
        snapshot.delete()


# -- the ingest itself (clusters/ingest/pipeline.py does the work) ---------------------


def snapshot_ingest_files(
    *, snapshot: models.Snapshot, files: list[UploadedFile]
) -> models.Snapshot:
    """Read, scrub, validate and store; the snapshot ends ready or failed.

    ``files`` is consumed (emptied) so each file's bytes are freed once read.
    """
    progress = IngestProgress(snapshot)
    started = time.monotonic()
    cluster = None
    try:
        with collector_paused():
            cluster = read_and_store(snapshot, files, progress)
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
        analyze_tables(snapshot)
        if cluster is not None:
            _keep_parsed(snapshot, cluster)
    return snapshot


def _keep_parsed(snapshot: models.Snapshot, cluster: Any) -> None:
    """The cluster just built, kept for the what-ifs to come: stored for every worker
    (clusters.parsed) and put in this process's cache. The snapshot is ready whatever
    happens here: a what-if then parses the objects again."""
    from scheduling.running import cluster_cache

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


def snapshot_load_demo(*, owner: Any) -> models.Snapshot:
    """The demo snapshot (the planning example of the Kubernetes docs), ingested now."""
    from clusters.demo import DEMO_NAME, demo_objects

    return snapshot_create(
        owner=owner,
        name=DEMO_NAME,
        files=[UploadedFile(name="demo.json", data=orjson.dumps(demo_objects()))],
        run_async=False,
    )
