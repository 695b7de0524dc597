"""A manifest pasted or uploaded: one Pod is a pod's what-if, a controller, a List or
several documents a workload's, PriorityClasses beside them the what-if's own classes;
read and checked as the API reads it (scheduling/analyses/submission.py)."""

from __future__ import annotations

from typing import Any

from django import forms

from clusters.models import Snapshot
from scheduling.analyses import submission
from scheduling.engine.hypothetical import is_priority_class
from scheduling.engine.objects import ARRIVAL_SECONDS


class ManifestForm(forms.Form):
    manifest = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false"}),
        help_text="A Pod in YAML or JSON, as kubectl get pod -o yaml prints it or as you would "
        "apply it; or a workload: Deployments, ReplicaSets, StatefulSets, Jobs, a List or "
        "several documents, rolled out through kube-scheduler's queue. PriorityClass "
        "documents beside them are tried for this what-if only: new classes, or new values "
        "for the snapshot's.",
    )
    file = forms.FileField(required=False, help_text="Or upload the manifest file.")
    recreate_victims = forms.BooleanField(
        required=False,
        label="Recreate victims (workloads)",
        help_text="A victim owned by a ReplicaSet, StatefulSet, Job or DaemonSet comes back as "
        "a new pending pod, as its controller would make it: see what each owner really loses. "
        "A single Pod with this ticked runs as a one-replica workload (the cascade needs "
        "kube-scheduler's loop), so its answer is the workload page, not the node-by-node one.",
    )
    timeline = forms.BooleanField(
        required=False,
        initial=True,
        label="Keep time (workloads)",
        help_text="Victims keep running, and keep their room, for their grace period "
        "(terminationGracePeriodSeconds, 30 s when unset); the answer says when each pod "
        "runs. Untick for kube-scheduler's decisions as if every victim went at once.",
    )
    later = forms.CharField(
        required=False,
        label="Then, later, another workload",
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
        help_text="Optional: objects submitted after the first ones (a higher-priority "
        "rollout arriving while the victims still terminate, say).",
    )
    later_seconds = forms.FloatField(
        required=False,
        min_value=0,
        max_value=86_400,
        label="Seconds later",
        help_text="When the second workload is created, after the first.",
    )

    def __init__(self, *args: Any, snapshot: Snapshot, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.snapshot = snapshot
        self.pod: dict[str, Any] | None = None
        # A workload's objects, checked (expanded and admitted) but not stored yet.
        self.objects: list[Any] | None = None
        # The what-if's own PriorityClass documents, checked.
        self.priority_classes: list[dict[str, Any]] = []

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        upload = data.get("file")
        text: str | bytes = data.get("manifest") or ""
        source = "manifest"
        try:
            if upload:
                # Refused before it is read, by its size on disk.
                submission.submission_size_check(upload.size, field="file", what="The file")
                text = upload.read()
                source = upload.name
            # The two manifests are one submission: together within the one limit.
            later_text = self.cleaned_data.get("later") or ""
            submission.submission_size_check(
                _byte_length(text) + _byte_length(later_text), field="manifest"
            )
            objects = submission.manifest_objects(text=text, source=source)
            later = self._later(objects)
            if later:
                data["timeline"] = True  # an arrival needs the clock
                objects = objects + later
            classes, objects = submission.whatif_split(objects)
            classes = submission.priority_classes_check(
                snapshot=self.snapshot, classes=classes, field="manifest"
            )
            if submission.is_single_pod(objects) and not data.get("recreate_victims"):
                submission.pod_validate(
                    snapshot=self.snapshot, pod=objects[0], priority_classes=classes
                )
                self.pod = objects[0]
            else:
                submission.workload_expand(
                    snapshot=self.snapshot, objects=objects, priority_classes=classes
                )
                self.objects = objects
            self.priority_classes = classes
        except submission.PodRejected as e:
            self.add_error(
                e.field if e.field == "later" else "file" if upload else "manifest", e.message
            )
        return data

    def _later(self, first: list[Any]) -> list[Any]:
        """The second workload's objects, each annotated to arrive ``later_seconds`` after
        time zero (the first workload's pods are created at once); a workload's
        annotation holds for all its pods (expand_workload)."""
        text = self.cleaned_data.get("later") or ""
        if not text.strip():
            return []
        seconds = self.cleaned_data.get("later_seconds")
        if seconds is None:
            raise submission.PodRejected(
                "Say how many seconds after the first workload the second one arrives.",
                field="later",
            )
        try:
            objects = submission.manifest_objects(text=text, source="later")
        except submission.PodRejected as e:
            raise submission.PodRejected(e.message, field="later") from None
        for obj in objects:
            if is_priority_class(obj):
                continue  # a class is in effect from the start, not created later
            meta = obj.setdefault("metadata", {})
            annotations = meta.setdefault("annotations", {}) or {}
            annotations[ARRIVAL_SECONDS] = f"{seconds:g}"
            meta["annotations"] = annotations
        return objects


def _byte_length(text: str | bytes) -> int:
    return len(text.encode() if isinstance(text, str) else text)
