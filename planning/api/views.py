"""The planning API: a snapshot's priority plan, two analyses compared."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clusters.selectors import snapshot_get
from planning import selectors
from planning.api.plan_serializers import PlanQuerySerializer, PlanSerializer
from planning.api.serializers import (
    CapacityComparisonSerializer,
    CompareQuerySerializer,
    ComparisonSerializer,
    NotAnsweredSerializer,
)
from planning.compare_capacity import CapacityComparison
from planning.first_in_line import first_in_line_request, ranking_line
from planning.models import FirstInLineRanking
from planning.plan import UnknownClasses, with_first_in_line
from planning.services import SnapshotNotReady, snapshot_plan
from scheduling.constants import AnalysisStatus


class AnalysisCompare(APIView):
    @extend_schema(
        summary="Two analyses side by side, the difference first",
        description=(
            "Analysis A against analysis B, on any of the user's snapshots, two answers of "
            "the same kind. Pods and workloads (each with the other): `sentence` says the "
            "difference in one sentence (“B preempts 2 more pods than A: …, on node-4 "
            "instead of node-2”, “Both fit on node-3: same answer”); then each side's "
            "outcome, nodes (`tied_nodes`: the whole set when its node is one of several "
            "kube-scheduler picks from at random; two answers whose tie sets share a node "
            "are not said to move), victims, broken PDBs and snapshot, the victims added "
            "and removed from A to B, and the replicas running per owner. Two capacity "
            "answers (`kind`: capacity; replicas of one pod or the room per tier): the "
            "sentence leads with the replicas that fit and their cost in victims (“B fits 4 "
            "more replicas of 2 CPU / 4Gi than A (12 → 16); 3 more victims (5 → 8)”), then "
            "`classes`, each class with A's and B's room (null: not in that answer). An "
            "analysis that is not the caller's answers 404 (whichever it is); one that is "
            "queued, running or failed answers 409 under its parameter, and so does a "
            "capacity answer against a pod's or a workload's (under the capacity one)."
        ),
        parameters=[CompareQuerySerializer],
        responses={
            200: PolymorphicProxySerializer(
                component_name="AnyComparison",
                serializers=[ComparisonSerializer, CapacityComparisonSerializer],
                resource_type_field_name=None,
            ),
            400: OpenApiResponse(description="`a` or `b` missing or not a positive integer."),
            409: OpenApiResponse(
                NotAnsweredSerializer,
                description="An analysis has no answer yet (or failed), or the two are not "
                "of the same kind (a capacity answer and a pod's or a workload's).",
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
        except selectors.NotCompared as e:
            return Response({e.field: [e.message]}, status=status.HTTP_409_CONFLICT)
        if isinstance(comparison, CapacityComparison):
            return Response(CapacityComparisonSerializer(comparison.to_dict()).data)
        return Response(ComparisonSerializer(comparison.to_dict()).data)


class SnapshotPlanView(APIView):
    @extend_schema(
        summary="The priority plan of a snapshot: its PriorityClass ladder and the audit",
        description=(
            "Every PriorityClass with what uses it (pods, apps, requested cpu and memory and "
            "their share of the cluster, PodDisruptionBudget coverage, namespaces, quotas), "
            "the pods without a class and those naming a deleted one, and the audit's "
            "findings: each with a stable rule id, a severity, the objects it names, why it "
            "matters (citing its source) and a YAML fix; and `first_in_line`: every app ranked "
            "by how many probe pods of the size `cpu` and `memory` (defaults 1 and 2Gi), one "
            "priority above the app's, kube-scheduler places before it preempts one of the "
            "app's pods (at most `limit` per level), with `first_in_line_probe` saying how it "
            "was measured (`first_in_line=0` leaves both out, for the plan alone). "
            "A worker ranks the apps once per snapshot, probe size and limit and the answer "
            "is kept: until it is stored this answers 202 (Location: this URL) with the plan, "
            "`first_in_line` null and `first_in_line_status` queued or running; poll it. "
            "Anyone else's snapshot answers 404; one still ingesting (or failed) 409; a "
            "new ranking beyond the user's unfinished work (PREEMPTLAB_UNFINISHED_PER_USER, "
            "analyses counted) 429."
        ),
        parameters=[PlanQuerySerializer],
        responses={
            200: PlanSerializer,
            202: OpenApiResponse(
                PlanSerializer, description="The plan; first in line is being ranked."
            ),
            400: OpenApiResponse(
                description="A critical class the snapshot does not have; a size that is "
                "not a quantity; a limit out of range."
            ),
            409: OpenApiResponse(description="The snapshot is not ready."),
            429: OpenApiResponse(description="Too much of the user's work is unfinished."),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        snapshot = snapshot_get(user=request.user, snapshot_id=pk)
        params = request.query_params
        data: dict[str, object] = {
            "critical": [
                name.strip()
                for given in params.getlist("critical")
                for name in given.split(",")
                if name.strip()
            ]
        }
        data.update(
            {
                k: params[k]
                for k in ("first_in_line", "cpu", "memory", "limit", "retry")
                if k in params
            }
        )
        query = PlanQuerySerializer(data=data)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        try:
            body = snapshot_plan(snapshot=snapshot, critical_classes=q["critical"]).to_dict()
            if not q["first_in_line"]:
                return Response(PlanSerializer(body).data)
            ranking = first_in_line_request(
                snapshot=snapshot,
                cpu_millis=q["cpu_millis"],
                memory_bytes=q["memory_bytes"],
                limit=q["limit"],
                retry=q["retry"],
                requested_by=request.user,
            )
        except SnapshotNotReady as e:
            return Response({"detail": e.message}, status=status.HTTP_409_CONFLICT)
        except UnknownClasses as e:
            return Response({"critical": [str(e)]}, status=status.HTTP_400_BAD_REQUEST)
        url = _poll_url(request)
        body = _with_ranking(body, ranking, url=url)
        if ranking.is_active:
            return Response(
                PlanSerializer(body).data,
                status=status.HTTP_202_ACCEPTED,
                headers={"Location": url},
            )
        return Response(PlanSerializer(body).data)


def _poll_url(request: Request) -> str:
    """This plan's URL with the same question, without ``retry`` (polling it must not
    queue a failed ranking again and again)."""
    query = request.query_params.copy()
    query.pop("retry", None)
    encoded = query.urlencode()
    return request.path + (f"?{encoded}" if encoded else "")


def _with_ranking(
    body: dict[str, object], ranking: FirstInLineRanking, *, url: str
) -> dict[str, object]:
    """The plan's answer with the ranking as far as it got: the apps once done (the shape
    DESIGN.md's REST API has), null with its status while a worker ranks them."""
    line = ranking_line(ranking)
    if line is not None:
        body = with_first_in_line(body, line)
    else:
        body |= {"first_in_line": None, "first_in_line_probe": None}
    body |= {"first_in_line_status": ranking.status, "first_in_line_url": url}
    if ranking.status == AnalysisStatus.RUNNING:
        body["first_in_line_progress"] = {
            "runs_done": ranking.runs_done,
            "runs_total": ranking.runs_total,
        }
    if ranking.is_failed:
        body["first_in_line_error"] = ranking.error
    return body
