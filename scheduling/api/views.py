"""The analyses API: submit a what-if (202), follow it, read the result, share it.

"Run an analysis" is an explicit POST on the snapshot's analyses, not a CRUD
create: it validates the pod, queues the Celery task and answers 202 with the
analysis' URL. Everything is scoped to the requesting user; anyone else's
snapshot, analysis or share link answers 404.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clusters.selectors import snapshot_get
from scheduling import selectors, services
from scheduling.api.serializers import (
    AnalysisAcceptedSerializer,
    AnalysisCreateSerializer,
    AnalysisDetailSerializer,
    AnalysisSerializer,
    ShareLinkSerializer,
)
from scheduling.constants import AnalysisSource
from scheduling.models import Analysis

FieldErrors = inline_serializer(
    "AnalysisFieldErrors",
    {
        "pod": serializers.ListField(child=serializers.CharField(), required=False),
        "manifest": serializers.ListField(child=serializers.CharField(), required=False),
        "objects": serializers.ListField(child=serializers.CharField(), required=False),
        "non_field_errors": serializers.ListField(child=serializers.CharField(), required=False),
    },
)
Conflict = inline_serializer(
    "SnapshotNotReady", {"snapshot": serializers.ListField(child=serializers.CharField())}
)


class SnapshotAnalyses(generics.GenericAPIView[Analysis]):
    serializer_class = AnalysisSerializer
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[Analysis]:
        snapshot = snapshot_get(user=self.request.user, snapshot_id=self.kwargs["snapshot_id"])
        return selectors.analysis_list(user=self.request.user, snapshot=snapshot)

    @extend_schema(
        responses=AnalysisSerializer(many=True),
        summary="List the snapshot's analyses",
        description="Newest first, paginated; without results (GET each analysis for its result).",
    )
    def get(self, request: Request, snapshot_id: int) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        summary="Run a what-if analysis",
        description=(
            "Submit a pending Pod (as `pod`, a JSON object, or `manifest`, YAML or JSON text) "
            "or a workload (`manifest` holding Deployments, ReplicaSets, StatefulSets, Jobs, a "
            "List or several documents, or `objects`, a list of them; `recreate_victims` adds "
            "the cascade) to be analyzed on the snapshot by a worker. Answers 202 at once with "
            "the analysis' URL; GET it until `status` is `done` (then `result` holds the "
            "contract of its `kind`: pod or workload) or `failed` (then `error` says why). "
            "Malformed input (0 replicas, more than the replica limit, a template without "
            "containers, a selector that misses the template's labels, an unknown kind or "
            "PriorityClass) answers 400 under the field it came from, and nothing is stored."
        ),
        request=AnalysisCreateSerializer,
        responses={
            202: AnalysisAcceptedSerializer,
            400: OpenApiResponse(FieldErrors, description="The pod or manifest is invalid."),
            404: OpenApiResponse(description="No such snapshot (or not yours)."),
            409: OpenApiResponse(Conflict, description="The snapshot is not ready."),
        },
    )
    def post(self, request: Request, snapshot_id: int) -> Response:
        snapshot = snapshot_get(user=request.user, snapshot_id=snapshot_id)
        incoming = AnalysisCreateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        field = data["field"]
        try:
            if "objects" in data:
                analysis = services.analysis_create_workload(
                    snapshot=snapshot,
                    objects=data["objects"],
                    recreate_victims=data["recreate_victims"],
                    source=AnalysisSource.API,
                    field=field,
                )
            else:
                analysis = services.analysis_create(
                    snapshot=snapshot, pod=data["pod"], source=AnalysisSource.API
                )
        except services.SnapshotNotReady as e:
            return Response({"snapshot": [e.message]}, status=status.HTTP_409_CONFLICT)
        except services.PodRejected as e:
            return Response({field: [e.message]}, status=status.HTTP_400_BAD_REQUEST)
        body = AnalysisAcceptedSerializer(analysis, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})


class AnalysisDetail(generics.RetrieveAPIView[Analysis]):
    serializer_class = AnalysisDetailSerializer

    def get_object(self) -> Analysis:
        return selectors.analysis_get(user=self.request.user, analysis_id=self.kwargs["pk"])

    @extend_schema(
        summary="An analysis: status and, when done, the result",
        responses={200: AnalysisDetailSerializer, 404: OpenApiResponse(description="Not yours.")},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class AnalysisShareLinks(APIView):
    @extend_schema(
        summary="The analysis' active share links",
        responses={200: ShareLinkSerializer(many=True)},
    )
    def get(self, request: Request, pk: int) -> Response:
        analysis = selectors.analysis_get(user=request.user, analysis_id=pk)
        links = selectors.share_link_list(analysis=analysis)
        return Response(ShareLinkSerializer(links, many=True, context={"request": request}).data)

    @extend_schema(
        summary="Create a share link",
        description="An unguessable token; its URL shows the analysis read-only without login.",
        request=None,
        responses={201: ShareLinkSerializer, 404: OpenApiResponse(description="Not yours.")},
    )
    def post(self, request: Request, pk: int) -> Response:
        analysis = selectors.analysis_get(user=request.user, analysis_id=pk)
        link = services.share_link_create(analysis=analysis)
        return Response(
            ShareLinkSerializer(link, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class ShareLinkDetail(APIView):
    @extend_schema(
        summary="Revoke a share link",
        description="From then on the link answers 404.",
        responses={204: None, 404: OpenApiResponse(description="Unknown, revoked or not yours.")},
    )
    def delete(self, request: Request, token: str) -> Response:
        link = selectors.share_link_get(user=request.user, token=token)
        services.share_link_revoke(share_link=link)
        return Response(status=status.HTTP_204_NO_CONTENT)
