"""The connected clusters API: defined by staff; read by their owner and team."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from connected import selectors, services, take_now
from connected.api.serializers import ClusterSerializer
from connected.models import Cluster
from operations.faults import BrokerUnavailable

DetailSerializer = inline_serializer(
    "ClusterDetail", {"detail": serializers.CharField(help_text="What happened, in words.")}
)
STAFF_ONLY = "Only staff define, change or remove clusters."


def _staff_only(request: Request) -> None:
    if not request.user.is_staff:
        raise PermissionDenied(STAFF_ONLY)


def _saved(serializer: serializers.BaseSerializer[Cluster], **extra: Any) -> Cluster:
    """The serializer's cluster, stored through the service (its schedule kept in step).
    A secret generated here (a new cluster, or "generate") is on the cluster as
    ``generated_secret`` for this one answer (new_webhook_secret)."""
    cluster = serializer.instance or Cluster()
    for field, value in {**serializer.validated_data, **extra}.items():
        setattr(cluster, field, value)
    generated = not cluster.webhook_secret
    try:
        saved = services.cluster_save(cluster)
    except services.ClusterInvalid as err:
        raise ValidationError({err.field: [err.message]}) from None
    if generated:
        saved.generated_secret = saved.webhook_secret  # type: ignore[attr-defined]
    return saved


class ClusterListCreate(generics.ListCreateAPIView[Cluster]):
    serializer_class = ClusterSerializer

    def get_queryset(self) -> QuerySet[Cluster]:
        return selectors.cluster_list(
            user=self.request.user, team=self.request.query_params.get("team")
        )

    @extend_schema(summary="The clusters you may see (staff: all; others: owned or team's)")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Define a cluster (staff only)",
        responses={201: ClusterSerializer, 400: DetailSerializer, 403: DetailSerializer},
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        _staff_only(request)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        owner = serializer.validated_data.get("owner") or request.user
        cluster = _saved(serializer, owner=owner)
        body = self.get_serializer(cluster).data
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": body["url"]})


class ClusterDetail(generics.RetrieveUpdateDestroyAPIView[Cluster]):
    serializer_class = ClusterSerializer
    http_method_names = ["get", "patch", "delete", "head", "options"]

    def get_object(self) -> Cluster:
        return selectors.cluster_get(user=self.request.user, cluster_id=self.kwargs["pk"])

    @extend_schema(summary="A cluster: source, schedule, last success and failure")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Change a cluster (staff only)",
        description="Its source, schedule, team, webhooks, alert rules (alert_rules: a list "
        "of rules, null for the defaults) and webhook secret (webhook_secret: yours, or "
        '"generate": the answer holds it once as new_webhook_secret).',
    )
    def patch(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        cluster = self.get_object()
        _staff_only(request)
        serializer = self.get_serializer(cluster, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        cluster = _saved(serializer)
        return Response(self.get_serializer(cluster).data)

    @extend_schema(
        summary="Remove a cluster and its schedule (staff only); its snapshots stay",
        responses={204: None},
    )
    def delete(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        cluster = self.get_object()
        _staff_only(request)
        services.cluster_delete(cluster=cluster)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ClusterSnapshotTake(generics.GenericAPIView[Cluster]):
    serializer_class = ClusterSerializer

    @extend_schema(
        summary="Take a snapshot now",
        description="Queues a read of the cluster: its owner, an admin of its team and staff "
        "may (403 for a member, saying who may). One read at a time per cluster and at most "
        "one a minute (PREEMPTLAB_TAKE_NOW_SECONDS): 429 with Retry-After otherwise. Follow "
        "`reading` and `last_success_at`/`last_failure_reason` on the cluster, and its "
        "snapshots at GET /api/snapshots/?cluster=ID.",
        request=None,
        responses={
            202: OpenApiResponse(ClusterSerializer, description="Queued."),
            403: OpenApiResponse(DetailSerializer, description="A member; says who may."),
            429: OpenApiResponse(
                DetailSerializer, description="A read under way, waiting, or too recent."
            ),
            503: OpenApiResponse(DetailSerializer, description="No worker can be reached."),
        },
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        cluster = selectors.cluster_get(user=request.user, cluster_id=self.kwargs["pk"])
        try:
            take_now.take_now(cluster=cluster, user=request.user)
        except BrokerUnavailable as err:
            return Response({"detail": err.message}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response(self.get_serializer(cluster).data, status=status.HTTP_202_ACCEPTED)
