"""profile.Map (pkg/scheduler/profile/profile.go): each profile's framework settings by
schedulerName, and which profile answered, as results report it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from msgspec import Struct

from ..config import EngineConfig
from .load import load_scheduler_config
from .plugin_args import engine_config
from .types import (
    DEFAULT_SCHEDULER_NAME,
    SOURCE_ANALYSIS,
    SOURCE_DEFAULT,
    SchedulerConfiguration,
)

# What a caller passes as scheduler_config: the parsed YAML, or a loaded configuration
# that carries its source and preset.
SchedulerConfigInput = Mapping[str, Any] | SchedulerConfiguration


class SchedulerProfileRef(Struct, frozen=True):
    """Results' ``scheduler_profile``: the profile(s) that answered, where their
    configuration came from and the preset it is, if any (stored with an
    explanation, so a msgspec Struct)."""

    name: str
    source: str
    preset: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "preset": self.preset}


DEFAULT_PROFILE_REF = SchedulerProfileRef(DEFAULT_SCHEDULER_NAME, SOURCE_DEFAULT, "default")


@dataclass(frozen=True)
class ProfileMap:
    configuration: SchedulerConfiguration
    configs: dict[str, EngineConfig]

    def config_for(self, scheduler_name: str) -> EngineConfig | None:
        """The profile a pod's spec.schedulerName names; None: kube-scheduler is not
        responsible for the pod (responsibleForPod) and never schedules it."""
        return self.configs.get(scheduler_name)

    @property
    def first(self) -> EngineConfig:
        return self.configs[self.configuration.profiles[0].scheduler_name]

    def ref(self, used: Collection[str]) -> SchedulerProfileRef:
        """The reference for the profiles ``used`` (all of them when none was)."""
        names = [n for n in self.configuration.scheduler_names if n in used] or [
            self.configuration.profiles[0].scheduler_name
        ]
        return SchedulerProfileRef(
            ", ".join(names), self.configuration.source, self.configuration.preset
        )

    def ignored_reason(self, scheduler_name: str) -> str:
        known = ", ".join(self.configuration.scheduler_names)
        return (
            f'spec.schedulerName "{scheduler_name}" names no profile of this scheduler '
            f"({known}): kube-scheduler ignores the pod, which stays pending"
        )


def profile_map(
    scheduler_config: SchedulerConfigInput | None,
    base: EngineConfig | None = None,
    *,
    source: str | None = None,
    preset: str | None = None,
) -> ProfileMap | None:
    """The profiles of ``scheduler_config`` (None: the default profile, as before).
    ``base`` gives what a configuration does not say (the preemption offset);
    ``source``/``preset`` name where a parsed dict came from (default "analysis", none)."""
    if scheduler_config is None:
        return None
    if isinstance(scheduler_config, SchedulerConfiguration):
        configuration = scheduler_config
    else:
        configuration = load_scheduler_config(
            scheduler_config, source=source or SOURCE_ANALYSIS, preset=preset
        )
    configs = {
        p.scheduler_name: engine_config(p, configuration, base) for p in configuration.profiles
    }
    return ProfileMap(configuration, configs)
