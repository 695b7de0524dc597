"""API representations of snapshots and their browse rows; every field documented."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from clusters import models
from clusters.constants import SnapshotStatus


class SourceFileSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(help_text="The uploaded file's name.")
    size = serializers.IntegerField(help_text="Its size in bytes.")


class CountsSerializer(serializers.Serializer[Any]):
    nodes = serializers.IntegerField(source="node_count", help_text="Nodes in the snapshot.")
    pods = serializers.IntegerField(source="pod_count", help_text="Pods in the snapshot.")
    pdbs = serializers.IntegerField(source="pdb_count", help_text="PodDisruptionBudgets.")
    priority_classes = serializers.IntegerField(
        source="priority_class_count",
        help_text="PriorityClasses, including the built-in system classes.",
    )


class SnapshotLinksSerializer(serializers.Serializer[Any]):
    nodes = serializers.URLField(help_text="The snapshot's nodes (API).")
    pods = serializers.URLField(help_text="The snapshot's pods (API).")
    pdbs = serializers.URLField(help_text="The snapshot's PodDisruptionBudgets (API).")
    priorityclasses = serializers.URLField(help_text="The snapshot's PriorityClasses (API).")


class SnapshotSerializer(serializers.ModelSerializer[models.Snapshot]):
    url = serializers.SerializerMethodField(help_text="This snapshot in the API.")
    page_url = serializers.SerializerMethodField(help_text="This snapshot's page in the browser.")
    owner = serializers.CharField(
        source="owner.get_username", read_only=True, help_text="Who uploaded it."
    )
    team = serializers.CharField(
        source="team.name",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="The team (a group) it was given to: its members read it and ask what-ifs "
        "on it; null: its owner's alone.",
    )
    status = serializers.ChoiceField(
        choices=SnapshotStatus.choices,
        read_only=True,
        help_text="ingesting until the objects are stored, then ready; failed with `error` set.",
    )
    error = serializers.CharField(
        read_only=True,
        help_text="Why the ingest failed, naming the file, the object (kind, namespace/name or "
        "item index) and the field; empty unless failed.",
    )
    progress = serializers.IntegerField(read_only=True, help_text="Percent done while ingesting.")
    progress_note = serializers.CharField(read_only=True, help_text="What the ingest is doing.")
    source_files = SourceFileSerializer(many=True, read_only=True, help_text="The uploaded files.")
    total_bytes = serializers.IntegerField(read_only=True, help_text="Bytes uploaded, all files.")
    counts = CountsSerializer(source="*", read_only=True, help_text="Objects stored, by kind.")
    skipped = serializers.DictField(
        child=serializers.IntegerField(),
        read_only=True,
        help_text="Kinds in the input that a snapshot does not keep, with how many of each.",
    )
    warnings = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text="Admission warnings about the PriorityClasses (no default class, a user "
        "class above 1,000,000,000, ...).",
    )
    scrubbed = serializers.DictField(
        child=serializers.IntegerField(),
        read_only=True,
        help_text="What the scrubber removed: Secret and ConfigMap objects, managedFields, "
        "lastAppliedConfiguration annotations, envValues, envFrom; with counts.",
    )
    links = serializers.SerializerMethodField(help_text="The snapshot's browse endpoints.")
    created = serializers.DateTimeField(read_only=True, help_text="When it was uploaded.")
    ingested_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When it became ready."
    )
    duration_ms = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="How long the ingest took."
    )
    taken_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="When the cluster was read (a connected cluster's), else its objects' latest "
        "timestamp.",
    )
    cluster: serializers.PrimaryKeyRelatedField[Any] = serializers.PrimaryKeyRelatedField(
        read_only=True,
        allow_null=True,
        help_text="The connected cluster it was read from (GET /api/clusters/{id}/); null: "
        "uploaded.",
    )
    pinned_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="When it was pinned (POST /api/snapshots/{id}/pin/): retention never deletes "
        "it; null: not pinned.",
    )
    pinned_by = serializers.CharField(
        source="pinned_by.get_username",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="Who pinned it; null: not pinned.",
    )

    class Meta:
        model = models.Snapshot
        fields = [
            "id",
            "url",
            "page_url",
            "name",
            "owner",
            "team",
            "status",
            "error",
            "progress",
            "progress_note",
            "created",
            "ingested_at",
            "duration_ms",
            "taken_at",
            "cluster",
            "pinned_at",
            "pinned_by",
            "source_files",
            "total_bytes",
            "counts",
            "skipped",
            "warnings",
            "scrubbed",
            "links",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": "The snapshot's id."},
            "name": {"help_text": "A name to know it by."},
        }

    def _abs(self, path: str) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    @extend_schema_field(serializers.URLField())
    def get_url(self, obj: models.Snapshot) -> str:
        return self._abs(reverse("clusters-api:snapshot-detail", args=[obj.pk]))

    @extend_schema_field(serializers.URLField())
    def get_page_url(self, obj: models.Snapshot) -> str:
        return self._abs(obj.get_absolute_url())

    @extend_schema_field(SnapshotLinksSerializer)
    def get_links(self, obj: models.Snapshot) -> dict[str, str]:
        return {
            name: self._abs(reverse(f"clusters-api:snapshot-{name}", args=[obj.pk]))
            for name in ("nodes", "pods", "pdbs", "priorityclasses")
        }


class SnapshotMultipartCreateSerializer(serializers.Serializer[Any]):
    team = serializers.CharField(
        max_length=150,
        required=False,
        allow_blank=True,
        help_text="Give it to a team of yours (a group's name); members read it.",
    )
    name = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        help_text="Defaults to the first file's name.",
    )
    files = serializers.ListField(
        child=serializers.FileField(),
        allow_empty=False,
        help_text="One or more JSON or YAML files (kubectl get ... -o json|yaml); they merge.",
    )


class SnapshotJSONCreateSerializer(serializers.Serializer[Any]):
    team = serializers.CharField(
        max_length=150,
        required=False,
        allow_blank=True,
        help_text="Give it to a team of yours (a group's name); members read it.",
    )
    name = serializers.CharField(
        max_length=200, required=False, allow_blank=True, help_text="A name."
    )
    objects = serializers.JSONField(
        help_text='A v1 List ({"kind": "List", "items": [...]}) or a list of objects.'
    )

    def validate_objects(self, value: Any) -> Any:
        if not isinstance(value, dict | list):
            raise serializers.ValidationError("Expected a v1 List or a list of objects.")
        return value


class SnapshotPatchSerializer(serializers.Serializer[Any]):
    """A PATCH changes what it names, nothing else: its name, its team, or both."""

    name = serializers.CharField(
        max_length=200, required=False, help_text="A new name for the snapshot."
    )
    team = serializers.CharField(
        max_length=150,
        allow_blank=True,
        allow_null=True,
        required=False,
        help_text="A team of yours (a group's name) to give it to; empty or null: no team.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs:
            raise serializers.ValidationError("Name what to change: name, team or both.")
        return attrs


class NodeSerializer(serializers.ModelSerializer[models.Node]):
    class Meta:
        model = models.Node
        fields = [
            "id",
            "name",
            "labels",
            "taints",
            "unschedulable",
            "allocatable",
            "requested",
            "band_requests",
            "pod_count",
        ]
        extra_kwargs = {
            "id": {"help_text": "The row's id within the API."},
            "name": {"help_text": "metadata.name."},
            "labels": {"help_text": "metadata.labels."},
            "taints": {"help_text": "spec.taints as [{key, value, effect}]."},
            "unschedulable": {"help_text": "spec.unschedulable (cordoned)."},
            "allocatable": {
                "help_text": "status.allocatable as integers: cpu in millicores, memory and "
                "storage in bytes, pods and extended resources as counts."
            },
            "requested": {
                "help_text": "The summed requests of the pods bound to the node that hold "
                "resources (not Succeeded/Failed), in the same units; `pods` counts them."
            },
            "band_requests": {
                "help_text": "cpu and memory requested, by priority band key (see the "
                "snapshot's bands)."
            },
            "pod_count": {"help_text": "Pods bound to the node that hold resources."},
        }


class PodSerializer(serializers.ModelSerializer[models.Pod]):
    class Meta:
        model = models.Pod
        fields = [
            "id",
            "namespace",
            "name",
            "uid",
            "node_name",
            "phase",
            "priority",
            "priority_class",
            "preemption_policy",
            "qos_class",
            "requests",
            "owner",
            "start_time",
            "terminating",
            "nominated_node_name",
        ]
        extra_kwargs = {
            "id": {"help_text": "The row's id within the API."},
            "namespace": {"help_text": "metadata.namespace."},
            "name": {"help_text": "metadata.name."},
            "uid": {"help_text": "metadata.uid."},
            "node_name": {"help_text": "spec.nodeName; empty while pending."},
            "phase": {"help_text": "status.phase."},
            "priority": {"help_text": "The priority admission resolved (spec.priority)."},
            "priority_class": {
                "help_text": "spec.priorityClassName, or the default class applied."
            },
            "preemption_policy": {"help_text": "PreemptLowerPriority or Never."},
            "qos_class": {"help_text": "Guaranteed, Burstable or BestEffort."},
            "requests": {
                "help_text": "The pod's requests as the scheduler computes them (init "
                "containers, sidecars, overhead): cpu in millicores, memory in bytes."
            },
            "owner": {"help_text": "The controller owner as Kind/name; empty if none."},
            "start_time": {"help_text": "status.startTime."},
            "terminating": {"help_text": "Whether metadata.deletionTimestamp is set."},
            "nominated_node_name": {"help_text": "status.nominatedNodeName."},
        }


class PodDisruptionBudgetSerializer(serializers.ModelSerializer[models.PodDisruptionBudget]):
    class Meta:
        model = models.PodDisruptionBudget
        fields = [
            "id",
            "namespace",
            "name",
            "selector",
            "selector_text",
            "min_available",
            "max_unavailable",
            "disruptions_allowed",
            "current_healthy",
            "desired_healthy",
            "expected_pods",
            "matched_pod_count",
            "matched_pods",
        ]
        extra_kwargs = {
            "id": {"help_text": "The row's id within the API."},
            "namespace": {"help_text": "metadata.namespace."},
            "name": {"help_text": "metadata.name."},
            "selector": {"help_text": "spec.selector as given; null selects nothing."},
            "selector_text": {"help_text": "The selector as kubectl prints it."},
            "min_available": {
                "help_text": "spec.minAvailable (a number or a percentage); empty if unset."
            },
            "max_unavailable": {"help_text": "spec.maxUnavailable; empty if unset."},
            "disruptions_allowed": {"help_text": "status.disruptionsAllowed."},
            "current_healthy": {"help_text": "status.currentHealthy."},
            "desired_healthy": {"help_text": "status.desiredHealthy."},
            "expected_pods": {"help_text": "status.expectedPods."},
            "matched_pod_count": {"help_text": "Pods of the snapshot the selector matches."},
            "matched_pods": {"help_text": "The first 50 matched pods' names, sorted."},
        }


class PriorityClassSerializer(serializers.ModelSerializer[models.PriorityClass]):
    class Meta:
        model = models.PriorityClass
        fields = [
            "id",
            "name",
            "value",
            "global_default",
            "preemption_policy",
            "description",
            "created",
            "builtin",
            "pod_count",
        ]
        extra_kwargs = {
            "id": {"help_text": "The row's id within the API."},
            "name": {"help_text": "metadata.name."},
            "value": {"help_text": "The priority of pods of this class."},
            "global_default": {"help_text": "globalDefault: pods without a class get this one."},
            "preemption_policy": {"help_text": "PreemptLowerPriority or Never."},
            "description": {"help_text": "description."},
            "created": {"help_text": "metadata.creationTimestamp."},
            "builtin": {
                "help_text": "A system class Kubernetes always has, absent from the input."
            },
            "pod_count": {"help_text": "Pods of the snapshot in this class."},
        }
