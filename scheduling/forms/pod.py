"""A single pod's what-if by form: the short form that builds the Pod (its quantities,
class, tolerations and policy each shown next to its field in the engine's words), and
"clone this pod with another class"."""

from __future__ import annotations

import re
from typing import Any, cast

from django import forms

from clusters.models import Snapshot
from scheduling.analyses import submission
from scheduling.engine.hypothetical import priority_class_object
from scheduling.forms.common import QUANTITY_HINTS, quantity_field

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
        return quantity_field("cpu", self.cleaned_data["cpu"])

    def clean_memory(self) -> str:
        return quantity_field("memory", self.cleaned_data["memory"])

    def clean_ephemeral_storage(self) -> str:
        return quantity_field("ephemeral_storage", self.cleaned_data["ephemeral_storage"])

    def clean_gpu(self) -> str:
        return quantity_field("gpu", self.cleaned_data["gpu"])

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
