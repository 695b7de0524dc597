"""v1 defaulting (pkg/scheduler/apis/config/v1/defaults.go, default_plugins.go).

``merge_plugin_set`` is mergePluginSet: the profile's set for an extension point laid
over the default one ("*" among the disabled drops every default plugin; a default
plugin enabled again keeps its place with the new settings; the others are appended).
"""

from __future__ import annotations

import copy
from typing import Any

from ..plugins import names
from .registry import DEFAULT_MULTI_POINT
from .types import EXTENSION_POINTS, PluginRef, PluginSet

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


def _default_resources() -> list[dict[str, Any]]:
    return [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def default_plugins() -> dict[str, PluginSet]:
    sets = {point: PluginSet() for point in EXTENSION_POINTS}
    sets["multiPoint"] = PluginSet(tuple(PluginRef(n, w) for n, w in DEFAULT_MULTI_POINT))
    return sets


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    disabled = list(custom.disabled) + list(default.disabled)
    off = set(disabled)
    custom_at = {p.name: i for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in off:
        for p in default.enabled:
            if p.name in off:
                continue
            i = custom_at.get(p.name)
            if i is not None:
                p = custom.enabled[i]
                replaced.add(i)
            enabled.append(p)
    enabled.extend(p for i, p in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(tuple(enabled), tuple(disabled))


def merge_plugins(custom: dict[str, PluginSet] | None) -> dict[str, PluginSet]:
    merged = default_plugins()
    if custom is None:
        return merged
    return {
        point: merge_plugin_set(merged[point], custom.get(point, PluginSet()))
        for point in EXTENSION_POINTS
    }


def _weighted_resources(given: Any) -> list[dict[str, Any]]:
    resources = copy.deepcopy(given) if given else _default_resources()
    for r in resources:
        if isinstance(r, dict) and not r.get("weight"):
            r["weight"] = 1
    return list(resources)


def default_args(name: str, given: dict[str, Any] | None) -> dict[str, Any]:
    """SetDefaults_<Plugin>Args for the plugins whose arguments the engine reads."""
    args = copy.deepcopy(given) if given else {}
    if name == names.NODE_RESOURCES_FIT:
        strategy = args.get("scoringStrategy")
        if strategy is None:
            strategy = args["scoringStrategy"] = {"type": LEAST_ALLOCATED}
        if isinstance(strategy, dict):
            strategy["resources"] = _weighted_resources(strategy.get("resources"))
    elif name == names.NODE_RESOURCES_BALANCED_ALLOCATION:
        args["resources"] = _weighted_resources(args.get("resources"))
    elif name == names.POD_TOPOLOGY_SPREAD:
        if not args.get("defaultingType"):
            args["defaultingType"] = SYSTEM_DEFAULTING
    elif name == names.INTER_POD_AFFINITY:
        args.setdefault("hardPodAffinityWeight", 1)
    elif name == names.VOLUME_BINDING:
        # SetDefaults_VolumeBindingArgs (the shape only with StorageCapacityScoring on).
        args.setdefault("bindTimeoutSeconds", 600)
    elif name == names.DEFAULT_PREEMPTION:
        args.setdefault("minCandidateNodesPercentage", 10)
        args.setdefault("minCandidateNodesAbsolute", 100)
    return args
