"""The advice API's bodies (DESIGN.md, "Advice contract"): the contract's items exactly,
then the search's cost and notes."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from advice.models import Advice
from scheduling.engine.advice import Advice as EngineAdvice
from scheduling.engine.advice.result import AdviceKind


class ProofStepSerializer(serializers.Serializer[Any]):
    change = serializers.JSONField(
        allow_null=True, help_text="The change one step less (null: the question as asked)."
    )
    outcome = serializers.CharField()
    victims = serializers.ListField(child=serializers.CharField())


class ProofSerializer(serializers.Serializer[Any]):
    runs = serializers.IntegerField(help_text="Engine runs this item's search made.")
    seconds = serializers.FloatField()
    one_step_less = ProofStepSerializer(
        allow_null=True,
        help_text="What one step less of the change does (10m cpu, 16Mi memory, one node, "
        "one replica): it still hurts, which is what makes the change minimal. Null for "
        "the kinds without a step (wait-instead, protect, relax).",
    )


class AdviceItemSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=[kind.value for kind in AdviceKind])
    change = serializers.JSONField(
        help_text='Machine-applicable: {"object": I, "patch": [RFC 6902 operations]} on the '
        'I-th submitted object (0 for a lone pod), {"add_nodes": N, "like": NODE}, or '
        '{"create": [manifest]} (PodDisruptionBudgets).'
    )
    outcome = serializers.CharField(help_text="The what-if's outcome with the change.")
    node = serializers.CharField(allow_null=True)
    victims = serializers.ListField(child=serializers.CharField())
    pdbs_exceeded = serializers.ListField(child=serializers.CharField())
    proof = ProofSerializer()


class AdviceNoteSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    text = serializers.CharField()


class AdviceSearchKindSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    runs = serializers.IntegerField()
    seconds = serializers.FloatField()
    stopped = serializers.CharField(help_text='"" | "runs" | "budget"')


class AdviceSearchSerializer(serializers.Serializer[Any]):
    runs = serializers.IntegerField()
    seconds = serializers.FloatField()
    stopped_early = serializers.BooleanField(
        help_text="The analysis budget (PREEMPTLAB_ANALYSIS_SECONDS) stopped the search "
        "before every kind was searched; the items listed are proven all the same."
    )
    kinds = AdviceSearchKindSerializer(many=True)


class AdviceBaselineSerializer(serializers.Serializer[Any]):
    outcome = serializers.CharField()
    node = serializers.CharField(allow_null=True)
    victims = serializers.ListField(child=serializers.CharField())
    pdbs_exceeded = serializers.ListField(child=serializers.CharField())
    pending = serializers.ListField(child=serializers.CharField())


class AdviceStateSerializer(serializers.ModelSerializer[Advice]):
    """Where the advice stands: queued, running (with the engine runs made), failed."""

    url = serializers.SerializerMethodField()
    analysis = serializers.IntegerField(source="analysis_id")

    class Meta:
        model = Advice
        fields = ["analysis", "url", "status", "error", "runs_done", "created", "finished_at"]

    def get_url(self, obj: Advice) -> str:
        path = reverse("advice-api:analysis-advice", args=[obj.analysis_id])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path


class AdviceDoneSerializer(AdviceStateSerializer):
    """Done: ``advice`` is the contract's list (empty where nothing needs avoiding), read
    from the typed advice (scheduling.engine.advice.Advice), never from the stored JSON."""

    advice = serializers.SerializerMethodField()
    notes = serializers.SerializerMethodField()
    search = serializers.SerializerMethodField()
    baseline = serializers.SerializerMethodField()

    class Meta(AdviceStateSerializer.Meta):
        fields = [
            *AdviceStateSerializer.Meta.fields,
            "engine_seconds",
            "advice",
            "notes",
            "search",
            "baseline",
        ]

    @staticmethod
    def _typed(obj: Advice) -> EngineAdvice:
        typed = obj.advice
        assert typed is not None  # only a done row is given to this serializer
        return typed

    @extend_schema_field(AdviceItemSerializer(many=True))
    def get_advice(self, obj: Advice) -> list[dict[str, Any]]:
        return list(self._typed(obj).as_contract()["advice"])

    @extend_schema_field(AdviceNoteSerializer(many=True))
    def get_notes(self, obj: Advice) -> list[dict[str, Any]]:
        return [n.to_dict() for n in self._typed(obj).notes]

    @extend_schema_field(AdviceSearchSerializer)
    def get_search(self, obj: Advice) -> dict[str, Any]:
        typed = self._typed(obj)
        return {
            "runs": typed.runs,
            "seconds": round(typed.seconds, 3),
            "stopped_early": typed.stopped_early,
            "kinds": [s.to_dict() for s in typed.searches],
        }

    @extend_schema_field(AdviceBaselineSerializer)
    def get_baseline(self, obj: Advice) -> dict[str, Any]:
        b = self._typed(obj).baseline
        return {
            "outcome": b.outcome,
            "node": b.node,
            "victims": list(b.victims),
            "pdbs_exceeded": list(b.pdbs_exceeded),
            "pending": list(b.pending),
        }


class AdviceProblemSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField()
