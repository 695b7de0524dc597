"""The scheduler configuration API: a snapshot's configuration (read, set, cleared back to
the default profile) and the presets a what-if or a snapshot can name."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clusters import access
from clusters.models import Snapshot
from clusters.selectors import snapshot_get
from scheduling.analyses.submission import PodRejected
from scheduling.scheduler_config.choice import (
    choice_given,
    preset_body,
    presets,
    snapshot_choice,
    snapshot_scheduler_set,
)

FORBIDDEN = OpenApiResponse(
    inline_serializer("Forbidden", {"detail": serializers.CharField(help_text="Who may.")}),
    description="A member of its team: only its owner or a team admin changes it.",
)


class PresetSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(help_text="What `scheduler_preset` takes.")
    title = serializers.CharField()
    origin = serializers.CharField(help_text="Where the configuration comes from.")
    config = serializers.JSONField(help_text="The KubeSchedulerConfiguration.")


class SchedulerConfigInput(serializers.Serializer[Any]):
    scheduler_config = serializers.JSONField(
        required=False,
        help_text="A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as an object "
        "or YAML/JSON text.",
    )
    scheduler_preset = serializers.CharField(required=False, help_text="A preset's name.")


class SnapshotSchedulerSerializer(serializers.Serializer[Any]):
    # DRF's metaclass takes declared fields out of the class: this does not shadow
    # Field.source at run time, only in the type checker's eyes.
    source = serializers.CharField(  # type: ignore[assignment]
        help_text='"snapshot" when it has one, else "default".'
    )
    preset = serializers.CharField(allow_null=True)
    origin = serializers.CharField(help_text="Where the snapshot's configuration came from.")
    scheduler_config = serializers.JSONField(allow_null=True)
    profile = serializers.JSONField(help_text="The `scheduler_profile` its analyses report.")


def snapshot_scheduler_body(snapshot: Snapshot) -> dict[str, Any]:
    choice = snapshot_choice(snapshot)
    return {
        "source": str(choice.source),
        "preset": choice.preset or None,
        "origin": snapshot.scheduler_origin,
        "scheduler_config": choice.config,
        "profile": choice.profile(),
    }


class SchedulerPresets(APIView):
    @extend_schema(
        responses=PresetSerializer(many=True),
        summary="List the scheduler presets",
        description="Each preset a what-if (`scheduler_preset`) or a snapshot can name: its "
        "name, title, where it comes from and its KubeSchedulerConfiguration.",
    )
    def get(self, request: Request) -> Response:
        return Response([preset_body(p) for p in presets().values()])


class SnapshotSchedulerConfig(APIView):
    @extend_schema(
        responses=SnapshotSchedulerSerializer,
        summary="The snapshot's scheduler configuration",
    )
    def get(self, request: Request, snapshot_id: int) -> Response:
        snapshot = snapshot_get(user=request.user, snapshot_id=snapshot_id)
        return Response(snapshot_scheduler_body(snapshot))

    @extend_schema(
        request=SchedulerConfigInput,
        responses={
            200: SnapshotSchedulerSerializer,
            400: OpenApiResponse(
                description="Not a KubeSchedulerConfiguration, invalid (kube-scheduler's words "
                "and field path), or an unknown preset; nothing is stored."
            ),
            403: FORBIDDEN,
        },
        summary="Set the snapshot's scheduler configuration",
        description="Its new analyses run under it unless a what-if gives its own; analyses "
        "already made keep the configuration they ran under. The plan's audit reads it. "
        "Its owner or an admin of its team only (403 for a member, saying who may).",
    )
    def put(self, request: Request, snapshot_id: int) -> Response:
        snapshot = snapshot_get(user=request.user, snapshot_id=snapshot_id)
        access.check_change(request.user, snapshot, action=access.CHANGE_CONFIG)
        incoming = SchedulerConfigInput(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        try:
            choice = choice_given(
                config=data.get("scheduler_config"), preset=data.get("scheduler_preset")
            )
        except PodRejected as e:
            return Response({e.field: [e.message]}, status=status.HTTP_400_BAD_REQUEST)
        if choice is None:
            return Response(
                {
                    "non_field_errors": [
                        "Give 'scheduler_config' or 'scheduler_preset' (DELETE goes back to "
                        "the default profile)."
                    ]
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        snapshot_scheduler_set(snapshot=snapshot, choice=choice)
        return Response(snapshot_scheduler_body(snapshot))

    @extend_schema(
        responses={204: None, 403: FORBIDDEN},
        summary="Back to the default profile",
        description="Its owner or an admin of its team only (403 for a member, saying who may).",
    )
    def delete(self, request: Request, snapshot_id: int) -> Response:
        snapshot = snapshot_get(user=request.user, snapshot_id=snapshot_id)
        access.check_change(request.user, snapshot, action=access.CHANGE_CONFIG)
        snapshot_scheduler_set(snapshot=snapshot, choice=None)
        return Response(status=status.HTTP_204_NO_CONTENT)
