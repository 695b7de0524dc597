"""Named KubeSchedulerConfigurations kept in presets/*.yaml (each says where it comes
from), and OpenShift's schedulers.config.openshift.io/cluster spec.profile values."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from .load import load_scheduler_config
from .types import OPENSHIFT_PROFILES as OPENSHIFT_PROFILES
from .types import SOURCE_DEFAULT, SchedulerConfiguration

_DIR = Path(__file__).parent / "presets"


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    source: str  # where the configuration comes from
    config: dict[str, Any]  # the parsed KubeSchedulerConfiguration


_TITLES: dict[str, tuple[str, str]] = {
    "default": ("kube-scheduler default profile", "kube-scheduler v1.35 defaults"),
    "openshift-low-node-utilization": (
        "OpenShift LowNodeUtilization",
        "openshift/cluster-kube-scheduler-operator",
    ),
    "openshift-high-node-utilization": (
        "OpenShift HighNodeUtilization",
        "openshift/cluster-kube-scheduler-operator",
    ),
    "openshift-no-scoring": ("OpenShift NoScoring", "openshift/cluster-kube-scheduler-operator"),
    "most-allocated": ("MostAllocated (GKE optimize-utilization scoring)", "GKE"),
    "gardener-bin-packing": (
        "Gardener bin-packing (changes only pods naming bin-packing-scheduler)",
        "gardener/gardener",
    ),
}


@cache
def _read(name: str) -> dict[str, Any]:
    loaded = yaml.safe_load((_DIR / f"{name}.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def presets() -> list[Preset]:
    """Every preset, in a stable order (the default first)."""
    return [Preset(n, title, src, _read(n)) for n, (title, src) in _TITLES.items()]


def preset_config(name: str, *, source: str | None = None) -> SchedulerConfiguration:
    """The preset's configuration, loaded (KeyError: no such preset)."""
    if name not in _TITLES:
        raise KeyError(f"no scheduler preset {name!r}; known: {', '.join(_TITLES)}")
    return load_scheduler_config(
        _read(name),
        source=source or (SOURCE_DEFAULT if name == "default" else "analysis"),
        preset=name,
    )
