"""The advice API: ask for it (202), follow it (202), read it (200).

Scoped as the analyses are: another user's analysis answers 404. An analysis advice
cannot answer (a capacity what-if, a cycle's explanation, one still queued or running,
one that failed) answers 409 with the reason. Asking beyond the user's unfinished work
answers 429, as a what-if does; the API's rate throttle applies.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from advice import selectors, services
from advice.api.serializers import (
    AdviceDoneSerializer,
    AdviceProblemSerializer,
    AdviceStateSerializer,
)
from advice.models import Advice
from scheduling import selectors as analyses

CONTRACT = (
    "Each item of `advice` is exactly the advice contract: `{kind, change, outcome, node, "
    "victims, pdbs_exceeded, proof: {runs, seconds, one_step_less}}`, most useful first; "
    "`kind` one of smaller-request, add-nodes, fewer-replicas, wait-instead, protect, "
    "relax, fewer-devices, first-available (a claim of a pod waiting for DRA devices; its "
    '`create` replaces the ResourceClaim or ResourceClaimTemplate of that name); `change` machine-applicable: `{"object": I, "patch": [RFC 6902 ops]}` for the '
    "I-th submitted object (0 for a lone pod; a workload's objects in submission order), "
    '`{"add_nodes": N, "like": NODE}`, or `{"create": [manifest]}`. A change is minimal '
    "within its kind's granularity (cpu 10m, memory 16Mi, 1 node, 1 replica): "
    "`proof.one_step_less` is the engine's answer one step short of it. "
    '`"advice": []` where nothing needs avoiding (or no single change of the kinds '
    "searched avoids it). The whole advice gets one analysis' time "
    "(PREEMPTLAB_ANALYSIS_SECONDS): `search.stopped_early` says the budget stopped it."
)


def _state(request: Request, advice: Advice, code: int) -> Response:
    body = AdviceStateSerializer(advice, context={"request": request}).data
    return Response(body, status=code, headers={"Location": body["url"]})


class AnalysisAdvice(APIView):
    @extend_schema(
        summary="Ask for advice: the smallest single changes that avoid the answer",
        description=(
            "For a finished pod or workload what-if whose answer preempts, exceeds a "
            "PodDisruptionBudget or leaves replicas pending: a worker tries single changes, "
            "each answered again by the engine. Answers 202 with the advice's URL (the same "
            "URL; Location header); asking again returns the stored advice's state (a "
            "failed one, or one of an older engine, is searched again). " + CONTRACT
        ),
        request=None,
        responses={
            202: AdviceStateSerializer,
            404: OpenApiResponse(description="No such analysis (or not yours)."),
            409: OpenApiResponse(
                AdviceProblemSerializer,
                description="A capacity what-if, a cycle's explanation, or an analysis "
                "without its answer yet (queued, running, failed).",
            ),
            429: OpenApiResponse(description="Too much unfinished work, or too many calls."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        analysis = analyses.analysis_get_light(user=request.user, analysis_id=pk)
        try:
            advice = services.advice_request(analysis=analysis, requested_by=request.user)
        except services.NotAdvisable as e:
            return Response({"detail": e.message}, status=status.HTTP_409_CONFLICT)
        return _state(request, advice, status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="The advice of an analysis",
        description=(
            "202 while queued or running (`runs_done`: the engine runs made so far); 200 "
            "when done, with `advice` (the contract), `notes` (findings that are no change), "
            "`search` (runs, seconds, `stopped_early`, per kind) and `baseline` (the answer "
            "as asked); 200 with `status` failed and `error` when the search failed. 404 "
            "before anyone asked (POST to this URL). " + CONTRACT
        ),
        responses={
            200: PolymorphicProxySerializer(
                "AdviceRepresentation",
                serializers=[AdviceDoneSerializer, AdviceStateSerializer],
                resource_type_field_name=None,
            ),
            202: AdviceStateSerializer,
            404: OpenApiResponse(
                AdviceProblemSerializer,
                description="No such analysis (or not yours), or no advice asked yet.",
            ),
            409: OpenApiResponse(
                AdviceProblemSerializer, description="An analysis advice cannot answer."
            ),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        analysis = analyses.analysis_get_light(user=request.user, analysis_id=pk)
        try:
            services.advisable_check(analysis)
        except services.NotAdvisable as e:
            return Response({"detail": e.message}, status=status.HTTP_409_CONFLICT)
        advice = services.advice_get(analysis=analysis)
        if advice is None:
            return Response(
                {"detail": "No advice was asked for this analysis: POST to this URL."},
                status=status.HTTP_404_NOT_FOUND,
            )
        if advice.is_active:
            return _state(request, advice, status.HTTP_202_ACCEPTED)
        if advice.is_failed:
            return Response(AdviceStateSerializer(advice, context={"request": request}).data)
        done = selectors.advice_full(advice)
        return Response(AdviceDoneSerializer(done, context={"request": request}).data)
