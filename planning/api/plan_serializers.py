"""Shapes of GET /api/snapshots/{id}/plan/ (DESIGN.md, REST API): the query and the
answer, ``planning.plan.Plan.to_dict()``, described for the OpenAPI schema and rendered
through these so that the schema lists exactly the body's fields."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from planning.plan import SEVERITIES
from scheduling.engine import InvalidInput
from scheduling.engine.capacity import Size
from scheduling.engine.objects import CPU, MEMORY
from scheduling.engine.plan import RULE_IDS
from scheduling.engine.plan.first_in_line import DEFAULT_LIMIT, MAX_LIMIT
from scheduling.engine.quantity import resource_value


class PlanQuerySerializer(serializers.Serializer[Any]):
    critical = serializers.ListField(
        child=serializers.CharField(max_length=253),
        required=False,
        default=list,
        help_text="Classes whose apps should all have a PodDisruptionBudget (repeat the "
        "parameter, or separate with commas); unset, the audit takes the highest user class "
        "that pods use.",
    )
    first_in_line = serializers.BooleanField(
        required=False,
        default=True,
        help_text="`first_in_line`: every app ranked by how soon preemption reaches it (one "
        "simulated run of probe pods per priority level); false leaves it out, for the plan "
        "alone.",
    )
    cpu = serializers.CharField(
        required=False,
        default="1",
        max_length=32,
        help_text="The probe pod's cpu request, as Kubernetes writes it (500m, 2).",
    )
    memory = serializers.CharField(
        required=False,
        default="2Gi",
        max_length=32,
        help_text="The probe pod's memory request, as Kubernetes writes it (512Mi, 4Gi).",
    )
    limit = serializers.IntegerField(
        required=False,
        default=DEFAULT_LIMIT,
        min_value=1,
        max_value=MAX_LIMIT,
        help_text="Probe replicas per priority level: an app not reached by then is "
        "reported beyond the limit.",
    )
    retry = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Rank again a first-in-line ranking that failed (`first_in_line_status` "
        "failed); a done or pending one is left as it is.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            Size(attrs["cpu"], attrs["memory"]).check()
        except InvalidInput as e:
            raise serializers.ValidationError({e.field or "cpu": [e.message]}) from None
        attrs["cpu_millis"] = resource_value(CPU, attrs["cpu"])
        attrs["memory_bytes"] = resource_value(MEMORY, attrs["memory"])
        return attrs


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
    operator_owned = serializers.IntegerField(
        help_text="Of the info findings, those about objects the platform's operators own "
        "(`operator_owned` set): counted as notes, never as the user's warnings."
    )


class FindingSerializer(serializers.Serializer[Any]):
    rule = serializers.ChoiceField(choices=[(r, r) for r in RULE_IDS])
    severity = serializers.ChoiceField(choices=[(s, s) for s in SEVERITIES])
    message = serializers.CharField()
    objects = serializers.ListField(child=serializers.CharField())
    why = serializers.CharField(help_text="Why it matters, citing the rule's source.")
    fix = serializers.CharField(
        allow_blank=True,
        help_text="A YAML snippet that fixes it; empty when `operator_owned` is set.",
    )
    operator_owned = serializers.CharField(
        allow_null=True,
        help_text="Set when the object the fix would edit is owned by the platform's "
        "operators (an OpenShift platform namespace, openshift-*; an owner that is a custom "
        "resource; an operator's or the addon manager's labels): the sentence saying what "
        "marks it and that an edit there is reverted. Such a finding is an info (a note), "
        "with no fix, listed after the user's own findings. null: the user's to change.",
    )


class ProbeSizeSerializer(serializers.Serializer[Any]):
    cpu_millis = serializers.IntegerField()
    memory_bytes = serializers.IntegerField()


class FirstHitSerializer(serializers.Serializer[Any]):
    replica = serializers.IntegerField(help_text="The probe replica, in submission order, from 1.")
    node = serializers.CharField()
    pod = serializers.CharField(help_text="The app's pod it preempted, namespace/name.")


class AppInLineSerializer(serializers.Serializer[Any]):
    app = serializers.CharField(help_text="“Kind namespace/name”, or “Pod ns/name” alone.")
    namespace = serializers.CharField()
    priority = serializers.IntegerField(help_text="The lowest priority its running pods have.")
    priority_class = serializers.CharField(allow_null=True)
    pods = serializers.IntegerField(help_text="Its running pods at that priority.")
    pdb_allows_disruption = serializers.BooleanField(
        allow_null=True,
        help_text="Whether every PDB covering it still allows a disruption; null: none does.",
    )
    reachable = serializers.BooleanField(
        help_text="False: no class is above its priority, so nothing may preempt it."
    )
    absorbed = serializers.IntegerField(
        allow_null=True,
        help_text="Probe replicas placed before one of its pods is a victim; null: none of "
        "its pods was: more than the limit were placed at its level, or none was (no probe "
        "fits, even after preemption: its level's run in `first_in_line_probe.runs` has "
        "`placed` 0), or it is out of reach.",
    )
    absorbed_cpu_millis = serializers.IntegerField(allow_null=True)
    absorbed_memory_bytes = serializers.IntegerField(allow_null=True)
    first_hit = FirstHitSerializer(allow_null=True)


class LevelRunSerializer(serializers.Serializer[Any]):
    priority = serializers.IntegerField(help_text="The level reached; the probe runs at +1.")
    apps = serializers.IntegerField()
    placed = serializers.IntegerField(
        help_text="Probes placed (bound or nominated); 0: none fits, even after preemption, "
        "so no app of this level is in line for this size."
    )
    victims = serializers.IntegerField()


class FirstInLineProbeSerializer(serializers.Serializer[Any]):
    size = ProbeSizeSerializer()
    limit = serializers.IntegerField()
    runs = LevelRunSerializer(many=True, help_text="One probe run per priority level.")
    skipped_levels = serializers.ListField(
        child=serializers.IntegerField(), help_text="Levels nothing may preempt: no run."
    )


class FirstInLineProgressSerializer(serializers.Serializer[Any]):
    runs_done = serializers.IntegerField()
    runs_total = serializers.IntegerField(help_text="One run per priority level in reach.")


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
    first_in_line = AppInLineSerializer(
        many=True,
        required=False,
        allow_null=True,
        help_text="Every app ranked: absorbed ascending (beyond the limit, then out of "
        "reach, last), then priority, then app. null while a worker ranks them (the answer "
        "is 202 then) or when the ranking failed. Left out with `first_in_line=0`.",
    )
    first_in_line_probe = FirstInLineProbeSerializer(
        required=False,
        allow_null=True,
        help_text="How the ranking was measured; null with `first_in_line`. Left out with "
        "`first_in_line=0`.",
    )
    first_in_line_status = serializers.ChoiceField(
        choices=["queued", "running", "done", "failed"],
        required=False,
        help_text="The ranking is computed once per snapshot, probe size and limit by a "
        "worker and kept: queued or running (the answer is 202), done, or failed "
        "(`first_in_line_error` says why; `retry=1` ranks again).",
    )
    first_in_line_url = serializers.CharField(
        required=False,
        help_text="This plan with the same query: poll it until `first_in_line_status` is "
        "done or failed (also the 202's Location).",
    )
    first_in_line_progress = FirstInLineProgressSerializer(
        required=False, help_text="While running: the probe runs done."
    )
    first_in_line_error = serializers.CharField(
        required=False, allow_blank=True, help_text="Why the ranking failed."
    )

    def to_representation(self, instance: Any) -> Any:
        data = super().to_representation(instance)
        # A field that allows null is written null when the body lacks it: what the body
        # leaves out (`first_in_line=0`, the progress of a finished ranking) stays out.
        return {key: value for key, value in data.items() if key in instance}
