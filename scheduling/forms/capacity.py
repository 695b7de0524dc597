"""How many fit, by form: a pod size in every user class (the room per tier)."""

from __future__ import annotations

from typing import Any

from django import forms

from scheduling.analyses import submission
from scheduling.engine.capacity import DEFAULT_LIMIT, MAX_LIMIT, Size
from scheduling.forms.common import QUANTITY_HINTS, quantity_field


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
        return quantity_field("cpu", self.cleaned_data["cpu"])

    def clean_memory(self) -> str:
        return quantity_field("memory", self.cleaned_data["memory"])

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("cpu") and data.get("memory"):
            try:
                self.size = submission.capacity_size_check(cpu=data["cpu"], memory=data["memory"])
            except submission.PodRejected as e:
                self.add_error(e.engine_field if e.engine_field in self.fields else None, e.message)
        return data
