"""The default profile: plugin classes in kube-scheduler's order.

The order of FILTER_ORDER is the real Filter order of the default profile (plugins
with no meaning offline are left out; the four volume plugins follow NodeResourcesFit,
DynamicResources filters last). InterPodAffinity and PodTopologySpread live in their
own modules; each is listed here as soon as its module exists (see ``_optional``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from . import names
from .dynamicresources import DynamicResources
from .imagelocality import ImageLocality
from .nodeaffinity import NodeAffinity
from .nodename import NodeName
from .nodeports import NodePorts
from .noderesources import BalancedAllocation, Fit
from .nodeunschedulable import NodeUnschedulable
from .nodevolumelimits import NodeVolumeLimits
from .tainttoleration import TaintToleration
from .volumebinding import VolumeBinding
from .volumerestrictions import VolumeRestrictions
from .volumezone import VolumeZone

if TYPE_CHECKING:
    from ..framework import Handle, Plugin
    from ..profile.extension_points import ExtensionPoints

# A plugin class: built with the handle (New(ctx, args, handle) in Go).
PluginFactory = Callable[["Handle"], "Plugin"]
PluginClass = PluginFactory


def _optional(module: str, cls: str) -> PluginClass | None:
    """The class ``cls`` of ``plugins/<module>.py`` if that module is present."""
    try:
        mod = importlib.import_module(f"{__package__}.{module}")
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}.{module}":
            raise
        return None
    return cast(PluginClass, getattr(mod, cls))


# name -> class; InterPodAffinity and PodTopologySpread are looked up by these names:
# plugins/podtopologyspread.py must define PodTopologySpread, plugins/interpodaffinity.py
# must define InterPodAffinity.
REGISTRY: dict[str, PluginClass | None] = {
    names.NODE_UNSCHEDULABLE: NodeUnschedulable,
    names.NODE_NAME: NodeName,
    names.TAINT_TOLERATION: TaintToleration,
    names.NODE_AFFINITY: NodeAffinity,
    names.NODE_PORTS: NodePorts,
    names.NODE_RESOURCES_FIT: Fit,
    names.VOLUME_RESTRICTIONS: VolumeRestrictions,
    names.NODE_VOLUME_LIMITS: NodeVolumeLimits,
    names.VOLUME_BINDING: VolumeBinding,
    names.VOLUME_ZONE: VolumeZone,
    names.POD_TOPOLOGY_SPREAD: _optional("podtopologyspread", "PodTopologySpread"),
    names.INTER_POD_AFFINITY: _optional("interpodaffinity", "InterPodAffinity"),
    names.DYNAMIC_RESOURCES: DynamicResources,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: BalancedAllocation,
    names.IMAGE_LOCALITY: ImageLocality,
}

# The default profile's plugin order (MultiPoint in apis/config/v1/default_plugins.go);
# each extension point runs the plugins implementing it in this order.
DEFAULT_PROFILE: list[str] = [
    names.NODE_UNSCHEDULABLE,
    names.NODE_NAME,
    names.TAINT_TOLERATION,
    names.NODE_AFFINITY,
    names.NODE_PORTS,
    names.NODE_RESOURCES_FIT,
    names.VOLUME_RESTRICTIONS,
    names.NODE_VOLUME_LIMITS,
    names.VOLUME_BINDING,
    names.VOLUME_ZONE,
    names.POD_TOPOLOGY_SPREAD,
    names.INTER_POD_AFFINITY,
    names.DYNAMIC_RESOURCES,
    names.NODE_RESOURCES_BALANCED_ALLOCATION,
    names.IMAGE_LOCALITY,
]

# Filters whose answer depends on the other pods of the node (not only on the node):
# victim selection must re-run these after every change to the node's pods.
POD_DEPENDENT_FILTERS = frozenset(
    {
        names.NODE_PORTS,
        names.NODE_RESOURCES_FIT,
        # The volume filters come after NodeResourcesFit: a node full *and* out of a
        # volume's zone is a potential node whose dry run must still run them.
        names.VOLUME_RESTRICTIONS,
        names.NODE_VOLUME_LIMITS,
        names.VOLUME_BINDING,
        names.VOLUME_ZONE,
        names.POD_TOPOLOGY_SPREAD,
        names.INTER_POD_AFFINITY,
    }
)


def default_plugins() -> list[tuple[str, PluginClass]]:
    out: list[tuple[str, PluginClass]] = []
    for n in DEFAULT_PROFILE:
        factory = REGISTRY.get(n)
        if factory is not None:
            out.append((n, factory))
    return out


def profile_plugins(points: ExtensionPoints) -> list[tuple[str, PluginClass]]:
    """The plugin classes a configured profile runs at some extension point, in the
    default profile's order (each point then takes its own order from ``points``)."""
    used = {n for names_at in points.points.values() for n in names_at}
    return [(n, f) for n, f in default_plugins() if n in used]
