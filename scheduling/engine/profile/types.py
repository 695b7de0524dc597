"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), defaulted: the typed model.

Mirrors pkg/scheduler/apis/config/types.go: a configuration holds profiles; a profile
holds its plugin sets per extension point (MultiPoint merged with the defaults as
v1's mergePlugins does) and its plugins' arguments (defaulted).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME = "default-scheduler"

# The extension points of v1.Plugins, in the order of its fields.
EXTENSION_POINTS = (
    "multiPoint",
    "preEnqueue",
    "queueSort",
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

# Where a configuration came from, as results report it (scheduler_profile.source).
SOURCE_DEFAULT = "default"
SOURCE_SNAPSHOT = "snapshot"
SOURCE_ANALYSIS = "analysis"


@dataclass(frozen=True)
class PluginRef:
    """v1.Plugin: a name and, for Score, a weight (None: not given)."""

    name: str
    weight: int | None = None


@dataclass(frozen=True)
class PluginSet:
    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[str, ...] = ()


@dataclass(frozen=True)
class Profile:
    """KubeSchedulerProfile after defaulting."""

    scheduler_name: str
    # extension point -> the merged PluginSet (EXTENSION_POINTS keys).
    plugins: dict[str, PluginSet]
    # plugin name -> its defaulted args (only the plugins the engine reads).
    args: dict[str, dict[str, Any]]
    percentage_of_nodes_to_score: int | None = None


# schedulers.config.openshift.io/cluster spec.profile -> preset name.
OPENSHIFT_PROFILES: dict[str, str] = {
    "LowNodeUtilization": "openshift-low-node-utilization",
    "HighNodeUtilization": "openshift-high-node-utilization",
    "NoScoring": "openshift-no-scoring",
}


@dataclass(frozen=True)
class SchedulerConfiguration:
    """A KubeSchedulerConfiguration, defaulted and validated, with where it came from."""

    profiles: tuple[Profile, ...]
    percentage_of_nodes_to_score: int = 0
    # scheduler_profile.source and .preset of the results ("analysis"/None unless the
    # caller says otherwise: the engine cannot know where a configuration came from).
    source: str = SOURCE_ANALYSIS
    preset: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    def profile(self, scheduler_name: str) -> Profile | None:
        """profile.Map lookup: the profile a pod's spec.schedulerName names."""
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        return None

    @property
    def scheduler_names(self) -> list[str]:
        return [p.scheduler_name for p in self.profiles]
