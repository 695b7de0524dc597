"""A failure mid-ingest leaves no rows behind."""

from __future__ import annotations

from typing import Any

import pytest

from clusters import models, services
from clusters.ingest import rows, uploaded
from scheduling.engine import InvalidInput
from tests.clusters.builders import dump, small_cluster


def _fail_after_pods(*args: Any, **kwargs: Any) -> Any:
    # By now the nodes, pods and PDBs are inserted: the PriorityClass rows come last.
    assert models.Node.objects.exists() and models.Pod.objects.exists()
    assert models.PodDisruptionBudget.objects.exists()
    raise InvalidInput(
        "is broken", source="small.json", kind="PodDisruptionBudget", name="web-pdb", field="spec"
    )
    yield  # pragma: no cover


@pytest.fixture
def queued(owner: Any) -> Any:
    """A snapshot queued for the worker (its uploads stored, the task not run)."""
    return services.snapshot_create(
        owner=owner,
        name="queued",
        files=[services.UploadedFile(name="small.json", data=dump(small_cluster()))],
        run_async=True,
    )


def test_it_leaves_no_rows_when_storing_fails_midway(queued: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(rows, "priority_class_rows", _fail_after_pods)
    services.snapshot_ingest(snapshot=queued)
    queued.refresh_from_db()
    assert queued.is_failed
    assert (
        "small.json" in queued.error
        and "PodDisruptionBudget" in queued.error
        and "spec" in queued.error
    )
    assert not models.Node.objects.exists()
    assert not models.Pod.objects.exists()
    assert not models.PodDisruptionBudget.objects.exists()
    assert not models.SnapshotChunk.objects.exists()
    assert not models.SnapshotUpload.objects.exists()  # the upload is not kept either


def test_an_unexpected_error_rolls_back_and_is_recorded_by_the_task(
    queued: Any, monkeypatch: Any
) -> None:
    from clusters.tasks import snapshot_ingest_task

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk on fire")
        yield  # pragma: no cover

    monkeypatch.setattr(rows, "priority_class_rows", boom)
    snapshot_ingest_task.apply(args=[queued.pk])
    queued.refresh_from_db()
    # Recorded at once in the product's words; the exception's text stays in the log.
    assert queued.is_failed and "reference" in queued.error
    assert "disk on fire" not in queued.error
    assert not models.Pod.objects.exists() and not models.Node.objects.exists()


def test_a_synchronous_failure_keeps_no_snapshot(owner: Any) -> None:
    bad = dump(
        [
            *small_cluster(),
            {"kind": "Pod", "metadata": {"name": "x"}, "spec": {"containers": "nope"}},
        ]
    )
    with pytest.raises(services.SnapshotRejected) as err:
        services.snapshot_create(
            owner=owner, name="bad", files=[services.UploadedFile(name="bad.json", data=bad)]
        )
    assert "bad.json" in err.value.message and "items[9]" in err.value.message
    assert not models.Snapshot.objects.exists() and not models.Pod.objects.exists()


def test_a_redelivered_task_does_not_ingest_twice(queued: Any) -> None:
    services.snapshot_ingest(snapshot=queued)
    services.snapshot_ingest(snapshot=queued)
    assert models.Pod.objects.filter(snapshot=queued).count() == 4


def test_a_queued_upload_is_stored_in_parts_and_ingested_whole(
    owner: Any, settings: Any, monkeypatch: Any
) -> None:
    """The web process copies an upload part by part (it never holds it whole); the
    worker joins the parts back."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from rest_framework.test import APIClient

    settings.SNAPSHOT_ASYNC_INGEST_BYTES = 10
    monkeypatch.setattr(uploaded, "UPLOAD_PART_BYTES", 1000)
    data = dump(small_cluster())
    api = APIClient()
    api.force_authenticate(owner)
    r = api.post(
        "/api/snapshots/",
        {"name": "parts", "files": [SimpleUploadedFile("small.json", data)]},
        format="multipart",
    )
    assert r.status_code == 202, r.content
    snapshot = models.Snapshot.objects.get(pk=r.json()["id"])
    stored = list(models.SnapshotUpload.objects.filter(snapshot=snapshot))
    assert len(stored) == -(-len(data) // 1000) > 1
    assert b"".join(bytes(u.data) for u in stored) == data
    services.snapshot_ingest(snapshot=snapshot)
    snapshot.refresh_from_db()
    assert snapshot.is_ready, snapshot.error
    assert models.Pod.objects.filter(snapshot=snapshot).count() == 4
    assert not models.SnapshotUpload.objects.filter(snapshot=snapshot).exists()


def test_the_upload_page_stores_a_queued_upload_in_parts_too(
    owner_client: Any, settings: Any, monkeypatch: Any
) -> None:
    """The browser's path streams like the API's: a chosen file reaches storage part
    by part."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    settings.SNAPSHOT_ASYNC_INGEST_BYTES = 10
    monkeypatch.setattr(uploaded, "UPLOAD_PART_BYTES", 1000)
    data = dump(small_cluster())
    url = reverse("clusters:snapshot-upload")
    r = owner_client.post(url, {"name": "page", "files": [SimpleUploadedFile("a.json", data)]})
    assert r.status_code == 302, r.content[:500]
    snapshot = models.Snapshot.objects.get(name="page")
    stored = list(models.SnapshotUpload.objects.filter(snapshot=snapshot))
    assert len(stored) == -(-len(data) // 1000) > 1
    assert b"".join(bytes(u.data) for u in stored) == data
