"""Scheduler profiles: kube-scheduler's own configuration (KubeSchedulerConfiguration,
kubescheduler.config.k8s.io/v1) decoded, defaulted and validated as v1.35 does
(pkg/scheduler/apis/config/), and each profile turned into the framework settings the
engine runs (EngineConfig with its extension points).

``load_scheduler_config(raw)`` -> SchedulerConfiguration; ``presets()`` the named ones;
``profile_of(pod_scheduler_name)`` via ``SchedulerConfiguration.profile``.
"""

from .difference import analysis_difference, simulation_difference
from .extension_points import ExtensionPoints
from .load import load_scheduler_config
from .plugin_args import engine_config
from .presets import OPENSHIFT_PROFILES, Preset, preset_config, presets
from .profile_map import (
    DEFAULT_PROFILE_REF,
    ProfileMap,
    SchedulerConfigInput,
    SchedulerProfileRef,
    profile_map,
)
from .types import (
    DEFAULT_SCHEDULER_NAME,
    SOURCE_ANALYSIS,
    SOURCE_DEFAULT,
    SOURCE_SNAPSHOT,
    Profile,
    SchedulerConfiguration,
)

__all__ = [
    "DEFAULT_PROFILE_REF",
    "DEFAULT_SCHEDULER_NAME",
    "OPENSHIFT_PROFILES",
    "SOURCE_ANALYSIS",
    "SOURCE_DEFAULT",
    "SOURCE_SNAPSHOT",
    "ExtensionPoints",
    "Preset",
    "Profile",
    "ProfileMap",
    "SchedulerConfigInput",
    "SchedulerConfiguration",
    "SchedulerProfileRef",
    "analysis_difference",
    "engine_config",
    "load_scheduler_config",
    "preset_config",
    "presets",
    "profile_map",
    "simulation_difference",
]
