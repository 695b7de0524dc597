"""Shapes of the analyses API (DESIGN.md): submit, status and result, share links."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request

from scheduling import services
from scheduling.models import Analysis, ShareLink


class AnalysisCreateSerializer(serializers.Serializer[Any]):
    """Either the Pod as a JSON object, or a manifest (YAML or JSON text) holding one Pod."""

    pod = serializers.JSONField(
        required=False, help_text="The pending Pod as a JSON object (kind Pod)."
    )
    manifest = serializers.CharField(
        required=False,
        trim_whitespace=False,
        help_text="A YAML or JSON manifest holding exactly one Pod.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        has_pod, has_manifest = "pod" in attrs, bool(attrs.get("manifest"))
        if has_pod == has_manifest:
            raise serializers.ValidationError(
                {"non_field_errors": ["Give exactly one of 'pod' and 'manifest'."]}
            )
        if has_manifest:
            try:
                attrs["pod"] = services.pod_from_manifest(text=attrs["manifest"])
            except services.PodRejected as e:
                raise serializers.ValidationError({"manifest": [e.message]}) from None
        elif not isinstance(attrs["pod"], dict):
            raise serializers.ValidationError({"pod": ["Must be a JSON object (a Pod)."]})
        return attrs


class AnalysisAcceptedSerializer(serializers.ModelSerializer[Analysis]):
    url = serializers.SerializerMethodField(help_text="Where to GET the status and the result.")

    class Meta:
        model = Analysis
        fields = ("id", "url", "status")

    def get_url(self, obj: Analysis) -> str:
        request: Request = self.context["request"]
        return request.build_absolute_uri(reverse("scheduling-api:analysis-detail", args=[obj.pk]))


class AnalysisSerializer(AnalysisAcceptedSerializer):
    page_url = serializers.SerializerMethodField(help_text="The analysis' page in the browser.")
    snapshot = serializers.IntegerField(source="snapshot_id", read_only=True)
    pod = serializers.CharField(source="pod_key", read_only=True, help_text='"namespace/name"')

    class Meta:
        model = Analysis
        fields: tuple[str, ...] = (
            "id",
            "url",
            "page_url",
            "snapshot",
            "pod",
            "source",
            "status",
            "error",
            "outcome",
            "created",
            "started_at",
            "finished_at",
            "load_seconds",
            "engine_seconds",
            "engine_version",
            "attempts",
        )

    def get_page_url(self, obj: Analysis) -> str:
        request: Request = self.context["request"]
        return request.build_absolute_uri(obj.get_absolute_url())


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "description": "The result contract of DESIGN.md (the same JSON as "
        "`manage.py whatif --format json`); null until the analysis is done.",
    }
)
class ResultField(serializers.JSONField):
    pass


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "description": "The engine's explanation (schema_version 2): the contract's fields, "
        "every node's filter and dry-run status with why preemption cannot help there, the "
        "scores (plugin x node, totals, the top set), the chosen node before and after, the "
        "victims' details, sampling notes and the fields of the pod that were dropped or used. "
        "Analyses stored in an older shape are served in this one.",
    }
)
class ExplanationField(serializers.Field):  # type: ignore[type-arg]
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, value: Analysis) -> dict[str, Any] | None:
        ex = value.explained
        return ex.to_json() if ex is not None else None


class AnalysisDetailSerializer(AnalysisSerializer):
    submitted_pod = serializers.JSONField(source="pod", read_only=True)
    result = ResultField(read_only=True)
    explanation = ExplanationField()

    class Meta(AnalysisSerializer.Meta):
        fields = (*AnalysisSerializer.Meta.fields, "submitted_pod", "result", "explanation")


class ShareLinkSerializer(serializers.ModelSerializer[ShareLink]):
    url = serializers.SerializerMethodField(help_text="The public read-only page.")
    analysis = serializers.IntegerField(source="analysis_id", read_only=True)

    class Meta:
        model = ShareLink
        fields = ("token", "url", "analysis", "created")

    def get_url(self, obj: ShareLink) -> str:
        request: Request = self.context["request"]
        return request.build_absolute_uri(obj.get_absolute_url())
