"""EngineConfig: the profile's plugin arguments and weights, passed in (never global)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .plugins import names

if TYPE_CHECKING:
    from .profile.extension_points import ExtensionPoints


def _default_weights() -> dict[str, int]:
    return {
        names.TAINT_TOLERATION: 3,
        names.NODE_AFFINITY: 2,
        names.POD_TOPOLOGY_SPREAD: 2,
        names.INTER_POD_AFFINITY: 2,
        names.NODE_RESOURCES_FIT: 1,
        names.NODE_RESOURCES_BALANCED_ALLOCATION: 1,
        names.IMAGE_LOCALITY: 1,
        names.DYNAMIC_RESOURCES: 2,
    }


def _default_resources() -> list[tuple[str, int]]:
    return [("cpu", 1), ("memory", 1)]


@dataclass
class EngineConfig:
    # Score plugin weights of the default profile.
    weights: dict[str, int] = field(default_factory=_default_weights)
    # NodeResourcesFit LeastAllocated and BalancedAllocation resources with weights.
    fit_score_resources: list[tuple[str, int]] = field(default_factory=_default_resources)
    balanced_resources: list[tuple[str, int]] = field(default_factory=_default_resources)
    # KubeSchedulerConfiguration.percentageOfNodesToScore; 0 is the adaptive default
    # (50% less 1% per 125 nodes, at least 5%, at least 100 nodes). The engine filters
    # every node and reports where the real scheduler would have stopped.
    percentage_of_nodes_to_score: int = 0
    # DefaultPreemptionArgs defaults: the real scheduler dry-runs only this share of the
    # potential nodes; the engine evaluates all of them and reports the sampled count.
    min_candidate_nodes_percentage: int = 10
    min_candidate_nodes_absolute: int = 100
    # GetOffsetAndNumCandidates' random offset, given: the dry run is then the real,
    # sampled one, from this index of the potential nodes (in the snapshot's node order)
    # to where DryRunPreemption stops. None: every potential node, and the share of
    # offsets leading to each nominated node (Result "sampling").
    preemption_offset: int | None = None
    # InterPodAffinityArgs.hardPodAffinityWeight and .ignorePreferredTermsOfExistingPods
    hard_pod_affinity_weight: int = 1
    ignore_preferred_terms_of_existing_pods: bool = False
    # PodTopologySpreadArgs.defaultingType "System" with no Service/ReplicaSet selectors here.
    pod_topology_spread_system_defaults: bool = True
    # The profile these settings come from (profile/plugin_args.py builds them from a
    # KubeSchedulerConfiguration); the defaults are the default profile's.
    profile_name: str = "default-scheduler"
    # The plugins per extension point; None: the default profile (plugins/registry.py).
    points: ExtensionPoints | None = None
    # NodeResourcesFitArgs.scoringStrategy (type; RequestedToCapacityRatio's shape as
    # (utilization, score) points), ignoredResources and ignoredResourceGroups.
    scoring_strategy: str = "LeastAllocated"
    fit_shape: tuple[tuple[int, int], ...] = ()
    ignored_resources: frozenset[str] = frozenset()
    ignored_resource_groups: frozenset[str] = frozenset()
    # NodeAffinityArgs.addedAffinity (a v1.NodeAffinity every pod gets; None: none).
    node_affinity_added: dict[str, Any] | None = None
    # PodTopologySpreadArgs.defaultConstraints with defaultingType List (None: System).
    pod_topology_spread_default_constraints: list[dict[str, Any]] | None = None
