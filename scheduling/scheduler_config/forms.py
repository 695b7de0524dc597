"""The scheduler configuration a form gives: a preset, or a KubeSchedulerConfiguration
pasted or uploaded; checked as the API checks it (scheduling.scheduler_config)."""

from __future__ import annotations

from typing import Any

from django import forms

from scheduling.analyses.submission import PodRejected, submission_max_bytes
from scheduling.scheduler_config.choice import SchedulerChoice, choice_given, presets

PASTED = ""


def preset_choices(none_label: str) -> list[tuple[str, str]]:
    return [(PASTED, none_label)] + [(p.name, f"{p.title} ({p.name})") for p in presets().values()]


class SchedulerConfigForm(forms.Form):
    """A preset, or a configuration pasted or uploaded; ``choice`` once valid (None when
    the form gives none, and ``required`` is off)."""

    scheduler_preset = forms.ChoiceField(required=False, label="Scheduler preset", choices=())
    scheduler_config = forms.CharField(
        required=False,
        label="KubeSchedulerConfiguration",
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false", "class": "mono"}),
        help_text="kubescheduler.config.k8s.io/v1, YAML or JSON (kube-scheduler's --config file).",
    )
    scheduler_config_file = forms.FileField(required=False, label="or upload it")

    def __init__(
        self,
        *args: Any,
        required: bool = True,
        none_label: str = "Paste or upload one",
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.required = required
        self.choice: SchedulerChoice | None = None
        preset = self.fields["scheduler_preset"]
        assert isinstance(preset, forms.ChoiceField)
        preset.choices = preset_choices(none_label)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        text: str | bytes = data.get("scheduler_config") or ""
        upload = data.get("scheduler_config_file")
        if upload is not None:
            # Read no further than one byte past the limit: the reader refuses it in its
            # own words.
            text = upload.read(submission_max_bytes() + 1)
        try:
            self.choice = choice_given(
                config=text or None, preset=data.get("scheduler_preset") or None
            )
        except PodRejected as e:
            self.add_error(e.field if e.field in self.fields else "scheduler_config", e.message)
            return data
        if self.choice is None and self.required:
            self.add_error(
                "scheduler_config", "Choose a preset, or paste or upload a configuration."
            )
        return data
