"""Where a what-if's scheduler configuration comes from, read and checked before anything
is stored: the what-if's own (a KubeSchedulerConfiguration or a preset name), else its
snapshot's (uploaded with the dump, set later, or OpenShift's profile on a live read),
else kube-scheduler's default profile. Each refusal is a PodRejected naming the input
field and kube-scheduler's own words with the field path inside the configuration.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from django.db import models

from scheduling.submission import PodRejected, manifest_objects

if TYPE_CHECKING:
    from clusters.models import Snapshot

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_PRESET = "default"


class SchedulerSource(models.TextChoices):
    DEFAULT = "default", "kube-scheduler's default profile"
    SNAPSHOT = "snapshot", "the snapshot's configuration"
    ANALYSIS = "analysis", "the what-if's own configuration"


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    # Where the configuration comes from (the product or page that defines it).
    origin: str
    config: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "origin": self.origin,
            "config": self.config,
        }


_PRESET_DIR = Path(__file__).resolve().parent / "scheduler_presets"
_PRESET_WORDS: dict[str, tuple[str, str]] = {
    "default": ("Default profile", "kube-scheduler v1.35 with no configuration file"),
    "openshift-low-node-utilization": (
        "OpenShift LowNodeUtilization",
        "OpenShift schedulers.config.openshift.io/cluster spec.profile LowNodeUtilization "
        "(the default there)",
    ),
    "openshift-high-node-utilization": (
        "OpenShift HighNodeUtilization",
        "OpenShift schedulers.config.openshift.io/cluster spec.profile HighNodeUtilization",
    ),
    "openshift-no-scoring": (
        "OpenShift NoScoring",
        "OpenShift schedulers.config.openshift.io/cluster spec.profile NoScoring",
    ),
    "most-allocated": (
        "MostAllocated bin packing",
        "kubernetes.io, Resource Bin Packing: NodeResourcesFit scoringStrategy MostAllocated",
    ),
    "gardener-bin-packing": (
        "Gardener bin-packing",
        "Gardener Shoot spec.kubernetes.kubeScheduler.profile bin-packing",
    ),
}

# OpenShift's Scheduler spec.profile -> the preset that configures kube-scheduler alike.
OPENSHIFT_PROFILES: dict[str, str] = {
    "LowNodeUtilization": "openshift-low-node-utilization",
    "HighNodeUtilization": "openshift-high-node-utilization",
    "NoScoring": "openshift-no-scoring",
}


@cache
def presets() -> dict[str, Preset]:
    """Every preset by name, in the order they are offered (the default first)."""
    out: dict[str, Preset] = {}
    for name, (title, origin) in _PRESET_WORDS.items():
        config = yaml.safe_load((_PRESET_DIR / f"{name}.yaml").read_text())
        out[name] = Preset(name, title, origin, config)
    return out


def preset_get(name: Any, *, field: str = "scheduler_preset") -> Preset:
    found = presets().get(name) if isinstance(name, str) else None
    if found is None:
        raise PodRejected(
            f"Unknown scheduler preset {name!r}: use one of {', '.join(presets())}.",
            field=field,
        )
    return found


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
        """The profile's words for pages and reports."""
        if self.preset:
            return presets()[self.preset].title if self.preset in presets() else self.preset
        if self.config is not None:
            names = [p.get("schedulerName", "") for p in self.config.get("profiles") or []]
            return ", ".join(n for n in names if n) or DEFAULT_SCHEDULER_NAME
        return "default-scheduler (default profile)"

    def profile(self) -> dict[str, Any]:
        """The result's ``scheduler_profile``."""
        return {"name": self.name, "source": str(self.source), "preset": self.preset or None}

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
    """kube-scheduler's decoding and validation of the file; PodRejected with its words."""
    if config.get("apiVersion") != API_VERSION or config.get("kind") != KIND:
        raise PodRejected(
            f"no kind {config.get('kind')!r} is registered for version "
            f"{config.get('apiVersion')!r}: give apiVersion {API_VERSION} and kind {KIND}.",
            field=field,
        )
    problem = validation_problem(config)
    if problem is not None:
        raise PodRejected(problem, field=field)


def validation_problem(config: dict[str, Any]) -> str | None:
    """The first of kube-scheduler's validation errors ("path: words"), or None."""
    # Imported here: the engine's own validation when it has one.
    from scheduling.profile_validation import first_problem

    return first_problem(config)


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
    analyses keep the configuration they ran under; new ones take this one."""
    snapshot.scheduler_config = choice.config if choice is not None else None
    snapshot.scheduler_preset = choice.preset if choice is not None else ""
    snapshot.scheduler_origin = origin if choice is not None else ""
    snapshot.save(update_fields=["scheduler_config", "scheduler_preset", "scheduler_origin"])
    return snapshot
