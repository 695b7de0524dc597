"""The analyses API: submit a what-if (202), follow it, read the result, share it.

"Run an analysis" is an explicit POST on the snapshot's analyses, not a CRUD
create: it validates the pod, queues the Celery task and answers 202 with the
analysis' URL. Everything is scoped to the requesting user; anyone else's
snapshot, analysis or share link answers 404.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse, HttpResponseNotModified
from django.http.response import HttpResponseBase
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    inline_serializer,
)
from rest_framework import generics, serializers, status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clusters import access
from clusters.selectors import snapshot_get
from operations.input_limits import submission_body
from scheduling import selectors, services
from scheduling.analyses import rendered_cache, submission
from scheduling.api.serializers import (
    TAKE_NODES_AWAY_FIELDS,
    AnalysisAcceptedSerializer,
    AnalysisCompactSerializer,
    AnalysisCreateSerializer,
    AnalysisDetailSerializer,
    AnalysisSerializer,
    RejectedNodeSerializer,
    ShareLinkSerializer,
)
from scheduling.constants import AnalysisKind, AnalysisSource
from scheduling.models import Analysis

FieldErrors = inline_serializer(
    "AnalysisFieldErrors",
    {
        "pod": serializers.ListField(child=serializers.CharField(), required=False),
        "manifest": serializers.ListField(child=serializers.CharField(), required=False),
        "objects": serializers.ListField(child=serializers.CharField(), required=False),
        "priority_classes": serializers.ListField(child=serializers.CharField(), required=False),
        "limit": serializers.ListField(child=serializers.CharField(), required=False),
        "size": serializers.ListField(child=serializers.CharField(), required=False),
        **{
            k: serializers.ListField(child=serializers.CharField(), required=False)
            for k in TAKE_NODES_AWAY_FIELDS
        },
        "scheduler_config": serializers.ListField(child=serializers.CharField(), required=False),
        "scheduler_preset": serializers.ListField(child=serializers.CharField(), required=False),
        "non_field_errors": serializers.ListField(child=serializers.CharField(), required=False),
    },
)
OutcomeErrors = inline_serializer(
    "AnalysisListErrors", {"outcome": serializers.ListField(child=serializers.CharField())}
)
Conflict = inline_serializer(
    "SnapshotNotReady", {"snapshot": serializers.ListField(child=serializers.CharField())}
)


@submission_body
class SnapshotAnalyses(generics.GenericAPIView[Analysis]):
    serializer_class = AnalysisSerializer
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[Analysis]:
        snapshot = snapshot_get(user=self.request.user, snapshot_id=self.kwargs["snapshot_id"])
        return selectors.analysis_list(
            user=self.request.user, snapshot=snapshot, team=self.request.query_params.get("team")
        )

    @extend_schema(
        responses={
            200: AnalysisSerializer(many=True),
            400: OpenApiResponse(OutcomeErrors, description="An unknown outcome."),
        },
        parameters=[
            OpenApiParameter(
                "outcome",
                str,
                enum=list(selectors.OUTCOME_FILTERS),
                description="Only the pods of this outcome (fits, preempts, unschedulable), "
                "the workloads of this outcome (all-run, some-run, none-run), every "
                "workload (workload), or the nodes taken away of this verdict (completes, "
                "blocked, stopped).",
            )
        ],
        summary="List the snapshot's analyses",
        description="Newest first, paginated; without results (GET each analysis for its result).",
    )
    def get(self, request: Request, snapshot_id: int) -> Response:
        outcome = request.query_params.get("outcome", "")
        if outcome and outcome not in selectors.OUTCOME_FILTERS:
            raise serializers.ValidationError(
                {"outcome": [f"Give one of {', '.join(selectors.OUTCOME_FILTERS)}."]}
            )
        rows = selectors.AnalysisFilters(outcome=outcome).apply(self.get_queryset())
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        summary="Run a what-if analysis",
        description=(
            "Submit a pending Pod (as `pod`, a JSON object, or `manifest`, YAML or JSON text) "
            "or a workload (`manifest` holding Deployments, ReplicaSets, StatefulSets, Jobs, a "
            "List or several documents, or `objects`, a list of them; `recreate_victims` adds "
            "the cascade, `timeline` keeps time: grace periods, arrivals) to be analyzed on the snapshot by a worker. Answers 202 at once with "
            "the analysis' URL; GET it until `status` is `done` (then `result` holds the "
            "contract of its `kind`: pod or workload) or `failed` (then `error` says why). "
            "Malformed input (0 replicas, more than the replica limit, a template without "
            "containers, a selector that misses the template's labels, an unknown kind or "
            "PriorityClass) answers 400 under the field it came from, and nothing is stored. "
            "PriorityClass objects (in `priority_classes`, or among the manifest's documents "
            "or the objects) are the what-if's own classes, in effect for it only: new "
            "classes, or new values for the snapshot's; a class the API server would refuse "
            "(value above 1000000000, a 'system-' name, a second globalDefault) answers 400 "
            "naming the object and its field. "
            '`{"kind": "capacity", "pod"|"manifest": ..., "limit": N}` asks how many '
            "replicas of one Pod fit (as the pods of one ReplicaSet), without and with "
            'preemption, with the cost of each; `{"kind": "capacity", "size": {"cpu", '
            '"memory"}, "limit": N}` asks it of one pod of that size in every user '
            "PriorityClass. `result` then holds the capacity answer. "
            '`{"kind": "take-nodes-away", "nodes": [...] | "selector": "k=v,..." | "zone": '
            '"...", "how": "drain"|"lost", "force": bool, "max_unavailable": N, "add_nodes": '
            '{"count": N, "like": NODE}}` asks what happens when those nodes are drained or '
            "lost: where every evicted pod returns, whom it preempts, which PDB blocks the "
            "drain (a bad field answers 400 under its name). `result` then holds that answer. "
            "`scheduler_config` (a KubeSchedulerConfiguration object or YAML/JSON text) or "
            "`scheduler_preset` (GET /api/scheduler-presets/) runs any kind under that "
            "scheduler configuration instead of the snapshot's (PUT "
            "/api/snapshots/{id}/scheduler-config/) or the default profile; an invalid one "
            "answers 400 under its field with kube-scheduler's words and field path. "
            "`result.scheduler_profile` names it and `scheduler_difference` says in one "
            "sentence how the default profile's answer differs."
        ),
        request=AnalysisCreateSerializer,
        responses={
            202: AnalysisAcceptedSerializer,
            400: OpenApiResponse(
                FieldErrors,
                description="The pod or manifest is invalid, or beyond a limit: the body "
                "beyond PREEMPTLAB_SUBMISSION_MAX_BYTES (non_field_errors, refused unread), "
                "an object's annotations beyond 256 KiB, a workload's pods beyond "
                "PREEMPTLAB_WORKLOAD_MAX_BYTES.",
            ),
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
        classes, classes_field = data["priority_classes"], data["classes_field"]
        if data.get("kind") == AnalysisKind.TAKE_NODES_AWAY:
            field = ""  # its refusals name their own field (nodes, how, add_nodes, ...)
        try:
            if data.get("kind") == AnalysisKind.TAKE_NODES_AWAY:
                from scheduling.services import analysis_create_take_nodes_away

                analysis = analysis_create_take_nodes_away(
                    snapshot=snapshot,
                    body=data["body"],
                    source=AnalysisSource.API,
                    priority_classes=classes,
                    scheduler=data["scheduler"],
                    requested_by=request.user,
                )
            elif data.get("kind") == AnalysisKind.CAPACITY:
                analysis = services.analysis_create_capacity(
                    snapshot=snapshot,
                    pod=data.get("pod"),
                    size=data.get("size"),
                    limit=data["limit"],
                    source=AnalysisSource.API,
                    field=field,
                    priority_classes=classes,
                    classes_field=classes_field,
                    scheduler=data["scheduler"],
                    requested_by=request.user,
                )
            elif "objects" in data:
                analysis = services.analysis_create_workload(
                    snapshot=snapshot,
                    objects=data["objects"],
                    recreate_victims=data["recreate_victims"],
                    timeline=data["timeline"],
                    source=AnalysisSource.API,
                    field=field,
                    priority_classes=classes,
                    classes_field=classes_field,
                    scheduler=data["scheduler"],
                    requested_by=request.user,
                )
            else:
                analysis = services.analysis_create(
                    snapshot=snapshot,
                    pod=data["pod"],
                    source=AnalysisSource.API,
                    preemption_args=data["preemption_args"],
                    priority_classes=classes,
                    field=classes_field,
                    scheduler=data["scheduler"],
                    requested_by=request.user,
                )
        except submission.SnapshotNotReady as e:
            return Response({"snapshot": [e.message]}, status=status.HTTP_409_CONFLICT)
        except submission.PodRejected as e:
            where = e.field if e.field == classes_field or not field else field
            return Response({where: [e.message]}, status=status.HTTP_400_BAD_REQUEST)
        body = AnalysisAcceptedSerializer(analysis, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})


class AnalysisDetail(generics.RetrieveDestroyAPIView[Analysis]):
    """A finished analysis is rendered once per web process and served from memory after
    that, with an ETag (If-None-Match answers 304): polling clients never rebuild it."""

    serializer_class = AnalysisDetailSerializer

    def get_object(self) -> Analysis:
        return selectors.analysis_get(user=self.request.user, analysis_id=self.kwargs["pk"])

    def perform_destroy(self, instance: Analysis) -> None:
        access.check_delete(self.request.user, instance)
        services.analysis_delete(analysis=instance)

    def get_serializer_class(self) -> Any:
        if self.request.query_params.get("view") == "compact":
            return AnalysisCompactSerializer
        return AnalysisDetailSerializer

    @extend_schema(
        summary="An analysis: status and, when done, the result",
        description="`?view=compact` leaves out the explanation and the result's "
        "`rejected_nodes` (paginated at `rejected_nodes_url`). A finished analysis carries "
        "an ETag; send it back in If-None-Match to get a 304 without the body.",
        parameters=[
            OpenApiParameter(
                "view",
                str,
                enum=["full", "compact"],
                description="compact: without the explanation and the rejected nodes",
            )
        ],
        responses={
            200: PolymorphicProxySerializer(
                "AnalysisRepresentation",
                serializers=[AnalysisDetailSerializer, AnalysisCompactSerializer],
                resource_type_field_name=None,
            ),
            304: OpenApiResponse(description="Not modified (If-None-Match matched)."),
            404: OpenApiResponse(description="Not yours."),
        },
    )
    # A cached body is a plain HttpResponse, not a DRF Response.
    def get(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:  # type: ignore[override]
        light = selectors.analysis_get_light(user=request.user, analysis_id=kwargs["pk"])
        if light.is_active or getattr(request.accepted_renderer, "format", "") != "json":
            return super().get(request, *args, **kwargs)
        view = "compact" if request.query_params.get("view") == "compact" else "full"
        etag = rendered_cache.analysis_etag(light, f"{view}|{request.get_host()}|{request.scheme}")
        headers = {
            "ETag": etag,
            "Cache-Control": "private, no-cache",
            "Vary": "Accept, Cookie, Authorization",
        }
        if etag in request.headers.get("If-None-Match", ""):
            return HttpResponseNotModified(headers=headers)
        body = rendered_cache.rendered_get(etag)
        if body is None:
            analysis = self.get_object()
            data = self.get_serializer(analysis).data
            body = JSONRenderer().render(data)
            rendered_cache.rendered_put(etag, body)
        return HttpResponse(body, content_type="application/json", headers=headers)


class AnalysisRejectedNodes(generics.GenericAPIView[Analysis]):
    serializer_class = RejectedNodeSerializer
    # The nodes come from the analysis' result, not a queryset: none, so the schema's
    # generator need not guess the model.
    queryset = Analysis.objects.none()

    @extend_schema(
        summary="The nodes of a finished analysis that failed the filters, paginated",
        description="The result's `rejected_nodes` (empty until done), page by page.",
        responses=RejectedNodeSerializer(many=True),
    )
    def get(self, request: Request, pk: int) -> Response:
        analysis = selectors.analysis_get(user=request.user, analysis_id=pk)
        nodes = list((analysis.result or {}).get("rejected_nodes") or [])
        page = self.paginate_queryset(nodes)
        return self.get_paginated_response(RejectedNodeSerializer(page, many=True).data)


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
        description="An unguessable token; its URL shows the analysis read-only without "
        "login. Who asked the analysis, the snapshot's owner or a team admin may; another "
        "member gets 403 saying who may.",
        request=None,
        responses={
            201: ShareLinkSerializer,
            403: OpenApiResponse(description="A member, on an analysis someone else asked."),
            404: OpenApiResponse(description="Not yours."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        analysis = selectors.analysis_get(user=request.user, analysis_id=pk)
        access.check_share(request.user, analysis)
        link = services.share_link_create(analysis=analysis, created_by=request.user)
        return Response(
            ShareLinkSerializer(link, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class ShareLinkDetail(APIView):
    @extend_schema(
        summary="Revoke a share link",
        description="From then on the link answers 404. Who made it, the snapshot's owner or "
        "a team admin may; another member gets 403 saying who may.",
        responses={
            204: None,
            403: OpenApiResponse(description="A member, on a link someone else made."),
            404: OpenApiResponse(description="Unknown, revoked or not yours."),
        },
    )
    def delete(self, request: Request, token: str) -> Response:
        link = selectors.share_link_get(user=request.user, token=token)
        access.check_revoke(request.user, link)
        services.share_link_revoke(share_link=link)
        return Response(status=status.HTTP_204_NO_CONTENT)
