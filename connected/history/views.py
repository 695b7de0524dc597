"""The cluster's history page, its drift page and API, and Explain of a real preemption."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clusters.models import Snapshot
from connected import explain, selectors
from connected.charts import Series, line_chart
from connected.history.models import AlertDelivery, ObservedPreemption, SnapshotDigest
from connected.history.serializers import (
    DriftDetailSerializer,
    DriftSerializer,
    ExplainSerializer,
)
from connected.history.services import (
    ClusterDrift,
    cluster_drift,
    first_in_line_count,
    ready_snapshots,
)
from connected.models import Cluster
from operations.faults import BrokerUnavailable

# Snapshots the history page draws and lists (the newest).
HISTORY_SNAPSHOTS = 96
PREEMPTIONS_SHOWN = 50
ALERTS_SHOWN = 30
# Missing digests one view of the page queues.
DIGESTS_PER_VIEW = 5


def cluster_for(user: Any, pk: int) -> Cluster:
    return selectors.cluster_get(user=user, cluster_id=pk)


class DriftNotPossible(Exception):
    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def _snapshot_of(cluster: Cluster, raw: str | None, field: str) -> Snapshot | None:
    if raw in (None, ""):
        return None
    try:
        pk = int(raw)
    except ValueError:
        raise DriftNotPossible(f"{field}: a snapshot id is a number.") from None
    found = ready_snapshots(cluster).filter(pk=pk).first()
    if found is None:
        raise DriftNotPossible(f"{field}: snapshot {pk} is no ready snapshot of {cluster.name}.")
    return found


def drift_for(cluster: Cluster, params: Any) -> ClusterDrift:
    """``from`` and ``to`` (snapshot ids); by default the latest against the one before."""
    after = _snapshot_of(cluster, params.get("to"), "to")
    before = _snapshot_of(cluster, params.get("from"), "from")
    snapshots = ready_snapshots(cluster)
    if after is None:
        after = snapshots.last()
    if after is None:
        raise DriftNotPossible(f"{cluster.name} has no ready snapshot yet.")
    if before is None:
        before = snapshots.filter(taken_at__lt=after.taken_at).order_by("-taken_at", "-id").first()
    if before is None:
        raise DriftNotPossible(
            f"{cluster.name} has one snapshot so far: the drift needs one taken before it."
        )
    if before.taken_at and after.taken_at and before.taken_at >= after.taken_at:
        raise DriftNotPossible("from: the snapshot must be taken before the one of to.")
    return cluster_drift(before, after)


class ClusterDriftView(APIView):
    """GET /api/clusters/{id}/drift/?from=&to=: what changed between two snapshots."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "from", int, description="the earlier snapshot (default: the one before the later)"
            ),
            OpenApiParameter("to", int, description="the later snapshot (default: the latest)"),
        ],
        responses={200: DriftSerializer, 400: DriftDetailSerializer, 404: DriftDetailSerializer},
    )
    def get(self, request: Request, id: int) -> Response:
        cluster = cluster_for(request.user, id)
        try:
            found = drift_for(cluster, request.query_params)
        except DriftNotPossible as e:
            return Response({"detail": e.message}, status=status.HTTP_400_BAD_REQUEST)
        body = found.drift.to_dict()
        body["from"] = found.before.pk
        body["to"] = found.after.pk
        return Response(body)


class PreemptionExplainView(APIView):
    """POST /api/clusters/{id}/preemptions/{pk}/explain/: 202 with the analysis."""

    @extend_schema(
        request=None,
        summary="Explain a real preemption: its preemptor asked on the snapshot before it",
        description="202 with the what-if (asked in your name, counted against your "
        "unfinished work); 409 when there is nothing to ask on (the snapshot before was "
        "deleted: said, with when; or already explained, its what-if deleted since: the "
        "kept verdict).",
        responses={
            202: ExplainSerializer,
            403: DriftDetailSerializer,
            404: DriftDetailSerializer,
            409: DriftDetailSerializer,
        },
    )
    def post(self, request: Request, id: int, preemption_id: int) -> Response:
        cluster = cluster_for(request.user, id)
        row = get_object_or_404(ObservedPreemption, cluster=cluster, pk=preemption_id)
        if not selectors.may_ask(user=request.user, cluster=cluster):
            return Response(
                {"detail": selectors.EXPLAIN_MEMBERS_ONLY}, status=status.HTTP_403_FORBIDDEN
            )
        try:
            analysis = explain.explain_create(row, requested_by=request.user)
        except explain.NotExplainable as e:
            return Response({"detail": e.message}, status=status.HTTP_409_CONFLICT)
        except BrokerUnavailable:
            return Response({"detail": "The queue is unavailable; try again."}, status=503)
        url = f"/api/analyses/{analysis.pk}/"
        return Response(
            {"id": analysis.pk, "url": url, "status": analysis.status},
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": url},
        )


def _charts(snapshots: list[Snapshot], digests: dict[int, SnapshotDigest]) -> list[Any]:
    labels = [f"{s.taken_at:%Y-%m-%d %H:%M}" for s in snapshots]

    def known(field: str) -> list[int | None]:
        return [getattr(digests[s.pk], field) if s.pk in digests else None for s in snapshots]

    def reached(s: Snapshot) -> int | None:
        digest = digests.get(s.pk)
        return None if digest is None else first_in_line_count(digest)

    return [
        line_chart("Pods pending", labels, [Series("pending", "#555", known("pending_pods"))]),
        line_chart(
            "Audit findings by severity",
            labels,
            [
                Series("errors", "#c0392b", known("errors")),
                Series("warnings", "#d68910", known("warnings")),
                Series("notes", "#7f8c8d", known("notes")),
            ],
        ),
        line_chart(
            "Apps first in line (default probe)",
            labels,
            [Series("apps reached", "#2c6fbb", [reached(s) for s in snapshots])],
        ),
    ]


def history_context(cluster: Cluster, refused: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the cluster page shows of its history (templates/connected/_history.html);
    ``refused``: Explain's refusal of one preemption, shown on its row."""
    from connected.history.tasks import snapshot_digest_task

    snapshots = list(ready_snapshots(cluster).order_by("-taken_at", "-id")[:HISTORY_SNAPSHOTS])
    snapshots.reverse()
    digests = {d.snapshot_id: d for d in SnapshotDigest.objects.filter(snapshot__in=snapshots)}
    missing = [s.pk for s in snapshots if s.pk not in digests]
    # The newest first, a few per view, each asked once in a while (a worker may be busy).
    for pk in [pk for pk in reversed(missing) if cache.add(f"connected-digest-{pk}", 1, 300)][
        :DIGESTS_PER_VIEW
    ]:
        try:
            snapshot_digest_task.delay(pk)
        except Exception:  # the broker away: the next view asks again
            cache.delete(f"connected-digest-{pk}")
            break
    rows = [
        {"snapshot": s, "digest": digests.get(s.pk), "before": snapshots[i - 1] if i else None}
        for i, s in enumerate(snapshots)
    ]
    preemptions = list(
        ObservedPreemption.objects.filter(cluster=cluster)
        .select_related("explanation")
        .order_by("-at", "victim")[:PREEMPTIONS_SHOWN]
    )
    return {
        "cluster": cluster,
        "charts": _charts(snapshots, digests) if snapshots else [],
        "history": list(reversed(rows)),
        "digesting": len(missing),
        "preemptions": [(p, explain.verdict(p)) for p in preemptions],
        "alerts": list(AlertDelivery.objects.filter(cluster=cluster)[:ALERTS_SHOWN]),
        "explain_refused": refused,
    }


@login_required
def cluster_drift_page(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = cluster_for(request.user, pk)
    context: dict[str, Any] = {"cluster": cluster}
    try:
        found = drift_for(cluster, request.GET)
    except DriftNotPossible as e:
        context["problem"] = e.message
        return render(request, "connected/drift.html", context, status=400)
    context |= {"found": found, "drift": found.drift}
    return render(request, "connected/drift.html", context)


@login_required
@require_POST
def preemption_explain(request: HttpRequest, pk: int, preemption: int) -> HttpResponse:
    cluster = cluster_for(request.user, pk)
    row = get_object_or_404(ObservedPreemption, cluster=cluster, pk=preemption)
    if not selectors.may_ask(user=request.user, cluster=cluster):
        return _explain_refused(request, cluster, row, selectors.EXPLAIN_MEMBERS_ONLY)
    try:
        analysis = explain.explain_create(row, requested_by=request.user)
    except explain.NotExplainable as e:
        return _explain_refused(request, cluster, row, e.message)
    if getattr(request, "htmx", None):
        return HttpResponse(headers={"HX-Redirect": analysis.get_absolute_url()})
    return redirect(analysis.get_absolute_url())


def _explain_refused(
    request: HttpRequest, cluster: Cluster, row: ObservedPreemption, refusal: str
) -> HttpResponse:
    """Explain's refusal said where the button was: in place (htmx), or on the row the
    page scrolls to."""
    if getattr(request, "htmx", None):
        return render(request, "connected/_explain_refused.html", {"refusal": refusal, "p": row})
    request.session[EXPLAIN_REFUSED] = {"pk": row.pk, "message": refusal}
    return redirect(f"{cluster.get_absolute_url()}#preemption-{row.pk}")


# The session key holding Explain's last refusal, shown once on its row.
EXPLAIN_REFUSED = "connected-explain-refused"


def explain_refusal(request: HttpRequest) -> dict[str, Any] | None:
    """Explain's refusal to show on its row ({pk, message}), taken from the session once."""
    got = request.session.pop(EXPLAIN_REFUSED, None)
    return got if isinstance(got, dict) else None
