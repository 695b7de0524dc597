"""The Scheduler tab: a snapshot's scheduler configuration as kube-scheduler would run it,
each profile's plugins per extension point (Score with its weights) and the plugin
arguments that differ from the defaults."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from scheduling.engine.plan.rules.profiles import configured, preemption_enabled
from scheduling.engine.profile import DEFAULT_SCHEDULER_NAME, Profile, SchedulerConfiguration
from scheduling.engine.profile.defaults import default_args
from scheduling.engine.profile.extension_points import build
from scheduling.scheduler_config.choice import SchedulerChoice, SchedulerSource, presets

# The extension points shown, in the order a pod meets them.
SHOWN_POINTS = (
    "queueSort",
    "preEnqueue",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)


@dataclass(frozen=True)
class PointRow:
    point: str
    # (plugin, weight or None): weights only at Score.
    plugins: tuple[tuple[str, int | None], ...]


@dataclass(frozen=True)
class ArgsRow:
    plugin: str
    # Each changed argument as the configuration file writes it (JSON, a YAML flow).
    changed: dict[str, str]


@dataclass(frozen=True)
class ProfileView:
    name: str
    points: tuple[PointRow, ...]
    args: tuple[ArgsRow, ...]
    preemption: bool


def _changed(given: dict[str, Any], default: dict[str, Any]) -> dict[str, str]:
    return {k: json.dumps(v) for k, v in given.items() if default.get(k) != v}


def profile_view(profile: Profile) -> ProfileView:
    points = build(profile.plugins)
    rows = tuple(
        PointRow(
            point,
            tuple(
                (name, points.weights.get(name) if point == "score" else None)
                for name in points.at(point)
            ),
        )
        for point in SHOWN_POINTS
    )
    args = tuple(
        ArgsRow(name, changed)
        for name, given in sorted(profile.args.items())
        if (changed := _changed(given, default_args(name, None)))
    )
    return ProfileView(profile.scheduler_name, rows, args, preemption_enabled(profile))


def configuration_views(config: SchedulerConfiguration) -> list[ProfileView]:
    return [profile_view(p) for p in config.profiles]


def origin_words(choice: SchedulerChoice, origin: str) -> str:
    """Where the configuration in effect came from, in one phrase."""
    if choice.source == SchedulerSource.DEFAULT:
        return "none given: kube-scheduler's default profile"
    what = (
        f"the preset {presets()[choice.preset].title} ({choice.preset})"
        if choice.preset in presets()
        else "a KubeSchedulerConfiguration"
    )
    return f"{what}, {origin}" if origin else what


def scheduler_tab(choice: SchedulerChoice, origin: str) -> dict[str, Any]:
    """What the tab shows of the configuration in effect."""
    return {
        "profiles": configuration_views(configured(choice.effective)),
        "origin": origin_words(choice, origin),
        "choice": choice,
    }


def score_weights(choice: SchedulerChoice, pod: dict[str, Any]) -> dict[str, int]:
    """The Score weights of the profile a pod ran under (its spec.schedulerName's)."""
    spec = pod.get("spec") or {} if isinstance(pod, dict) else {}
    name = spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME
    profile = configured(choice.effective).profile(name)
    return dict(build(profile.plugins).weights) if profile is not None else {}
