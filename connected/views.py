"""Cluster pages: the list, and one cluster (status, "Take a snapshot now", snapshots).

A cluster's page is made of sections after its own: CLUSTER_SECTIONS lists each
section's template and the function that gives it context; another section (history,
drift, preemptions, alerts) is one more entry there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseStopPolling

from clusters import access
from clusters.paging import paginate, query_without_page
from connected import selectors, take_now
from connected.models import Cluster
from operations.faults import BrokerUnavailable


@dataclass(frozen=True)
class ClusterSection:
    """A section of the cluster page: its template, and its context from the request and
    the cluster (merged into the page's)."""

    template: str
    context: Callable[[HttpRequest, Cluster], dict[str, Any]]


def _snapshots_context(request: HttpRequest, cluster: Cluster) -> dict[str, Any]:
    page = paginate(request, selectors.cluster_snapshots(cluster=cluster), per_page=25)
    return {"page": page, "query": query_without_page(request)}


def _pinned_context(request: HttpRequest, cluster: Cluster) -> dict[str, Any]:
    return {"pinned": list(selectors.cluster_pinned(cluster=cluster))}


def _history_context(request: HttpRequest, cluster: Cluster) -> dict[str, Any]:
    from connected.history.views import explain_refusal, history_context

    return history_context(cluster, refused=explain_refusal(request))


def _take_nodes_away_context(request: HttpRequest, cluster: Cluster) -> dict[str, Any]:
    """ "Drain this pool now?": the latest ready snapshot's pools and zones, each a link
    into the take-nodes-away what-if on that snapshot."""
    from scheduling.forms.take_nodes_away import node_groups

    latest = cluster_snapshots_ready(cluster)
    if latest is None:
        return {"away_snapshot": None, "away_zones": [], "away_pools": []}
    zones, pools = node_groups(latest)
    return {"away_snapshot": latest, "away_zones": zones, "away_pools": pools}


def cluster_snapshots_ready(cluster: Cluster) -> Any:
    return selectors.cluster_snapshots(cluster=cluster).filter(status="ready").first()


CLUSTER_SECTIONS: list[ClusterSection] = [
    ClusterSection("connected/_take_nodes_away.html", _take_nodes_away_context),
    ClusterSection("connected/_pinned.html", _pinned_context),
    ClusterSection("connected/_snapshots.html", _snapshots_context),
    ClusterSection("connected/_history.html", _history_context),
]


@require_GET
def cluster_list(request: HttpRequest) -> TemplateResponse:
    clusters = selectors.cluster_list(user=request.user, team=request.GET.get("team"))
    return TemplateResponse(request, "connected/cluster_list.html", {"clusters": clusters})


def _status_context(cluster: Cluster, *, since: datetime | None = None) -> dict[str, Any]:
    """The status card; ``since``: a read asked for then, followed until it ends."""
    waiting = since is not None and not _ended_since(cluster, since)
    return {
        "cluster": cluster,
        "waiting": waiting,
        "since": since,
        "in_use_days": settings.PREEMPTLAB_RETENTION_IN_USE_DAYS,
    }


def _ended_since(cluster: Cluster, since: datetime) -> bool:
    ends = [at for at in (cluster.last_success_at, cluster.last_failure_at) if at is not None]
    return cluster.reading_since is None and any(at >= since for at in ends)


@require_GET
def cluster_detail(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_get(user=request.user, cluster_id=pk)
    htmx = getattr(request, "htmx", None)
    target = htmx.target if htmx else None
    if target == "cluster-status":
        since = parse_datetime(request.GET.get("since") or "")
        context = _status_context(cluster, since=since)
        response = TemplateResponse(request, "connected/_status.html", context)
        if context["waiting"]:
            return response
        done = HttpResponseStopPolling(response.rendered_content)
        done["HX-Trigger"] = "cluster-read"  # the snapshots list refreshes itself
        return done
    if target == "cluster-snapshots":
        return TemplateResponse(
            request,
            "connected/_snapshots.html",
            {"cluster": cluster, **_snapshots_context(request, cluster)},
        )
    context = _status_context(cluster)
    context["may_take_now"] = access.can_take_now(request.user, cluster)
    context["who_may_take_now"] = access.who_may(cluster, staff=True)
    context["sections"] = [section.template for section in CLUSTER_SECTIONS]
    for section in CLUSTER_SECTIONS:
        context |= section.context(request, cluster)
    return TemplateResponse(request, "connected/cluster_detail.html", context)


@require_POST
def cluster_snapshot_take(request: HttpRequest, pk: int) -> HttpResponse:
    """Take a snapshot now: queued for a worker; the status card follows it. A member is
    refused (403, saying who may); a read under way or too recent too (429; htmx gets the
    card with why, as it swaps only a 2xx answer)."""
    cluster = selectors.cluster_get(user=request.user, cluster_id=pk)
    since = timezone.now()
    try:
        take_now.take_now(cluster=cluster, user=request.user)
    except take_now.ReadRefused as err:
        if not getattr(request, "htmx", False):
            raise  # BusyMiddleware: the 429 page, with Retry-After
        context = _status_context(cluster) | {"error": err.message}
        return TemplateResponse(request, "connected/_status.html", context)
    except BrokerUnavailable as err:
        if getattr(request, "htmx", False):
            context = _status_context(cluster) | {"error": err.message}
            return TemplateResponse(request, "connected/_status.html", context, status=503)
        messages.error(request, err.message)
        return redirect(cluster)
    if getattr(request, "htmx", False):
        return TemplateResponse(
            request, "connected/_status.html", _status_context(cluster, since=since)
        )
    messages.success(request, "A snapshot is being taken; it appears below when done.")
    return redirect(cluster)
