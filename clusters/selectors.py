"""Reads: snapshots a user may see, their browse rows, and their objects for the engine."""

from __future__ import annotations

import zlib
from typing import Any

import orjson
from django.db.models import QuerySet
from django.http import Http404

from clusters import access, models
from clusters.constants import SnapshotStatus


def snapshot_list(*, user: Any, team: str | None = None) -> QuerySet[models.Snapshot]:
    """The snapshots the user may see, newest first: their own and their teams'
    (clusters/access.py).

    Staff too: the pages and the API are scoped to the requesting user, as DESIGN.md
    says; staff who must see another user's snapshots use the admin site (/admin/).
    """
    snapshots = models.Snapshot.objects.select_related("owner", "team")
    if not getattr(user, "is_authenticated", False):
        return snapshots.none()
    return access.in_team(snapshots.filter(access.visible_to(user)), team)


def snapshot_get(*, user: Any, snapshot_id: int | str) -> models.Snapshot:
    """One snapshot the user may see; Http404 for anyone else's, as if it did not exist."""
    try:
        return snapshot_list(user=user).get(pk=int(snapshot_id))
    except (models.Snapshot.DoesNotExist, ValueError, TypeError):
        raise Http404("No such snapshot.") from None


def snapshot_objects(*, snapshot: models.Snapshot) -> list[dict[str, Any]]:
    """The snapshot's scrubbed Kubernetes objects, ready for scheduling.engine.load_cluster."""
    objects: list[dict[str, Any]] = []
    chunks = models.SnapshotChunk.objects.filter(snapshot=snapshot).order_by("position")
    for data in chunks.values_list("data", flat=True).iterator(chunk_size=20):
        objects.extend(orjson.loads(zlib.decompress(data)))
    return objects


def snapshot_nodes(*, snapshot: models.Snapshot) -> QuerySet[models.Node]:
    return models.Node.objects.filter(snapshot=snapshot).order_by("name")


def snapshot_pods(*, snapshot: models.Snapshot) -> QuerySet[models.Pod]:
    return models.Pod.objects.filter(snapshot=snapshot).order_by("namespace", "name")


def pod_manifest(*, pod: models.Pod) -> dict[str, Any] | None:
    """The pod's stored object (scrubbed, as the engine reads it).

    Decoded from the one chunk its browse row points to; for a snapshot ingested
    before the rows kept that, found by decoding all the snapshot's objects.
    """
    if pod.object_chunk is not None and pod.object_index is not None:
        data = (
            models.SnapshotChunk.objects.filter(
                snapshot_id=pod.snapshot_id, position=pod.object_chunk
            )
            .values_list("data", flat=True)
            .first()
        )
        if data is not None:
            objects = orjson.loads(zlib.decompress(data))
            if pod.object_index < len(objects) and _is_pod(objects[pod.object_index], pod):
                found: dict[str, Any] = objects[pod.object_index]
                return found
    for obj in snapshot_objects(snapshot=pod.snapshot):
        if _is_pod(obj, pod):
            return obj
    return None


def _is_pod(obj: dict[str, Any], pod: models.Pod) -> bool:
    meta = obj.get("metadata") or {}
    return (
        obj.get("kind") == "Pod"
        and meta.get("name") == pod.name
        and (meta.get("namespace") or "default") == pod.namespace
    )


def snapshot_pdbs(*, snapshot: models.Snapshot) -> QuerySet[models.PodDisruptionBudget]:
    return models.PodDisruptionBudget.objects.filter(snapshot=snapshot).order_by(
        "namespace", "name"
    )


def snapshot_priority_classes(*, snapshot: models.Snapshot) -> QuerySet[models.PriorityClass]:
    return models.PriorityClass.objects.filter(snapshot=snapshot).order_by("-value", "name")


def snapshot_pod_filter_choices(*, snapshot: models.Snapshot) -> dict[str, list[str]]:
    """Values for the pods page's filter menus (namespaces, classes, phases).

    Namespaces and phases were collected at ingest, so the menus cost no scan
    of the pods; node names are typed, not chosen (a menu of 5,000 helps no one).
    """
    classes = list(
        models.PriorityClass.objects.filter(snapshot=snapshot)
        .order_by("-value", "name")
        .values_list("name", flat=True)
    )
    facets = snapshot.facets or {}
    return {
        "namespace": list(facets.get("namespace", [])),
        "priority_class": classes,
        "phase": list(facets.get("phase", [])),
    }


def snapshot_find(*, ref: str, owner: str | None = None) -> models.Snapshot:
    """A stored snapshot by id or by name, for the command line: every owner's, or
    ``owner``'s (a username) only.

    A name several snapshots share is not guessed: LookupError lists them (id, owner,
    status) and asks for the id or --owner. LookupError says what is wrong and what
    there is instead.
    """
    snapshots = models.Snapshot.objects.select_related("owner")
    if owner is not None:
        snapshots = snapshots.filter(owner__username=owner)
    whose = f" of {owner!r}" if owner is not None else ""
    if ref.isdigit():
        found = snapshots.filter(pk=int(ref)).first()
    else:
        named = list(snapshots.filter(name=ref).order_by("-created", "-pk")[:11])
        if len(named) > 1:
            listed = "; ".join(
                f"{s.pk} ({s.owner.get_username()}, {s.status}, {s.created:%Y-%m-%d %H:%M})"
                for s in named[:10]
            )
            raise LookupError(
                f"{len(named) if len(named) <= 10 else 'More than 10'} snapshots{whose} are "
                f"named {ref!r}: {listed}. Give the id (--snapshot ID), or --owner USERNAME."
            )
        found = named[0] if named else None
    if found is None:
        names = list(snapshots.order_by("-created").values_list("pk", "name")[:10])
        known = "; ".join(f"{pk} {name!r}" for pk, name in names) or "none stored yet"
        raise LookupError(f"No snapshot{whose} with id or name {ref!r}. Stored: {known}.")
    if not found.is_ready:
        raise LookupError(
            f"Snapshot {found.pk} {found.name!r} is {found.status}; only a ready snapshot can be asked."
        )
    return found


def snapshot_demo_find(*, user: Any) -> models.Snapshot | None:
    """The user's own ready demo snapshot, if they loaded it before (the newest)."""
    from clusters.demo import DEMO_NAME

    return (
        models.Snapshot.objects.filter(owner=user, name=DEMO_NAME, status=SnapshotStatus.READY)
        .order_by("-created", "-pk")
        .first()
    )


def snapshot_dependents(*, snapshot: models.Snapshot) -> dict[str, int]:
    """What deleting the snapshot takes with it: its analyses and their active share links."""
    from django.db.models import Count, Q

    counts = snapshot.analyses.aggregate(
        analyses=Count("pk", distinct=True),
        share_links=Count("share_links", filter=Q(share_links__revoked_at__isnull=True)),
    )
    return {"analyses": counts["analyses"] or 0, "share_links": counts["share_links"] or 0}


def snapshot_volume_claims(*, snapshot: models.Snapshot) -> QuerySet[models.VolumeClaim]:
    return models.VolumeClaim.objects.filter(snapshot=snapshot).order_by("namespace", "name")


def snapshot_node_attachments(*, snapshot: models.Snapshot) -> QuerySet[models.NodeAttachments]:
    return models.NodeAttachments.objects.filter(snapshot=snapshot).order_by("node", "driver")


def snapshot_devices(*, snapshot: models.Snapshot) -> QuerySet[models.Device]:
    return models.Device.objects.filter(snapshot=snapshot).order_by(
        "node", "driver", "pool", "name"
    )
