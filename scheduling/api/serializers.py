"""Shapes of the analyses API (DESIGN.md): submit, status and result, share links."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request

from scheduling import scheduler_config
from scheduling.analyses import submission
from scheduling.constants import ANALYSIS_OUTCOMES, AnalysisKind, WorkloadOutcome
from scheduling.engine.capacity import DEFAULT_LIMIT, MAX_LIMIT
from scheduling.models import Analysis, ShareLink


class SizeSerializer(serializers.Serializer[Any]):
    cpu = serializers.CharField(help_text='The CPU request, as Kubernetes writes it: "2", "500m".')
    memory = serializers.CharField(help_text='The memory request: "4Gi", "512Mi".')


class AnalysisCreateSerializer(serializers.Serializer[Any]):
    """A Pod (``pod``), a manifest (``manifest``: one Pod, or Deployments, ReplicaSets,
    StatefulSets, Jobs, Lists, several documents), or a workload's ``objects``; with
    PriorityClass objects in the manifest, among the objects or in ``priority_classes``
    (the what-if's own classes, for that analysis only)."""

    pod = serializers.JSONField(
        required=False, help_text="The pending Pod as a JSON object (kind Pod)."
    )
    manifest = serializers.CharField(
        required=False,
        trim_whitespace=False,
        help_text="YAML or JSON text: one Pod (a single-pod what-if), or a workload: "
        "Pods, Deployments, ReplicaSets, StatefulSets, Jobs, a List of them or several "
        "documents.",
    )
    objects = serializers.ListField(
        child=serializers.JSONField(),
        required=False,
        help_text="A workload as a list of objects (Pod, Deployment, ReplicaSet, "
        "StatefulSet, Job), expanded into pending pods in order.",
    )
    priority_classes = serializers.ListField(
        child=serializers.JSONField(),
        required=False,
        default=list,
        help_text="PriorityClass objects (scheduling.k8s.io/v1) in effect for this what-if "
        "only: new classes, or new values for the snapshot's classes of the same names. "
        "Checked as the API server checks them (value an int32 at most 1000000000, "
        "globalDefault a boolean, preemptionPolicy PreemptLowerPriority or Never, "
        "annotations at most 256 KiB, no 'system-' names, at most one globalDefault in "
        "effect). The pending pods are admitted against "
        "them, globalDefault included; the snapshot's pods keep their priorities. "
        "PriorityClass documents in `manifest` or `objects` are taken the same way. The "
        "result lists them as `hypothetical_classes`.",
    )
    recreate_victims = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Workloads: a victim owned by a ReplicaSet, StatefulSet, Job or DaemonSet "
        "comes back as a new pending pod and is scheduled in turn (the cascade).",
    )
    timeline = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Workloads: keep time. A victim keeps its room for its "
        "terminationGracePeriodSeconds (30 when unset) after its deletion; a pod annotated "
        "preemptlab.io/arrival-seconds (on its own metadata or its workload's) is created "
        "that long after time zero; a running pod annotated preemptlab.io/delete-at-seconds "
        "is deleted then. The result gains `timeline`, `terminations` and the times of "
        "every cycle, event and pod. A single Pod with this set runs as a one-replica "
        "workload.",
    )

    kind = serializers.ChoiceField(
        choices=AnalysisKind.choices,
        required=False,
        help_text="`take-nodes-away`: what if these nodes go away (`nodes`, `selector` or "
        "`zone`; `how`, `force`, `max_unavailable`, `add_nodes`): where every evicted pod "
        "returns, whom it preempts, what blocks the drain. "
        "`capacity`: how many replicas of the Pod (`pod`, or a `manifest` holding "
        "one Pod) fit, as the pods of one ReplicaSet, up to `limit`; or, with `size` instead "
        "of a pod, one pod of that size in every user PriorityClass (a table). Otherwise "
        "leave it out: a Pod is a single-pod what-if, anything else a workload.",
    )
    limit = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_LIMIT,
        help_text=f"kind capacity: how many replicas to try (default {DEFAULT_LIMIT}, at most "
        f"{MAX_LIMIT}; per class with `size`).",
    )
    size = SizeSerializer(
        required=False,
        help_text="kind capacity: the requests of a pod tried in every user PriorityClass.",
    )

    nodes = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="kind take-nodes-away: the nodes taken away, by name (or give `selector` "
        "or `zone`).",
    )
    selector = serializers.CharField(
        required=False,
        help_text="kind take-nodes-away: the nodes whose labels match, as kubectl writes a "
        'selector: "pool=batch,tier!=gold" (a pool).',
    )
    zone = serializers.CharField(
        required=False,
        help_text="kind take-nodes-away: every node of this topology.kubernetes.io/zone.",
    )
    how = serializers.ChoiceField(
        choices=("drain", "lost"),
        required=False,
        help_text="kind take-nodes-away: `drain` (default) as kubectl drain does: cordon, "
        "evict through the PodDisruptionBudgets, DaemonSet and mirror pods stay, bare pods "
        "only with `force`; `lost`: the nodes are gone, every pod on them with them.",
    )
    force = serializers.BooleanField(
        required=False,
        help_text="kind take-nodes-away: delete pods no controller recreates (kubectl drain "
        "--force); without it the drain stops at the first one.",
    )
    max_unavailable = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="kind take-nodes-away: nodes drained at once (default 1: one after another, "
        "as node-pool upgrades drain).",
    )
    add_nodes = serializers.JSONField(
        required=False,
        help_text='kind take-nodes-away: `{"count": N, "like": NODE}`: N new nodes, copies '
        "of NODE (its allocatable, labels and taints, none of its pods), ready before the "
        "drain.",
    )

    scheduler_config = serializers.JSONField(
        required=False,
        help_text="The what-if's own KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), "
        "as an object or YAML/JSON text, defaulted and validated as kube-scheduler v1.35 does "
        "(an invalid one answers 400 with its words and field path). Every kind. Without it "
        "(and without `scheduler_preset`) the snapshot's configuration applies, else the "
        "default profile.",
    )
    scheduler_preset = serializers.CharField(
        required=False,
        help_text="A preset configuration by name (GET /api/scheduler-presets/ lists them), "
        "instead of `scheduler_config`.",
    )

    min_candidate_nodes_percentage = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=100,
        help_text="A pod: DefaultPreemptionArgs.minCandidateNodesPercentage as the cluster's "
        "scheduler configuration sets it (default 10).",
    )
    min_candidate_nodes_absolute = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="A pod: DefaultPreemptionArgs.minCandidateNodesAbsolute (default 100).",
    )
    preemption_offset = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="A pod: answer as kube-scheduler's dry run from this random offset (an "
        "index into the potential nodes, in the snapshot's node order, taken modulo their "
        "number), stopping where DryRunPreemption stops; to reproduce a real event. "
        "Without it every potential node is dry-run and `sampling` gives the share of "
        "offsets leading to each node.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            attrs["scheduler"] = scheduler_config.choice_given(
                config=attrs.pop("scheduler_config", None),
                preset=attrs.pop("scheduler_preset", None),
            )
        except submission.PodRejected as e:
            raise serializers.ValidationError({e.field: [e.message]}) from None
        if attrs.get("kind") == AnalysisKind.TAKE_NODES_AWAY:
            return self._take_nodes_away(attrs)
        for key in TAKE_NODES_AWAY_FIELDS:
            if key in attrs:
                raise serializers.ValidationError(
                    {
                        key: [
                            'Only a take-nodes-away what-if takes it: add "kind": "take-nodes-away".'
                        ]
                    }
                )
        if attrs.get("kind") == AnalysisKind.CAPACITY:
            return self._capacity(attrs)
        for key in ("limit", "size"):
            if key in attrs:
                raise serializers.ValidationError(
                    {key: ['Only a "how many fit?" what-if takes it: add "kind": "capacity".']}
                )
        attrs["preemption_args"] = {
            k: attrs.pop(k) for k in PREEMPTION_ARGS if attrs.get(k) is not None
        }
        args = attrs["preemption_args"]
        if args.get("min_candidate_nodes_percentage", 10) == 0 and (
            args.get("min_candidate_nodes_absolute", 100) == 0
        ):
            raise serializers.ValidationError(
                {
                    "min_candidate_nodes_absolute": [
                        "minCandidateNodesPercentage and minCandidateNodesAbsolute cannot both "
                        "be 0 (kube-scheduler refuses that configuration)."
                    ]
                }
            )
        given = [k for k in ("pod", "manifest", "objects") if attrs.get(k) not in (None, "")]
        if "pod" in attrs and "pod" not in given:
            given.append("pod")
        if len(given) != 1:
            raise serializers.ValidationError(
                {"non_field_errors": ["Give exactly one of 'pod', 'manifest' and 'objects'."]}
            )
        # The cascade and the clock need kube-scheduler's loop: a workload run.
        recreate = bool(attrs.get("recreate_victims")) or bool(attrs.get("timeline"))
        attrs["field"] = given[0]
        # Where the what-if's classes came from, for their errors.
        attrs["classes_field"] = "priority_classes"
        if given[0] == "objects" and isinstance(attrs["objects"], list):
            classes, attrs["objects"] = submission.whatif_split(attrs["objects"])
            if classes:
                attrs["priority_classes"] = list(attrs["priority_classes"]) + classes
                attrs["classes_field"] = "objects"
        if given[0] == "manifest":
            classes, objects = _manifest_split(attrs["manifest"])
            if classes:
                attrs["priority_classes"] = list(attrs["priority_classes"]) + classes
                attrs["classes_field"] = "manifest"
            if submission.is_single_pod(objects) and not recreate:
                attrs["pod"] = objects[0]
            else:
                attrs["objects"] = objects
        elif given[0] == "pod":
            if not isinstance(attrs["pod"], dict):
                raise serializers.ValidationError({"pod": ["Must be a JSON object (a Pod)."]})
            if recreate:
                attrs["objects"] = [attrs.pop("pod")]
        return attrs

    def _capacity(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """kind capacity: one Pod template (``pod``, or ``manifest`` holding one Pod and
        maybe PriorityClasses), or a ``size``; none of the workload's or the pod's options."""
        unused = [
            k
            for k in ("objects", "recreate_victims", "timeline", *PREEMPTION_ARGS)
            if attrs.get(k) not in (None, False)
        ]
        if unused:
            raise serializers.ValidationError(
                {unused[0]: ["A “how many fit?” what-if does not take it."]}
            )
        given = [k for k in ("pod", "manifest", "size") if k in attrs]
        if len(given) != 1:
            raise serializers.ValidationError(
                {
                    "non_field_errors": [
                        "kind capacity: give exactly one of 'pod', 'manifest' (one Pod) and "
                        "'size' (every class)."
                    ]
                }
            )
        attrs["field"] = attrs["classes_field"] = given[0]
        attrs.setdefault("limit", DEFAULT_LIMIT)
        if given[0] == "manifest":
            classes, objects = _manifest_split(attrs["manifest"])
            if not submission.is_single_pod(objects):
                raise serializers.ValidationError(
                    {
                        "manifest": [
                            "kind capacity takes one Pod: its replicas are tried as a ReplicaSet's."
                        ]
                    }
                )
            attrs["pod"] = objects[0]
            attrs["priority_classes"] = list(attrs["priority_classes"]) + classes
        elif given[0] == "pod" and not isinstance(attrs["pod"], dict):
            raise serializers.ValidationError({"pod": ["Must be a JSON object (a Pod)."]})
        elif given[0] == "size":
            try:
                attrs["size"] = submission.capacity_size_check(**attrs["size"])
            except submission.PodRejected as e:
                raise serializers.ValidationError({"size": [e.message]}) from None
        if attrs["priority_classes"] and given[0] != "manifest":
            attrs["classes_field"] = "priority_classes"
        return attrs

    def _take_nodes_away(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """kind take-nodes-away: the nodes (by name, selector or zone) and how they go; none
        of a pod's, a workload's or a capacity question's fields. The engine reads the
        body (scheduling/services/take_nodes_away.py), each refusal under its field."""
        unused = [
            k
            for k in (
                "pod",
                "manifest",
                "objects",
                "limit",
                "size",
                "recreate_victims",
                "timeline",
                *PREEMPTION_ARGS,
            )
            if attrs.get(k) not in (None, False)
        ]
        if unused:
            raise serializers.ValidationError(
                {unused[0]: ["A take-nodes-away what-if does not take it."]}
            )
        attrs["body"] = {k: attrs.pop(k) for k in TAKE_NODES_AWAY_FIELDS if k in attrs}
        attrs["field"] = attrs["classes_field"] = "priority_classes"
        return attrs


# The fields of a take-nodes-away body (DESIGN.md "Taking nodes away").
TAKE_NODES_AWAY_FIELDS = (
    "nodes",
    "selector",
    "zone",
    "how",
    "force",
    "max_unavailable",
    "add_nodes",
)


def _manifest_split(text: str) -> tuple[list[Any], list[Any]]:
    """(the what-if's PriorityClasses, the other objects) of a manifest; its errors under
    "manifest"."""
    try:
        return submission.whatif_split(submission.manifest_objects(text=text))
    except submission.PodRejected as e:
        raise serializers.ValidationError({"manifest": [e.message]}) from None


PREEMPTION_ARGS = (
    "min_candidate_nodes_percentage",
    "min_candidate_nodes_absolute",
    "preemption_offset",
)


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
    summary = serializers.CharField(
        read_only=True,
        help_text="A workload's answer in words (how many of its replicas run, what was "
        "evicted, which PDBs were exceeded). Empty for a pod.",
    )
    outcome = serializers.ChoiceField(
        choices=ANALYSIS_OUTCOMES,
        read_only=True,
        allow_blank=True,
        help_text="Once done: a pod's (and a capacity what-if's) fits, preempts or "
        "unschedulable; a workload's all-run, some-run (some replicas left pending) or "
        "none-run; taking nodes away: completes, blocked (a PodDisruptionBudget refuses an "
        "eviction) or stopped (a pod without a controller, no force). Empty until done, and "
        "for a capacity table of every class.",
    )
    snapshot = serializers.IntegerField(source="snapshot_id", read_only=True)
    pod = serializers.CharField(source="pod_key", read_only=True, help_text='"namespace/name"')
    requested_by = serializers.CharField(
        source="requested_by.get_username",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="Who asked it (a member on a team's snapshot, its owner): it counts against "
        "their unfinished work; they may share it.",
    )

    class Meta:
        model = Analysis
        fields: tuple[str, ...] = (
            "id",
            "url",
            "page_url",
            "snapshot",
            "pod",
            "requested_by",
            "source",
            "status",
            "error",
            "kind",
            "recreate_victims",
            "timeline",
            "preemption_args",
            "scheduler_source",
            "scheduler_preset",
            "scheduler_difference",
            "progress_cycle",
            "outcome",
            "summary",
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


_HYPOTHETICAL = (
    "The PriorityClasses the what-if carried, in effect for this run only: [{name, value, "
    "preemption_policy, global_default, replaces}], replaces being the value of the "
    "snapshot's class of that name (null for a new class); empty when none (and for "
    "analyses stored before the field existed)."
)
_VERDICT = {
    "type": "object",
    "description": "What `whatif`'s gates judge, so a pipeline calling the API decides as "
    "the command's exit status does (added to the contract): preempts, victims, "
    "highest_victim_priority (--fail-on-victim-priority-above), victim_classes (--protect), "
    "pdbs_exceeded (--fail-on-pdb-violation), pending (the asked pods not running at the "
    "end: --fail-on-pending), unschedulable (no node takes them, not even by preempting: "
    "--fail-on-unschedulable).",
    "properties": {
        "preempts": {"type": "boolean"},
        "victims": {"type": "array", "items": {"type": "string"}},
        "highest_victim_priority": {"type": "integer", "nullable": True},
        "victim_classes": {"type": "array", "items": {"type": "string"}},
        "pdbs_exceeded": {"type": "array", "items": {"type": "string"}},
        "pending": {"type": "array", "items": {"type": "string"}},
        "unschedulable": {"type": "array", "items": {"type": "string"}},
    },
}
_POD_RESULT = {
    "type": "object",
    "title": "Result contract (kind pod)",
    "description": 'DESIGN.md "Result contract": where one pod goes and whom it preempts.',
    "properties": {
        k: {}
        for k in [
            "pod",
            "priority",
            "priority_class",
            "preemption_policy",
            "outcome",
            "eligible",
            "ineligible_reason",
            "node",
            "feasible_nodes",
            "victims",
            "pdb_violations",
            "candidates",
            "tied_nodes",
            "rejected_nodes",
            "message",
        ]
    }
    | {
        "hypothetical_classes": {
            "type": "array",
            "items": {"type": "object"},
            "description": _HYPOTHETICAL,
        },
        "sampling": {
            "type": "object",
            "nullable": True,
            "description": "potential_nodes, window (the candidates kube-scheduler's dry run "
            "stops at: max(minCandidateNodesPercentage%, minCandidateNodesAbsolute)) and "
            "nominated [{node, share}]: the share of its random starting offsets that "
            "nominate each node (summing to 1; one entry of share 1 where it would not "
            "sample, or with preemption_offset); null where no node had victims to offer",
        },
        "verdict": _VERDICT,
    },
    "required": ["pod", "outcome", "node", "victims", "message"],
}
_WORKLOAD_RESULT = {
    "type": "object",
    "title": "Workload contract (kind workload)",
    "description": 'DESIGN.md "Workload contract": kube-scheduler\'s loop over the '
    "workload's pods, cycle by cycle (`recreated` only with recreate_victims; "
    "`timeline`, `terminations` and the times `at`, `arrived_at`, `bound_at` only with "
    'timeline: DESIGN.md "Timeline contract").',
    "properties": {
        "verdict": _VERDICT,
        "outcome": {
            "type": "string",
            "enum": WorkloadOutcome.values,
            "description": "all-run, some-run or none-run: how many of the workload's own "
            "replicas run at the end (added to the contract; the engine's fields follow)",
        },
        "pods": {
            "type": "array",
            "items": {"type": "object"},
            "description": "pod, priority, "
            "priority_class, preemption_policy, final (bound|pending), node, "
            "nominated_node, attempts; with timeline also arrived_at and bound_at (seconds "
            "since time zero, null when never created or bound); in submission order",
        },
        "cycles": {
            "type": "array",
            "items": {"type": "object"},
            "description": "cycle, pod, "
            "attempt, result (bound|preempted|unschedulable), node, host_selection, "
            "top_scored_nodes, nominated_node, tied_nodes, victims, pdb_violations, "
            "message; with timeline also at (seconds) and chosen_victims (victims includes "
            "only those whose deletion the cycle issued)",
        },
        "events": {"type": "array", "items": {"type": "object"}},
        "deleted_victims": {"type": "array", "items": {"type": "string"}},
        "nominations": {"type": "array", "items": {"type": "object"}},
        "flushes": {"type": "array", "items": {"type": "object"}},
        "stop_reason": {
            "type": "string",
            "enum": ["queue-empty", "no-progress-after-flush", "cycle-limit"],
        },
        "final_queue": {"type": "object"},
        "pdb_report": {
            "type": "array",
            "items": {"type": "object"},
            "description": "pdb, "
            "disruptions_allowed, deleted_matching_victims, exceeded, "
            "cycles_beyond_budget",
        },
        "choice_points": {"type": "array", "items": {"type": "object"}},
        "hypothetical_classes": {
            "type": "array",
            "items": {"type": "object"},
            "description": _HYPOTHETICAL,
        },
        "recreated": {"type": "array", "items": {"type": "object"}},
        "timeline": {
            "type": "object",
            "description": "With timeline: clock_origin (RFC 3339, time zero: the second "
            "after the snapshot's latest pod start, 2025-06-02T09:00:00Z when no pod has "
            "started) and duration (seconds to the last event)",
        },
        "terminations": {
            "type": "array",
            "items": {"type": "object"},
            "description": "With timeline: pod, node, cycle (the preempting cycle, null for "
            "a deletion by someone else), preemptor, deleted_at, gone_at, grace_seconds; in "
            "the order issued",
        },
    },
    "required": ["outcome", "pods", "cycles", "events", "stop_reason", "pdb_report"],
}


_CAPACITY_RESULT = {
    "type": "object",
    "title": "Capacity answer (kind capacity)",
    "description": "How many replicas of one Pod fit, read from kube-scheduler's loop over "
    "`limit` of them (the pods of one ReplicaSet): template {pod, priority, priority_class, "
    "preemption_policy, requests (millicores, bytes)}, limit, fit_now (bound while no victim "
    "had been deleted, never nominated), fit_by_preempting, unplaced, stop_reason, cycles, "
    "curve [{replica, pod, node, cycle, placement (now|preempting), preempted (this "
    "replica's own victims), victims_total, victims_by_class, apps_hit, pdbs_exceeded "
    "(cumulative over the replicas placed so far)}] in binding order, victims [{pod, "
    "priority, priority_class, app, node, cycle, preemptor, pdbs}] (all the run deleted, "
    "a victim of a replica never placed included), victim_classes, victims_total, "
    "victims_by_class, apps_hit, pdbs_exceeded, pdb_budgets, unplaced_reasons [{message "
    "(the FailedScheduling event of the last attempt), replicas (how many of the unplaced "
    'ended on it), nodes, reasons [{reason, nodes}] (its histogram: "0/4 nodes are '
    'available: 1 Insufficient cpu, 3 Too many pods"), filters (that part of the message), '
    "preemption (DefaultPreemption's part, null without preemption)}], most replicas first. "
    "With `size`: {size, limit, classes: [{priority_class (null: pods naming no class, a row "
    "there when no class is the globalDefault), value, preemption_policy, fit_now, "
    "fit_by_preempting, unplaced, victims_total, victims_by_class, apps_hit, pdbs_exceeded, "
    "unplaced_why (the FailedScheduling message most replicas left ended on)}]}, highest "
    "first.",
    "properties": {
        k: {}
        for k in [
            "template",
            "limit",
            "fit_now",
            "fit_by_preempting",
            "unplaced",
            "unplaced_reasons",
            "stop_reason",
            "curve",
            "victims",
            "size",
            "classes",
        ]
    },
    "required": ["limit"],
}


_NODES_AWAY_RESULT = {
    "type": "object",
    "title": "Taking nodes away (kind take-nodes-away)",
    "description": 'DESIGN.md "Taking nodes away": kind (take-nodes-away), how '
    "(drain|lost), verdict (completes|blocked|stopped: a bare pod without force), sentence, "
    "nodes [{node, evicted, deleted, left, blocked [{pod, pdb}], stopped_at}], returning "
    "[{pod, replaces, node (null: stays pending), reason (kube-scheduler's words when it "
    "stays pending)}], preemptions [{preemptor, node, victims, ...the tie-break}], "
    "pdbs_exceeded, pending. Pods are namespace/name.",
    "properties": {
        k: {}
        for k in [
            "kind",
            "how",
            "verdict",
            "sentence",
            "nodes",
            "returning",
            "preemptions",
            "pdbs_exceeded",
            "pending",
        ]
    },
    "required": ["kind", "verdict", "sentence", "nodes"],
}


@extend_schema_field(
    {
        "oneOf": [_POD_RESULT, _WORKLOAD_RESULT, _CAPACITY_RESULT, _NODES_AWAY_RESULT],
        "nullable": True,
        "description": "The contract of DESIGN.md for the analysis' `kind` (the same JSON as "
        "`manage.py whatif --format json`): the result contract of a pod, the workload "
        "contract of a workload, the capacity answer of a capacity what-if, the answer of "
        "taking nodes away; null until the analysis is done.",
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
        "victims' details, sampling notes and the fields of the pod that were dropped or used; "
        "`devices` for a pod waiting for DRA devices (the sentence, and per device class the "
        "pods holding them). Analyses stored in an older shape are served in this one.",
    }
)
class ExplanationField(serializers.Field):  # type: ignore[type-arg]
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, value: Analysis) -> dict[str, Any] | None:
        ex = value.explained
        return ex.to_json() if ex is not None else None


_SUBMITTED_CLASSES = (
    "The PriorityClass objects the what-if carried, as submitted (a retry or a rerun "
    "uses them again); [] when none."
)

_SUBMITTED_CONFIG = (
    "The KubeSchedulerConfiguration it ran under, as given (the what-if's own or the "
    "snapshot's, copied when submitted; a retry or a rerun uses it again); null for a "
    "preset (see `scheduler_preset`) or the default profile."
)


class AnalysisDetailSerializer(AnalysisSerializer):
    submitted_pod = serializers.JSONField(source="pod", read_only=True)
    priority_classes = serializers.JSONField(read_only=True, help_text=_SUBMITTED_CLASSES)
    scheduler_config = serializers.JSONField(read_only=True, help_text=_SUBMITTED_CONFIG)
    result = ResultField(read_only=True)
    explanation = ExplanationField()

    class Meta(AnalysisSerializer.Meta):
        fields = (
            *AnalysisSerializer.Meta.fields,
            "submitted_pod",
            "priority_classes",
            "scheduler_config",
            "result",
            "explanation",
        )


class ShareLinkSerializer(serializers.ModelSerializer[ShareLink]):
    url = serializers.SerializerMethodField(help_text="The public read-only page.")
    analysis = serializers.IntegerField(source="analysis_id", read_only=True)
    created_by = serializers.CharField(
        source="created_by.get_username",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="Who made it: they revoke it, as do the snapshot's owner and team admins.",
    )

    class Meta:
        model = ShareLink
        fields = ("token", "url", "analysis", "created", "created_by")

    def get_url(self, obj: ShareLink) -> str:
        request: Request = self.context["request"]
        return request.build_absolute_uri(obj.get_absolute_url())


class RejectedNodeSerializer(serializers.Serializer[Any]):
    node = serializers.CharField(help_text="The node's name.")
    reasons = serializers.ListField(
        child=serializers.CharField(),
        help_text="Why it failed the filters, as kube-scheduler words it.",
    )
    preemption_can_help = serializers.BooleanField(
        help_text="Whether evicting lower-priority pods could make room there."
    )


class AnalysisCompactSerializer(AnalysisSerializer):
    """The analysis without the large parts: the result contract minus rejected_nodes
    (served page by page at ``rejected_nodes_url``) and no explanation."""

    submitted_pod = serializers.JSONField(source="pod", read_only=True)
    priority_classes = serializers.JSONField(read_only=True, help_text=_SUBMITTED_CLASSES)
    result = serializers.SerializerMethodField(
        help_text="The result contract without `rejected_nodes` (see `rejected_nodes_url`, "
        "`rejected_nodes_count`); null until done."
    )
    rejected_nodes_count = serializers.SerializerMethodField(
        help_text="How many nodes the result's rejected_nodes lists."
    )
    rejected_nodes_url = serializers.SerializerMethodField(
        help_text="The rejected nodes, paginated."
    )

    class Meta(AnalysisSerializer.Meta):
        fields = (
            *AnalysisSerializer.Meta.fields,
            "submitted_pod",
            "priority_classes",
            "result",
            "rejected_nodes_count",
            "rejected_nodes_url",
        )

    @extend_schema_field({"type": "object", "nullable": True})
    def get_result(self, obj: Analysis) -> dict[str, Any] | None:
        result = obj.result
        if result is None:
            return None
        return {k: v for k, v in result.items() if k != "rejected_nodes"}

    def get_rejected_nodes_count(self, obj: Analysis) -> int:
        return len((obj.result or {}).get("rejected_nodes") or [])

    def get_rejected_nodes_url(self, obj: Analysis) -> str:
        request: Request = self.context["request"]
        return request.build_absolute_uri(
            reverse("scheduling-api:analysis-rejected-nodes", args=[obj.pk])
        )
