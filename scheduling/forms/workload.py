"""A workload's what-if by form: scale up a controller of the snapshot by some replicas."""

from __future__ import annotations

from typing import Any

from django import forms

from clusters.models import Snapshot
from scheduling.analyses import submission


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
