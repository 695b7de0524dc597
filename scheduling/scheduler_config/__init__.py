"""The scheduler configuration a what-if runs under, one room beside the engine's
``profile/`` that it configures (as kube-scheduler keeps ``apis/config/`` beside the
framework): where it comes from and how it is checked (choice.py, whose names this
package re-exports: the models and the services use them), the form (forms.py), the
Scheduler tab's view (views.py) and what it draws (presenter.py), the API (api.py), the
report's first lines (report.py) and the sentence saying what a profile changed
(difference.py). The modules import each other by module, never this package."""

from .choice import (
    DEFAULT_CHOICE,
    DEFAULT_PRESET,
    SET_ON_SNAPSHOT,
    SchedulerChoice,
    SchedulerSource,
    choice_as_text,
    choice_for,
    choice_given,
    config_check,
    config_read,
    preset_body,
    preset_get,
    presets,
    snapshot_choice,
    snapshot_scheduler_set,
)

__all__ = [
    "DEFAULT_CHOICE",
    "DEFAULT_PRESET",
    "SET_ON_SNAPSHOT",
    "SchedulerChoice",
    "SchedulerSource",
    "choice_as_text",
    "choice_for",
    "choice_given",
    "config_check",
    "config_read",
    "preset_body",
    "preset_get",
    "presets",
    "snapshot_choice",
    "snapshot_scheduler_set",
]
