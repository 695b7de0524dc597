"""The three ways to submit a pod: a manifest, the short form, a clone of a pod.

Each form builds the Pod dict and asks the engine to read it (submission.pod_validate),
so a bad quantity or an unknown class is shown next to the field it came from,
in the engine's own words.
"""

from __future__ import annotations

import re
from typing import Any, cast

from django import forms

from clusters.models import Snapshot
from scheduling import submission
from scheduling.engine.capacity import DEFAULT_LIMIT, MAX_LIMIT, Size
from scheduling.engine.hypothetical import is_priority_class, priority_class_object
from scheduling.engine.objects import ARRIVAL_SECONDS
from scheduling.engine.quantity import QuantityError, parse_quantity

GPU_RESOURCE = "nvidia.com/gpu"
# Form field -> the resource it requests.
REQUEST_FIELDS = {
    "cpu": "cpu",
    "memory": "memory",
    "ephemeral_storage": "ephemeral-storage",
    "gpu": GPU_RESOURCE,
}
PREEMPTION_POLICIES = [
    ("", "From the class (or PreemptLowerPriority)"),
    ("PreemptLowerPriority", "PreemptLowerPriority"),
    ("Never", "Never"),
]
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
TOLERATION = re.compile(
    r"^(?P<key>[^=:\s]*)(=(?P<value>[^:\s]*))?(:(?P<effect>NoSchedule|PreferNoSchedule|NoExecute))?$"
)


# How to write each request, said once: the hint under its box and in its error.
QUANTITY_HINTS = {
    "cpu": "Write cores or millicores: 2, 0.5 or 500m.",
    "memory": "Write a number and a unit: 512Mi or 4Gi (powers of 1024), 500M or 4G (powers of 1000).",
    "ephemeral_storage": "Write a number and a unit: 10Gi or 500Mi.",
    "gpu": "Write a whole number of GPUs: 1, 2, 4.",
}
QUANTITY_WHAT = {
    "cpu": "an amount of CPU",
    "memory": "an amount of memory",
    "ephemeral_storage": "an amount of ephemeral storage",
    "gpu": "a number of GPUs",
}


def _quantity(field: str, raw: str) -> str:
    """A request box's text checked as Kubernetes reads quantities, the error in plain words."""
    text = raw.strip()
    if not text:
        return ""
    hint = QUANTITY_HINTS[field]
    try:
        amount = parse_quantity(text)
    except QuantityError:
        raise forms.ValidationError(
            f"“{text}” is not {QUANTITY_WHAT[field]} Kubernetes can read. {hint}"
        ) from None
    if amount < 0:
        raise forms.ValidationError(f"A request cannot be negative. {hint}")
    if field == "gpu" and amount.denominator != 1:
        raise forms.ValidationError(f"GPUs come whole: “{text}” is a fraction. {hint}")
    return text


def _class_choices(snapshot: Snapshot) -> list[tuple[str, str]]:
    choices = [("", "None (the global default class, or priority 0)")]
    for pc in snapshot.priority_classes.order_by("-value", "name"):
        default = ", global default" if pc.global_default else ""
        choices.append((pc.name, f"{pc.name} ({pc.value}{default})"))
    return choices


def _engine_field_to_form(engine_field: str | None) -> str | None:
    """Which field of the short form an engine error points at."""
    if not engine_field:
        return None
    if engine_field.endswith("priorityClassName"):
        return "priority_class"
    if engine_field.endswith(".priority"):
        return "priority"
    if engine_field.endswith("preemptionPolicy"):
        return "preemption_policy"
    if "nodeSelector" in engine_field:
        return "node_selector"
    if "tolerations" in engine_field:
        return "tolerations"
    if engine_field == "metadata.name":
        return "name"
    if engine_field == "metadata.namespace":
        return "namespace"
    for form_field, resource in REQUEST_FIELDS.items():
        if engine_field.endswith(f"requests.{resource}"):
            return form_field
    return None


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


class PodForm(forms.Form):
    name = forms.CharField(max_length=253, initial="whatif")
    namespace = forms.CharField(max_length=63, initial="default")
    priority_class = forms.ChoiceField(required=False, label="Priority class")
    priority = forms.IntegerField(
        required=False,
        min_value=-(2**31),
        max_value=2**31 - 1,
        label="Or a raw priority",
        help_text="Only without a class: the value spec.priority would carry.",
    )
    preemption_policy = forms.ChoiceField(
        choices=PREEMPTION_POLICIES, required=False, label="Preemption policy"
    )
    new_class_name = forms.CharField(
        required=False,
        max_length=253,
        label="Or a class that does not exist yet",
        help_text="A PriorityClass tried for this what-if only (a snapshot's class of that "
        "name takes this value instead); the pod uses it unless another class is chosen.",
    )
    new_class_value = forms.IntegerField(
        required=False,
        min_value=-(2**31),
        max_value=2**31 - 1,
        label="Its value",
        help_text="At most 1,000,000,000, as for any class a user makes.",
    )
    new_class_never = forms.BooleanField(
        required=False,
        label="Its preemptionPolicy is Never",
        help_text="Pods of the class wait for room instead of preempting.",
    )
    cpu = forms.CharField(
        required=False, max_length=32, label="CPU", help_text=QUANTITY_HINTS["cpu"]
    )
    memory = forms.CharField(required=False, max_length=32, help_text=QUANTITY_HINTS["memory"])
    ephemeral_storage = forms.CharField(
        required=False,
        max_length=32,
        label="Ephemeral storage",
        help_text=QUANTITY_HINTS["ephemeral_storage"],
    )
    gpu = forms.CharField(
        required=False,
        max_length=32,
        label="GPUs (nvidia.com/gpu)",
        help_text=QUANTITY_HINTS["gpu"],
    )
    node_selector = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="One key=value a line.",
    )
    tolerations = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="One a line, as kubectl taint writes them: key=value:NoSchedule, or key:NoSchedule "
        "to tolerate any value, or key alone for every effect.",
    )

    def __init__(self, *args: Any, snapshot: Snapshot, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.snapshot = snapshot
        priority_class = cast(forms.ChoiceField, self.fields["priority_class"])
        priority_class.choices = _class_choices(snapshot)
        self.pod: dict[str, Any] | None = None
        self.priority_classes: list[dict[str, Any]] = []

    def clean_cpu(self) -> str:
        return _quantity("cpu", self.cleaned_data["cpu"])

    def clean_memory(self) -> str:
        return _quantity("memory", self.cleaned_data["memory"])

    def clean_ephemeral_storage(self) -> str:
        return _quantity("ephemeral_storage", self.cleaned_data["ephemeral_storage"])

    def clean_gpu(self) -> str:
        return _quantity("gpu", self.cleaned_data["gpu"])

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"].strip()
        if not DNS_LABEL.match(name):
            raise forms.ValidationError(
                f"“{name}” cannot be a pod name: use lower-case letters, digits, '-' and '.', "
                "starting and ending with a letter or digit (e.g. web-1)."
            )
        return name

    def clean_namespace(self) -> str:
        ns: str = self.cleaned_data["namespace"].strip() or "default"
        if not DNS_LABEL.match(ns) or "." in ns:
            raise forms.ValidationError(
                f"“{ns}” cannot be a namespace: use lower-case letters, digits and '-', "
                "starting and ending with a letter or digit (e.g. team-a)."
            )
        return ns

    def clean_node_selector(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for i, line in enumerate(self.cleaned_data["node_selector"].splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            key, sep, value = line.partition("=")
            if not sep or not key.strip():
                raise forms.ValidationError(f"Line {i}: write key=value.")
            out[key.strip()] = value.strip()
        return out

    def clean_tolerations(self) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for i, line in enumerate(self.cleaned_data["tolerations"].splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            m = TOLERATION.match(line)
            if not m:
                raise forms.ValidationError(
                    f"Line {i}: write key=value:Effect, key:Effect or key "
                    "(Effect is NoSchedule, PreferNoSchedule or NoExecute)."
                )
            tol: dict[str, str] = {"key": m["key"]}
            if m["value"] is not None:
                tol |= {"operator": "Equal", "value": m["value"]}
            else:
                tol["operator"] = "Exists"
            if m["effect"]:
                tol["effect"] = m["effect"]
            out.append(tol)
        return out

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        # Every mistake at once: this check runs beside the fields' own.
        if data.get("priority_class") and data.get("priority") is not None:
            self.add_error(
                "priority",
                "Choose a class or a raw priority, not both: empty this box to use the class.",
            )
        new_class = self._new_class(data)
        if self.errors:
            return data
        if new_class is not None:
            try:
                self.priority_classes = submission.priority_classes_check(
                    snapshot=self.snapshot, classes=[new_class], field="new_class_name"
                )
            except submission.PodRejected as e:
                wrong = "new_class_value" if e.engine_field == "value" else "new_class_name"
                self.add_error(wrong, e.message)
                return data
        spec = submission.PodSpecInput(
            name=data["name"],
            namespace=data["namespace"],
            # The new class is the pod's unless the pod names another.
            priority_class_name=data.get("priority_class")
            or (new_class["metadata"]["name"] if new_class else ""),
            priority=data.get("priority"),
            preemption_policy=data.get("preemption_policy") or "",
            requests={
                resource: (data.get(f) or "").strip() for f, resource in REQUEST_FIELDS.items()
            },
            node_selector=data.get("node_selector") or {},
            tolerations=data.get("tolerations") or [],
        )
        pod = submission.pod_from_form(spec=spec)
        try:
            submission.pod_validate(
                snapshot=self.snapshot, pod=pod, priority_classes=self.priority_classes
            )
        except submission.PodRejected as e:
            self.add_error(_engine_field_to_form(e.engine_field), e.message)
            return data
        self.pod = pod
        return data

    def _new_class(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """The PriorityClass the form's last boxes describe, or None when they are empty
        (an error on the box missing when only one of name and value is given)."""
        name = (data.get("new_class_name") or "").strip()
        value = data.get("new_class_value")
        if not name and value is None:
            return None
        if not name:
            self.add_error("new_class_name", "Name the class this value is for.")
            return None
        if value is None:
            self.add_error("new_class_value", f"Give the value of class “{name}”.")
            return None
        if data.get("priority") is not None and not data.get("priority_class"):
            self.add_error(
                "priority",
                "A raw priority leaves the new class unused: empty this box to use the class.",
            )
            return None
        return priority_class_object(
            name,
            value,
            preemption_policy="Never" if data.get("new_class_never") else "",
        )


class CloneForm(forms.Form):
    priority_class = forms.ChoiceField(
        label="With priority class",
        error_messages={"required": "Choose the class to try the pod with."},
    )

    def __init__(self, *args: Any, snapshot: Snapshot, pod: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.snapshot = snapshot
        self.source_pod = pod
        priority_class = cast(forms.ChoiceField, self.fields["priority_class"])
        # Nothing chosen at first: the question is "another class", so the pod's own
        # class is marked, not pre-selected.
        current = (pod.get("spec") or {}).get("priorityClassName")
        priority_class.choices = [("", "Choose a class…")] + [
            (name, f"{label} · its class now" if name == current else label)
            for name, label in _class_choices(snapshot)[1:]
        ]
        self.pod: dict[str, Any] | None = None

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.errors:
            return data
        pod = submission.pod_clone(pod=self.source_pod, priority_class_name=data["priority_class"])
        try:
            submission.pod_validate(snapshot=self.snapshot, pod=pod)
        except submission.PodRejected as e:
            self.add_error("priority_class", e.message)
            return data
        self.pod = pod
        return data


class ScaleUpForm(forms.Form):
    """ "Scale this ReplicaSet / Deployment up by N", from one of its running pods."""

    replicas = forms.IntegerField(
        label="Replicas to add",
        initial=1,
        min_value=1,
        error_messages={"min_value": "Add at least 1 replica."},
        help_text="New pending pods made from this pod's template, in creation order.",
    )
    recreate_victims = forms.BooleanField(
        required=False,
        label="Recreate victims",
        help_text="Victims owned by a controller come back as new pending pods (the cascade).",
    )
    timeline = forms.BooleanField(
        required=False,
        initial=True,
        label="Keep time",
        help_text="Victims keep their room for their grace period; the answer says when each "
        "new replica runs.",
    )

    def __init__(
        self, *args: Any, snapshot: Snapshot, pod: dict[str, Any], owner: str, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.snapshot = snapshot
        self.source_pod = pod
        self.owner = owner
        self.objects: list[Any] | None = None

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.errors:
            return data
        try:
            objects = submission.scale_up_objects(
                pod=self.source_pod, owner=self.owner, replicas=data["replicas"]
            )
            submission.workload_expand(snapshot=self.snapshot, objects=objects, field="replicas")
        except submission.PodRejected as e:
            self.add_error("replicas", e.message)
            return data
        self.objects = objects
        return data


class RoomForm(forms.Form):
    """Room per tier: one size, tried in every user PriorityClass at once."""

    cpu = forms.CharField(label="CPU", initial="1", help_text=QUANTITY_HINTS["cpu"])
    memory = forms.CharField(label="Memory", initial="2Gi", help_text=QUANTITY_HINTS["memory"])
    limit = forms.IntegerField(
        label="Up to how many replicas",
        initial=DEFAULT_LIMIT,
        min_value=1,
        max_value=MAX_LIMIT,
        help_text=f"Per class; at most {MAX_LIMIT:,}. Each replica is at least one "
        "scheduling cycle of kube-scheduler's loop.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.size: Size | None = None

    @staticmethod
    def initial_from(query: Any) -> dict[str, Any]:
        """The form's values from a link (?cpu=2&memory=4Gi&limit=50)."""
        return {k: query[k] for k in ("cpu", "memory", "limit") if query.get(k)}

    def clean_cpu(self) -> str:
        return _quantity("cpu", self.cleaned_data["cpu"])

    def clean_memory(self) -> str:
        return _quantity("memory", self.cleaned_data["memory"])

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("cpu") and data.get("memory"):
            try:
                self.size = submission.capacity_size_check(cpu=data["cpu"], memory=data["memory"])
            except submission.PodRejected as e:
                self.add_error(e.engine_field if e.engine_field in self.fields else None, e.message)
        return data


def _byte_length(text: str | bytes) -> int:
    return len(text.encode() if isinstance(text, str) else text)
