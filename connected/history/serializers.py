"""The shapes of the drift and Explain answers, for the API's schema (DESIGN.md's
"Clusters (connected)" is the contract: connected.drift.Drift.to_dict() writes it)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class DriftClassSerializer(serializers.Serializer[dict[str, object]]):
    name = serializers.CharField()
    value = serializers.IntegerField()
    preemption_policy = serializers.CharField()
    global_default = serializers.BooleanField()


class ClassChangeSerializer(serializers.Serializer[dict[str, object]]):
    field = serializers.CharField(help_text="value, preemption_policy or global_default")
    to = serializers.JSONField()

    def get_fields(self) -> dict[str, Any]:  # "from" is a Python keyword
        fields = super().get_fields()
        fields["from"] = serializers.JSONField()
        return fields


class ClassChangedSerializer(serializers.Serializer[dict[str, object]]):
    name = serializers.CharField()
    changes = ClassChangeSerializer(many=True)


class ClassesSerializer(serializers.Serializer[dict[str, object]]):
    added = DriftClassSerializer(many=True)
    removed = DriftClassSerializer(many=True)
    changed = ClassChangedSerializer(many=True)


class DriftFindingSerializer(serializers.Serializer[dict[str, object]]):
    rule = serializers.CharField()
    severity = serializers.CharField()
    message = serializers.CharField()
    objects = serializers.ListField(child=serializers.CharField())


class FindingsSerializer(serializers.Serializer[dict[str, object]]):
    new = DriftFindingSerializer(many=True)
    resolved = DriftFindingSerializer(many=True)


class PdbAtZeroSerializer(serializers.Serializer[dict[str, object]]):
    pdb = serializers.CharField(help_text="namespace/name")
    to = serializers.IntegerField()

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()
        fields["from"] = serializers.IntegerField(allow_null=True, help_text="null: a new PDB")
        return fields


class MoveSerializer(serializers.Serializer[dict[str, object]]):
    app = serializers.CharField()
    to = serializers.IntegerField(allow_null=True, help_text="place in line, 1 first; null: out")

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()
        fields["from"] = serializers.IntegerField(allow_null=True)
        return fields


class DriftNodesSerializer(serializers.Serializer[dict[str, object]]):
    added = serializers.ListField(child=serializers.CharField())
    removed = serializers.ListField(child=serializers.CharField())


class DriftPreemptionSerializer(serializers.Serializer[dict[str, object]]):
    id = serializers.IntegerField(
        allow_null=True, help_text="The recorded preemption's id, for .../preemptions/{id}/explain/"
    )
    victim = serializers.CharField()
    preemptor = serializers.CharField(help_text="namespace/name, else its uid")
    node = serializers.CharField()
    at = serializers.DateTimeField(allow_null=True)
    victim_class = serializers.CharField(allow_null=True)


class DriftSerializer(serializers.Serializer[dict[str, object]]):
    sentence = serializers.CharField()
    classes = ClassesSerializer()
    findings = FindingsSerializer()
    pdbs_at_zero = PdbAtZeroSerializer(many=True)
    first_in_line_moves = MoveSerializer(many=True)
    nodes = DriftNodesSerializer()
    preemptions = DriftPreemptionSerializer(many=True)
    to = serializers.IntegerField(help_text="the later snapshot's id")

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()
        fields["from"] = serializers.IntegerField(help_text="the earlier snapshot's id")
        return fields


class ExplainSerializer(serializers.Serializer[dict[str, object]]):
    id = serializers.IntegerField()
    url = serializers.CharField()
    status = serializers.CharField()


class DriftDetailSerializer(serializers.Serializer[dict[str, object]]):
    detail = serializers.CharField()


class VerdictSerializer(serializers.Serializer[dict[str, object]]):
    matches = serializers.BooleanField(
        allow_null=True, help_text="the engine's answer is what happened; null: not yet known"
    )
    said = serializers.CharField(help_text="the verdict in words")
    differences = serializers.ListField(child=serializers.CharField())
    kept = serializers.BooleanField(
        help_text="final, and stored on the preemption (it outlives its what-if)"
    )
