"""A profile as the engine runs it: its plugins' arguments and extension points folded
into an EngineConfig (what the plugins read through their Handle)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..config import EngineConfig
from ..plugins import names
from .defaults import LIST_DEFAULTING
from .extension_points import build as build_extension_points
from .types import Profile, SchedulerConfiguration


def _resources(given: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(str(r["name"]), int(r.get("weight") or 1)) for r in given]


def engine_config(
    profile: Profile, configuration: SchedulerConfiguration, base: EngineConfig | None = None
) -> EngineConfig:
    """The EngineConfig of ``profile``; ``base`` gives what a configuration does not say
    (the preemption offset), else the defaults."""
    args = profile.args
    fit = args.get(names.NODE_RESOURCES_FIT) or {}
    strategy = fit.get("scoringStrategy") or {}
    shape = (strategy.get("requestedToCapacityRatio") or {}).get("shape") or []
    balanced = args.get(names.NODE_RESOURCES_BALANCED_ALLOCATION) or {}
    spread = args.get(names.POD_TOPOLOGY_SPREAD) or {}
    affinity = args.get(names.INTER_POD_AFFINITY) or {}
    preemption = args.get(names.DEFAULT_PREEMPTION) or {}
    node_affinity = args.get(names.NODE_AFFINITY) or {}
    points = build_extension_points(profile.plugins)
    pct = profile.percentage_of_nodes_to_score
    listed = spread.get("defaultingType") == LIST_DEFAULTING
    return dataclasses.replace(
        base or EngineConfig(),
        profile_name=profile.scheduler_name,
        points=points,
        weights=dict(points.weights),
        scoring_strategy=str(strategy.get("type") or "LeastAllocated"),
        fit_score_resources=_resources(strategy.get("resources") or []),
        fit_shape=tuple((int(p.get("utilization", 0)), int(p.get("score", 0))) for p in shape),
        ignored_resources=frozenset(fit.get("ignoredResources") or ()),
        ignored_resource_groups=frozenset(fit.get("ignoredResourceGroups") or ()),
        balanced_resources=_resources(balanced.get("resources") or []),
        pod_topology_spread_system_defaults=not listed,
        pod_topology_spread_default_constraints=(
            list(spread.get("defaultConstraints") or []) if listed else None
        ),
        node_affinity_added=node_affinity.get("addedAffinity") or None,
        hard_pod_affinity_weight=int(affinity.get("hardPodAffinityWeight", 1)),
        ignore_preferred_terms_of_existing_pods=bool(
            affinity.get("ignorePreferredTermsOfExistingPods", False)
        ),
        min_candidate_nodes_percentage=int(preemption.get("minCandidateNodesPercentage", 10)),
        min_candidate_nodes_absolute=int(preemption.get("minCandidateNodesAbsolute", 100)),
        percentage_of_nodes_to_score=(
            pct if pct is not None else configuration.percentage_of_nodes_to_score
        ),
    )
