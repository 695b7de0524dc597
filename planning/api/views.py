"""The planning API: two analyses compared."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from planning import selectors
from planning.api.serializers import (
    CompareQuerySerializer,
    ComparisonSerializer,
    NotAnsweredSerializer,
)


class AnalysisCompare(APIView):
    @extend_schema(
        summary="Two analyses side by side, the difference first",
        description=(
            "Analysis A against analysis B, each a pod or a workload, on any of the user's "
            "snapshots: `sentence` says the difference in one sentence (“B preempts 2 more "
            "pods than A: …, on node-4 instead of node-2”, “Both fit on node-3: same "
            "answer”); then each side's outcome, nodes, victims, broken PDBs and "
            "snapshot, the victims added and removed from A to B, and the replicas running "
            "per owner. An analysis that is not the caller's answers 404 (whichever it "
            "is); one that is queued, running or failed answers 409 under its parameter."
        ),
        parameters=[CompareQuerySerializer],
        responses={
            200: ComparisonSerializer,
            400: OpenApiResponse(description="`a` or `b` missing or not a positive integer."),
            409: OpenApiResponse(
                NotAnsweredSerializer, description="An analysis has no answer yet (or failed)."
            ),
        },
    )
    def get(self, request: Request) -> Response:
        query = CompareQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        try:
            comparison = selectors.comparison_get(
                user=request.user, a=query.validated_data["a"], b=query.validated_data["b"]
            )
        except selectors.NotAnswered as e:
            return Response({e.field: [e.message]}, status=status.HTTP_409_CONFLICT)
        return Response(ComparisonSerializer(comparison.to_dict()).data)
