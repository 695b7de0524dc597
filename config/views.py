"""The project's own page: the home page, one click from a first what-if."""

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, HttpResponseServerError
from django.template import loader
from django.template.response import TemplateResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import patch_cache_control

from clusters.constants import SnapshotStatus
from clusters.models import Snapshot
from clusters.selectors import snapshot_list
from connected.in_cluster import in_cluster

# Connected clusters the home page lists (each with its newest snapshot).
HOME_CLUSTERS = 10


@dataclass(frozen=True)
class ClusterSnapshots:
    """A connected cluster's snapshots on the home page: one line, not one a read."""

    cluster_id: int
    name: str
    cluster_url: str | None  # its page, when the user may open it
    count: int
    newest: Snapshot | None  # the newest ready one


def cluster_groups(snapshots: QuerySet[Snapshot], user: Any) -> list[ClusterSnapshots]:
    from connected.selectors import cluster_list

    rows = (
        snapshots.exclude(cluster=None)
        .values("cluster_id", "cluster__name")
        .annotate(n=Count("id"), last=Max("taken_at"))
        .order_by("-last", "cluster__name")[:HOME_CLUSTERS]
    )
    visible = set(cluster_list(user=user).values_list("pk", flat=True))
    groups = []
    for row in rows:
        newest = (
            snapshots.filter(cluster_id=row["cluster_id"], status=SnapshotStatus.READY)
            .order_by("-taken_at", "-id")
            .first()
        )
        url = reverse("connected:cluster-detail", args=[row["cluster_id"]])
        groups.append(
            ClusterSnapshots(
                row["cluster_id"],
                row["cluster__name"],
                url if row["cluster_id"] in visible else None,
                row["n"],
                newest,
            )
        )
    return groups


def home(request: HttpRequest) -> TemplateResponse:
    snapshots = snapshot_list(user=request.user)
    # Uploaded snapshots one a line; a connected cluster's (one a read, every few
    # minutes) grouped under their cluster, so they never push the uploads out.
    recent = snapshots.filter(cluster=None).order_by("-created")[:5]
    groups = cluster_groups(snapshots, request.user) if request.user.is_authenticated else []
    # Where the app runs, for signed-in users only (every page but a few asks for a login).
    here = in_cluster() if request.user.is_authenticated else None
    return TemplateResponse(
        request,
        "home.html",
        {"recent_snapshots": recent, "cluster_groups": groups, "in_cluster": here},
    )


def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers ask for whatever the page links: the static icon
    (its URL carries the file's hash in production, so the redirect is not permanent)."""
    response = HttpResponseRedirect(static("favicon.svg"))
    patch_cache_control(response, public=True, max_age=86400)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 page, with the reference under which the log keeps what happened. Rendered
    without a request context: nothing here may need the database or the user."""
    from operations.middleware import incident_of

    html = loader.get_template("500.html").render({"reference": incident_of(request)})
    return HttpResponseServerError(html)
