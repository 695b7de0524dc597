"""Shapes of GET /api/snapshots/{id}/plan/ (DESIGN.md, REST API): the query and the
answer, ``planning.plan.Plan.to_dict()``, described for the OpenAPI schema and rendered
through these so that the schema lists exactly the body's fields."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from planning.plan import SEVERITIES
from scheduling.engine.plan import RULE_IDS


class PlanQuerySerializer(serializers.Serializer[Any]):
    critical = serializers.ListField(
        child=serializers.CharField(max_length=253),
        required=False,
        default=list,
        help_text="Classes whose apps should all have a PodDisruptionBudget (repeat the "
        "parameter, or separate with commas); unset, the audit takes the highest user class "
        "that pods use.",
    )


class BudgetCoverageSerializer(serializers.Serializer[Any]):
    apps_covered = serializers.IntegerField()
    pods_covered = serializers.IntegerField()
    blocking_pdbs = serializers.ListField(
        child=serializers.CharField(), help_text="Budgets at 0 allowed disruptions over its pods."
    )


class ClassRungSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    value = serializers.IntegerField()
    preemption_policy = serializers.CharField()
    global_default = serializers.BooleanField()
    description = serializers.CharField(allow_blank=True)
    builtin = serializers.BooleanField()
    pods = serializers.IntegerField(help_text="Pods not Succeeded or Failed naming the class.")
    pending_pods = serializers.IntegerField()
    apps = serializers.IntegerField(help_text="Their owners (a pod without one is its own app).")
    cpu_millis = serializers.IntegerField()
    memory_bytes = serializers.IntegerField()
    cpu_share = serializers.FloatField(help_text="Of the schedulable nodes' allocatable cpu.")
    memory_share = serializers.FloatField()
    budgets = BudgetCoverageSerializer()
    namespaces = serializers.ListField(child=serializers.CharField())
    quotas = serializers.ListField(
        child=serializers.CharField(), help_text="ResourceQuotas scoped to this class."
    )


class UnclassedSerializer(serializers.Serializer[Any]):
    priority = serializers.IntegerField()
    resolved_class = serializers.CharField(allow_null=True)
    pods = serializers.IntegerField()
    apps = serializers.IntegerField()


class MissingClassSerializer(serializers.Serializer[Any]):
    class_name = serializers.CharField()
    pods = serializers.IntegerField()
    apps = serializers.IntegerField()
    priorities = serializers.ListField(child=serializers.IntegerField())
    assumed = serializers.IntegerField(help_text="Pods without spec.priority: theirs assumed.")


class AllocatableSerializer(serializers.Serializer[Any]):
    cpu_millis = serializers.IntegerField()
    memory_bytes = serializers.IntegerField()


class SummarySerializer(serializers.Serializer[Any]):
    error = serializers.IntegerField()
    warning = serializers.IntegerField()
    info = serializers.IntegerField()


class FindingSerializer(serializers.Serializer[Any]):
    rule = serializers.ChoiceField(choices=[(r, r) for r in RULE_IDS])
    severity = serializers.ChoiceField(choices=[(s, s) for s in SEVERITIES])
    message = serializers.CharField()
    objects = serializers.ListField(child=serializers.CharField())
    why = serializers.CharField(help_text="Why it matters, citing the rule's source.")
    fix = serializers.CharField(allow_blank=True, help_text="A YAML snippet that fixes it.")


class PlanSerializer(serializers.Serializer[Any]):
    ladder = ClassRungSerializer(many=True, help_text="Every PriorityClass, by name.")
    pods_without_class = UnclassedSerializer(many=True)
    missing_classes = MissingClassSerializer(
        many=True, help_text="Classes pods name that the snapshot lacks (deleted since)."
    )
    allocatable = AllocatableSerializer()
    critical_classes = serializers.ListField(child=serializers.CharField())
    summary = SummarySerializer()
    findings = FindingSerializer(many=True, help_text="Most serious first, in rule order.")
