"""GET /api/clusters/{id}/preemptions/: the real preemptions a connected cluster's
events recorded, newest first, each with the id POST .../preemptions/{id}/explain/
takes; filtered by the victim's class and by time."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from connected import explain, selectors
from connected.history.models import ObservedPreemption
from connected.history.serializers import VerdictSerializer


class PreemptionFilter(django_filters.FilterSet):  # type: ignore[misc]  # django-filter ships no types
    victim_class = django_filters.CharFilter(
        help_text="The victim's PriorityClass name (exact); empty for victims without one."
    )
    since = django_filters.IsoDateTimeFilter(
        field_name="at", lookup_expr="gte", help_text="At or after this time (RFC 3339)."
    )
    until = django_filters.IsoDateTimeFilter(
        field_name="at", lookup_expr="lte", help_text="At or before this time (RFC 3339)."
    )

    class Meta:
        model = ObservedPreemption
        fields = ["victim_class", "since", "until"]


class ObservedPreemptionSerializer(serializers.ModelSerializer[ObservedPreemption]):
    preemptor = serializers.SerializerMethodField(help_text="namespace/name, else its uid")
    victim_class = serializers.SerializerMethodField(help_text="null when it had none")
    explain_url = serializers.SerializerMethodField(
        help_text="POST here to explain it: the preemptor's what-if on the snapshot before."
    )
    explanation = serializers.SerializerMethodField(
        help_text="The analysis Explain made of it (its API URL), null until asked."
    )
    explained_by = serializers.SerializerMethodField(help_text="who asked Explain; null: nobody")
    verdict = serializers.SerializerMethodField(
        help_text="Explain's verdict, kept on the preemption once final (it outlives its what-if)"
    )

    class Meta:
        model = ObservedPreemption
        fields = (
            "id",
            "victim",
            "preemptor",
            "node",
            "at",
            "victim_class",
            "victim_priority",
            "preemptor_uid",
            "explain_url",
            "explanation",
            "explained_by",
            "verdict",
        )

    def get_preemptor(self, obj: ObservedPreemption) -> str:
        return obj.preemptor or obj.preemptor_uid

    def get_victim_class(self, obj: ObservedPreemption) -> str | None:
        return obj.victim_class or None

    def get_explain_url(self, obj: ObservedPreemption) -> str:
        return f"/api/clusters/{obj.cluster_id}/preemptions/{obj.pk}/explain/"

    def get_explanation(self, obj: ObservedPreemption) -> str | None:
        return f"/api/analyses/{obj.explanation_id}/" if obj.explanation_id else None

    def get_explained_by(self, obj: ObservedPreemption) -> str | None:
        return obj.explained_by.get_username() if obj.explained_by else None

    @extend_schema_field(VerdictSerializer)
    def get_verdict(self, obj: ObservedPreemption) -> dict[str, Any]:
        found = explain.verdict(obj)
        return {
            "matches": found.matches,
            "said": found.said,
            "differences": list(found.differences),
            "kept": found.kept,
        }


class PreemptionList(generics.ListAPIView[ObservedPreemption]):
    """The cluster's recorded preemptions (a victim a row), paginated, newest first."""

    serializer_class = ObservedPreemptionSerializer
    filterset_class = PreemptionFilter

    def get_queryset(self) -> QuerySet[ObservedPreemption]:
        if getattr(self, "swagger_fake_view", False):
            return ObservedPreemption.objects.none()
        cluster = selectors.cluster_get(user=self.request.user, cluster_id=self.kwargs["id"])
        return (
            ObservedPreemption.objects.filter(cluster=cluster)
            .select_related("explanation", "explained_by")
            .order_by("-at", "victim", "pk")
        )

    @extend_schema(
        summary="The real preemptions of a connected cluster, with ids for Explain and verdicts"
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
