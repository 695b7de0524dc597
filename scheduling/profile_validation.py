"""kube-scheduler v1.35's validation of a KubeSchedulerConfiguration, the checks a user
most often trips (pkg/scheduler/apis/config/validation/validation.go and
validation_pluginargs.go), in its own words: "path: Unsupported value: ...".

Field errors are written as apimachinery's field.Error prints them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

SCORING_STRATEGY_TYPES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f'"{v}"' for v in values)


def problems(config: dict[str, Any]) -> Iterator[str]:
    """Every validation error, in kube-scheduler's order."""
    pct = config.get("percentageOfNodesToScore")
    if pct is not None and (not isinstance(pct, int) or not 0 <= pct <= 100):
        yield f"percentageOfNodesToScore: Invalid value: {pct}: not in valid range [0-100]"
    profiles = config.get("profiles") or []
    if not isinstance(profiles, list):
        yield "profiles: Invalid value: must be a list of profiles"
        return
    seen: set[str] = set()
    for i, profile in enumerate(profiles):
        path = f"profiles[{i}]"
        if not isinstance(profile, dict):
            yield f"{path}: Invalid value: must be an object"
            continue
        name = profile.get("schedulerName")
        if not name:
            yield f"{path}.schedulerName: Required value"
        elif name in seen:
            yield f'{path}.schedulerName: Duplicate value: "{name}"'
        else:
            seen.add(name)
        yield from _plugin_config(profile.get("pluginConfig") or [], f"{path}.pluginConfig")


def _plugin_config(entries: Any, path: str) -> Iterator[str]:
    if not isinstance(entries, list):
        yield f"{path}: Invalid value: must be a list"
        return
    names: set[str] = set()
    for j, entry in enumerate(entries):
        here = f"{path}[{j}]"
        if not isinstance(entry, dict):
            yield f"{here}: Invalid value: must be an object"
            continue
        name = entry.get("name")
        if str(name) in names:
            yield f'{here}: Duplicate value: "{name}"'
        names.add(str(name))
        args = entry.get("args") or {}
        if name == "NodeResourcesFit" and isinstance(args, dict):
            strategy = args.get("scoringStrategy") or {}
            kind = strategy.get("type") if isinstance(strategy, dict) else None
            if kind is not None and kind not in SCORING_STRATEGY_TYPES:
                yield (
                    f'{here}.args.scoringStrategy.type: Unsupported value: "{kind}": '
                    f"supported values: {_quoted(SCORING_STRATEGY_TYPES)}"
                )


def first_problem(config: dict[str, Any]) -> str | None:
    return next(problems(config), None)
