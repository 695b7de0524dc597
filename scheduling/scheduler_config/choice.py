"""Where a what-if's scheduler configuration comes from, read and checked before anything
is stored: the what-if's own (a KubeSchedulerConfiguration or a preset name), else its
snapshot's (uploaded with the dump, set later, or OpenShift's profile on a live read),
else kube-scheduler's default profile. Each refusal is a PodRejected naming the input
field and kube-scheduler's own words with the field path inside the configuration.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml
from django.db import models, transaction

from operations.input_limits import unstorable_value
from scheduling.analyses.submission import PodRejected, manifest_objects
from scheduling.engine import InvalidInput, Preset, load_scheduler_config
from scheduling.engine import presets as engine_presets
from scheduling.engine.profile import (
    DEFAULT_SCHEDULER_NAME,
    SOURCE_ANALYSIS,
    SOURCE_DEFAULT,
    SOURCE_SNAPSHOT,
)

if TYPE_CHECKING:
    from clusters.models import Snapshot

DEFAULT_PRESET = "default"


class SchedulerSource(models.TextChoices):
    DEFAULT = SOURCE_DEFAULT, "kube-scheduler's default profile"
    SNAPSHOT = SOURCE_SNAPSHOT, "the snapshot's configuration"
    ANALYSIS = SOURCE_ANALYSIS, "the what-if's own configuration"


def presets() -> dict[str, Preset]:
    """Every preset by name, in the order they are offered (the default first)."""
    return {p.name: p for p in engine_presets()}


def preset_get(name: Any, *, field: str = "scheduler_preset") -> Preset:
    found = presets().get(name) if isinstance(name, str) else None
    if found is None:
        raise PodRejected(
            f"Unknown scheduler preset {name!r}: use one of {', '.join(presets())}.",
            field=field,
        )
    return found


def preset_body(preset: Preset) -> dict[str, Any]:
    """A preset as the API lists it: name, title, where it comes from, configuration."""
    return {
        "name": preset.name,
        "title": preset.title,
        "origin": preset.source,
        "config": preset.config,
    }


@dataclass(frozen=True)
class SchedulerChoice:
    """The configuration a run uses: ``config`` as given (None with a preset or the
    default), where it came from, and the preset's name ("" when none)."""

    config: dict[str, Any] | None
    source: str = SchedulerSource.DEFAULT
    preset: str = ""

    @property
    def effective(self) -> dict[str, Any] | None:
        """What the engine is given: the configuration, the preset's, or None (default)."""
        if self.config is not None:
            return self.config
        if self.preset and self.preset != DEFAULT_PRESET:
            return presets()[self.preset].config
        return None

    @property
    def fingerprint(self) -> str:
        """Equal for equal configurations: a memo's key."""
        return json.dumps(self.effective, sort_keys=True)

    @property
    def is_default(self) -> bool:
        return self.effective is None

    @property
    def name(self) -> str:
        """The profiles' schedulerNames, as the engine's scheduler_profile names them."""
        effective = self.effective or {}
        names = [
            str(p.get("schedulerName") or "")
            for p in effective.get("profiles") or []
            if isinstance(p, dict)
        ]
        return ", ".join(n for n in names if n) or DEFAULT_SCHEDULER_NAME

    @property
    def title(self) -> str:
        """The profile's words for pages and reports."""
        if self.preset in presets():
            return presets()[self.preset].title
        if self.config is not None:
            return f"KubeSchedulerConfiguration ({self.name})"
        return "kube-scheduler's default profile"

    def profile(self) -> dict[str, Any]:
        """The result's ``scheduler_profile``."""
        preset = self.preset or (DEFAULT_PRESET if self.source == SchedulerSource.DEFAULT else None)
        return {"name": self.name, "source": str(self.source), "preset": preset}

    def with_source(self, source: str) -> SchedulerChoice:
        return SchedulerChoice(self.config, source, self.preset)


DEFAULT_CHOICE = SchedulerChoice(None)


def config_read(value: Any, *, field: str = "scheduler_config") -> dict[str, Any]:
    """A KubeSchedulerConfiguration given as an object or as YAML/JSON text, checked as
    kube-scheduler checks its configuration file; PodRejected under ``field`` otherwise.
    Text is read as manifests are (the same reader, the same size limit)."""
    if isinstance(value, (str, bytes)):
        try:
            objects = manifest_objects(text=value, source=field)
        except PodRejected as e:
            raise PodRejected(e.message, field=field) from None
        if len(objects) != 1:
            raise PodRejected(
                f"{len(objects)} documents: give exactly one KubeSchedulerConfiguration.",
                field=field,
            )
        value = objects[0]
    if not isinstance(value, dict):
        raise PodRejected("Must be a KubeSchedulerConfiguration object.", field=field)
    config_check(value, field=field)
    return value


def config_check(config: dict[str, Any], *, field: str = "scheduler_config") -> None:
    """kube-scheduler's decoding, defaulting and validation (the engine's); PodRejected
    with its words and the field path inside the configuration."""
    try:
        load_scheduler_config(config)
    except InvalidInput as e:
        raise PodRejected(str(e), field=field) from None
    except RecursionError:
        raise PodRejected("KubeSchedulerConfiguration: nested too deep.", field=field) from None
    # What kube-scheduler takes but no column can hold (a NUL in schedulerName): a 400 too.
    unstorable = unstorable_value(config)
    if unstorable is not None:
        raise PodRejected(f"KubeSchedulerConfiguration: {unstorable}", field=field)


def choice_given(
    *, config: Any = None, preset: Any = None, field: str = "scheduler_config"
) -> SchedulerChoice | None:
    """The what-if's own choice, checked; None when it gives none."""
    if config not in (None, "", {}) and preset not in (None, ""):
        raise PodRejected(
            "Give a scheduler configuration or a preset, not both.", field="scheduler_preset"
        )
    if preset not in (None, ""):
        return SchedulerChoice(None, SchedulerSource.ANALYSIS, preset_get(preset).name)
    if config not in (None, "", {}):
        return SchedulerChoice(config_read(config, field=field), SchedulerSource.ANALYSIS)
    return None


def snapshot_choice(snapshot: Snapshot) -> SchedulerChoice:
    """The snapshot's configuration (source "snapshot"), else the default."""
    if snapshot.scheduler_config is None and not snapshot.scheduler_preset:
        return DEFAULT_CHOICE
    return SchedulerChoice(
        snapshot.scheduler_config, SchedulerSource.SNAPSHOT, snapshot.scheduler_preset
    )


def choice_for(snapshot: Snapshot, given: SchedulerChoice | None) -> SchedulerChoice:
    """In order: the what-if's own, the snapshot's, the default."""
    return given if given is not None else snapshot_choice(snapshot)


def choice_as_text(choice: SchedulerChoice) -> str:
    """The configuration as YAML, for a form to show again ("" for a preset or default)."""
    if choice.config is None:
        return ""
    return str(yaml.safe_dump(choice.config, sort_keys=False))


SET_ON_SNAPSHOT = "set on the snapshot"


def snapshot_scheduler_set(
    *, snapshot: Snapshot, choice: SchedulerChoice | None, origin: str = SET_ON_SNAPSHOT
) -> Snapshot:
    """Stores the snapshot's configuration (None: back to the default profile). Its
    analyses keep the configuration they ran under; new ones take this one. The stored
    first-in-line rankings were probed under the old one: they go, and are asked anew."""
    # Imported here: planning builds on scheduling, not the other way round.
    from planning.models import FirstInLineRanking

    snapshot.scheduler_config = choice.config if choice is not None else None
    snapshot.scheduler_preset = choice.preset if choice is not None else ""
    snapshot.scheduler_origin = origin if choice is not None else ""
    with transaction.atomic():
        snapshot.save(update_fields=["scheduler_config", "scheduler_preset", "scheduler_origin"])
        FirstInLineRanking.objects.filter(snapshot=snapshot).delete()
    return snapshot
