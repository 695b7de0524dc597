"""The snapshots API (shape in DESIGN.md): create, list, retrieve, delete; browse rows."""

from __future__ import annotations

from typing import Any, TypeVar

from django.core.paginator import Paginator
from django.db.models import Model, QuerySet
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import generics, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from clusters import access, models, selectors, services
from clusters.api import filters
from clusters.api.serializers import (
    NodeSerializer,
    PodDisruptionBudgetSerializer,
    PodSerializer,
    PriorityClassSerializer,
    SnapshotJSONCreateSerializer,
    SnapshotMultipartCreateSerializer,
    SnapshotPatchSerializer,
    SnapshotSerializer,
)
from clusters.paging import KnownCountPaginator
from operations.parsers import JSONBodyParser

ErrorSerializer = inline_serializer(
    "SnapshotError", {"detail": serializers.CharField(help_text="What was wrong, in words.")}
)


class SnapshotRowsPagination(PageNumberPagination):
    """Pages of browse rows; an unfiltered list takes its count from the snapshot."""

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        self._known_count = view.known_count(request) if view is not None else None
        return super().paginate_queryset(queryset, request, view)

    # DRF declares django_paginator_class as the class; a method answering an instance is
    # called the same way.
    def django_paginator_class(self, queryset: Any, page_size: int) -> Paginator[Any]:  # type: ignore[override]
        return KnownCountPaginator(queryset, page_size, count=self._known_count)


def _too_large(request: Request) -> Response | None:
    length = int(request.META.get("CONTENT_LENGTH") or 0)
    if length > services.max_upload_bytes():
        return Response(
            {"detail": services.upload_too_large_message(length)},
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    return None


class SnapshotListCreate(generics.ListAPIView[models.Snapshot]):
    serializer_class = SnapshotSerializer
    parser_classes = [JSONBodyParser, MultiPartParser]
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[models.Snapshot]:
        snapshots = selectors.snapshot_list(
            user=self.request.user, team=self.request.query_params.get("team")
        )
        cluster = self.request.query_params.get("cluster")
        if cluster is None:
            return snapshots
        if not cluster.isdigit():
            return snapshots.none()
        return snapshots.filter(cluster_id=int(cluster)).order_by("-taken_at", "-id")

    @extend_schema(
        summary="List your snapshots and your teams', newest first",
        parameters=[
            OpenApiParameter("team", str, description="Only those given to this team."),
            OpenApiParameter(
                "cluster",
                int,
                description="Only the snapshots read from this connected cluster (newest "
                "taken first).",
            ),
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Upload a snapshot",
        description="Multipart (name, files: one or more JSON/YAML files that merge) or JSON "
        "({name, objects}). Small uploads are ingested at once (201, status ready); large "
        "ones are queued for a worker (202, status ingesting: poll `url`). A snapshot that "
        "cannot be ingested at once answers 400 naming the file, object and field; nothing "
        "is kept.",
        request={
            "multipart/form-data": SnapshotMultipartCreateSerializer,
            "application/json": SnapshotJSONCreateSerializer,
        },
        responses={
            201: OpenApiResponse(SnapshotSerializer, description="Ingested: ready."),
            202: OpenApiResponse(SnapshotSerializer, description="Queued: ingesting."),
            400: OpenApiResponse(ErrorSerializer, description="Invalid input; nothing kept."),
            413: OpenApiResponse(ErrorSerializer, description="Over MAX_UPLOAD_MB."),
            429: OpenApiResponse(
                ErrorSerializer,
                description="As much work queued, running or ingesting as one user may have "
                "(PREEMPTLAB_UNFINISHED_PER_USER); nothing kept. Retry after Retry-After.",
            ),
        },
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if (refused := _too_large(request)) is not None:
            return refused
        multipart = request.content_type.startswith("multipart/")
        try:
            # Refused before anything is stored: a team the user is not in.
            team = access.team_named(
                request.user,
                request.POST.get("team") if multipart else _team_of(request.data),
            )
        except access.NotAMember as err:
            return Response({"team": [str(err)]}, status=status.HTTP_400_BAD_REQUEST)
        try:
            if multipart:
                data = {
                    # request.POST is request.data for a form body, typed as the QueryDict it is
                    "name": request.POST.get("name", ""),
                    "files": request.FILES.getlist("files"),
                }
                form = SnapshotMultipartCreateSerializer(data=data)
                form.is_valid(raise_exception=True)
                files = [
                    services.UploadedFile(name=f.name, data=b"", stream=f)
                    for f in form.validated_data["files"]
                ]
                snapshot = services.snapshot_create(
                    owner=request.user, name=form.validated_data.get("name") or "", files=files
                )
            else:
                json_form = SnapshotJSONCreateSerializer(data=request.data)
                json_form.is_valid(raise_exception=True)
                snapshot = services.snapshot_create_from_objects(
                    owner=request.user,
                    name=json_form.validated_data.get("name") or "",
                    objects=json_form.validated_data["objects"],
                )
        except services.SnapshotRejected as err:
            return Response({"detail": err.message}, status=err.status)
        if team is not None:
            services.snapshot_give(snapshot=snapshot, team=team)
        body = SnapshotSerializer(snapshot, context=self.get_serializer_context()).data
        code = status.HTTP_201_CREATED if snapshot.is_ready else status.HTTP_202_ACCEPTED
        return Response(body, status=code, headers={"Location": body["url"]})


def _team_of(data: Any) -> str | None:
    team = data.get("team") if isinstance(data, dict) else None
    return team if isinstance(team, str) else None


class SnapshotDetail(generics.RetrieveDestroyAPIView[models.Snapshot]):
    serializer_class = SnapshotSerializer

    def get_object(self) -> models.Snapshot:
        return selectors.snapshot_get(user=self.request.user, snapshot_id=self.kwargs["pk"])

    @extend_schema(summary="A snapshot: status, error, counts, warnings")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Delete a snapshot and everything in it",
        responses={
            204: None,
            403: OpenApiResponse(ErrorSerializer, description="A member; says who may."),
        },
    )
    def delete(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().delete(request, *args, **kwargs)

    @extend_schema(
        summary="Rename a snapshot, or give it to a team of yours (or to none)",
        request=SnapshotPatchSerializer,
        responses={
            200: SnapshotSerializer,
            400: OpenApiResponse(ErrorSerializer, description="Not a team of yours."),
            403: OpenApiResponse(
                ErrorSerializer, description="A member: only its owner or a team admin changes it."
            ),
        },
    )
    def patch(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        snapshot = self.get_object()
        form = SnapshotPatchSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        # Who may delete it may give it away: its owner or an admin of its team.
        access.check_change(request.user, snapshot, action=access.CHANGE_TEAM)
        changes = form.validated_data
        if "team" in changes:
            try:
                team = access.team_named(request.user, changes["team"])
            except access.NotAMember as err:
                return Response({"team": [str(err)]}, status=status.HTTP_400_BAD_REQUEST)
            services.snapshot_give(snapshot=snapshot, team=team)
        if "name" in changes:
            services.snapshot_rename(snapshot=snapshot, name=changes["name"])
        return Response(self.get_serializer(snapshot).data)

    def perform_destroy(self, instance: models.Snapshot) -> None:
        access.check_delete(self.request.user, instance)
        services.snapshot_delete(snapshot=instance)


class SnapshotPin(generics.GenericAPIView[models.Snapshot]):
    """POST/DELETE /api/snapshots/{id}/pin/: a connected cluster's retention never deletes a
    pinned snapshot. Its owner or an admin of its team only."""

    serializer_class = SnapshotSerializer

    def get_object(self) -> models.Snapshot:
        return selectors.snapshot_get(user=self.request.user, snapshot_id=self.kwargs["pk"])

    @extend_schema(
        summary="Pin a snapshot: retention never deletes it",
        request=None,
        responses={
            200: SnapshotSerializer,
            403: OpenApiResponse(ErrorSerializer, description="A member; says who may."),
        },
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        snapshot = self.get_object()
        access.check_change(request.user, snapshot, action=access.PIN)
        services.snapshot_pin(snapshot=snapshot, by=request.user)
        return Response(self.get_serializer(snapshot).data)

    @extend_schema(
        summary="Unpin a snapshot: retention treats it as any other",
        responses={
            204: None,
            403: OpenApiResponse(ErrorSerializer, description="A member; says who may."),
        },
    )
    def delete(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        snapshot = self.get_object()
        access.check_change(request.user, snapshot, action=access.UNPIN)
        services.snapshot_pin(snapshot=snapshot, by=request.user, pinned=False)
        return Response(status=status.HTTP_204_NO_CONTENT)


RowT = TypeVar("RowT", bound=Model)


class _SnapshotRows(generics.ListAPIView[RowT]):
    """A ready snapshot's rows of one kind, paginated and filterable."""

    pagination_class = SnapshotRowsPagination
    count_field: str | None = None

    @property
    def snapshot(self) -> models.Snapshot:
        if not hasattr(self, "_snapshot"):
            self._snapshot = selectors.snapshot_get(
                user=self.request.user, snapshot_id=self.kwargs["pk"]
            )
        return self._snapshot

    def known_count(self, request: Request) -> int | None:
        if self.count_field is None or any(k != "page" for k in request.query_params):
            return None
        return int(getattr(self.snapshot, self.count_field))


class SnapshotNodes(_SnapshotRows[models.Node]):
    serializer_class = NodeSerializer
    filterset_class = filters.NodeFilter
    count_field = "node_count"

    def get_queryset(self) -> QuerySet[models.Node]:
        if getattr(self, "swagger_fake_view", False):
            return models.Node.objects.none()
        return selectors.snapshot_nodes(snapshot=self.snapshot)

    @extend_schema(summary="A snapshot's nodes: allocatable and requested per resource")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class SnapshotPods(_SnapshotRows[models.Pod]):
    serializer_class = PodSerializer
    filterset_class = filters.PodFilter
    count_field = "pod_count"

    def get_queryset(self) -> QuerySet[models.Pod]:
        if getattr(self, "swagger_fake_view", False):
            return models.Pod.objects.none()
        return selectors.snapshot_pods(snapshot=self.snapshot)

    @extend_schema(summary="A snapshot's pods: priority, class, QoS, requests, node, phase")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class SnapshotPDBs(_SnapshotRows[models.PodDisruptionBudget]):
    serializer_class = PodDisruptionBudgetSerializer
    filterset_class = filters.PodDisruptionBudgetFilter
    count_field = "pdb_count"

    def get_queryset(self) -> QuerySet[models.PodDisruptionBudget]:
        if getattr(self, "swagger_fake_view", False):
            return models.PodDisruptionBudget.objects.none()
        return selectors.snapshot_pdbs(snapshot=self.snapshot)

    @extend_schema(summary="A snapshot's PodDisruptionBudgets and the pods they match")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class SnapshotPriorityClasses(_SnapshotRows[models.PriorityClass]):
    serializer_class = PriorityClassSerializer
    filterset_class = filters.PriorityClassFilter
    count_field = "priority_class_count"

    def get_queryset(self) -> QuerySet[models.PriorityClass]:
        if getattr(self, "swagger_fake_view", False):
            return models.PriorityClass.objects.none()
        return selectors.snapshot_priority_classes(snapshot=self.snapshot)

    @extend_schema(summary="A snapshot's PriorityClasses, highest value first")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
