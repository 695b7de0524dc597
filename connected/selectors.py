"""Reads: the clusters a user may see, and a cluster's snapshots."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404

from clusters import access
from clusters.models import Snapshot
from connected.models import Cluster


def cluster_list(*, user: Any, team: str | None = None) -> QuerySet[Cluster]:
    """Staff see every cluster; anyone else those they own or whose team they are in."""
    clusters = Cluster.objects.select_related("owner", "team")
    if not getattr(user, "is_authenticated", False):
        return clusters.none()
    if user.is_staff:
        return access.in_team(clusters, team)
    return access.in_team(clusters.filter(access.visible_to(user)), team)


def cluster_get(*, user: Any, cluster_id: int | str) -> Cluster:
    """One cluster the user may see; Http404 for any other, as if it did not exist."""
    try:
        return cluster_list(user=user).get(pk=int(cluster_id))
    except (Cluster.DoesNotExist, ValueError, TypeError):
        raise Http404("No such cluster.") from None


# Why staff outside a cluster's team may read its preemptions but not Explain them.
EXPLAIN_MEMBERS_ONLY = (
    "Explain asks a what-if on the cluster's snapshot, in its owner's name: only the "
    "cluster's owner and its team's members may ask it. Staff see every cluster's "
    "preemptions and drift, and ask the owner (or join the team) to explain one."
)


def may_ask(*, user: Any, cluster: Cluster) -> bool:
    """Whether ``user`` may start work on the cluster's snapshots (Explain): its owner or
    a member of its team, staff or not (staff see every cluster, they do not act for it)."""
    return Cluster.objects.filter(access.visible_to(user), pk=cluster.pk).exists()


def cluster_snapshots(*, cluster: Cluster) -> QuerySet[Snapshot]:
    """The cluster's snapshots, newest first."""
    return Snapshot.objects.filter(cluster=cluster).defer("events").order_by("-taken_at", "-id")


def cluster_pinned(*, cluster: Cluster) -> QuerySet[Snapshot]:
    """The cluster's pinned snapshots (retention never deletes them), newest first."""
    return (
        cluster_snapshots(cluster=cluster)
        .filter(pinned_at__isnull=False)
        .select_related("pinned_by")
    )
