"""The in-tree plugins of kube-scheduler v1.35 and the extension points each implements
(pkg/scheduler/framework/plugins/registry.go): what MultiPoint expands a plugin to, and
the names a configuration may enable."""

from __future__ import annotations

from ..plugins import names

_FILTERING = frozenset({"preFilter", "filter"})
_SCORING = frozenset({"preScore", "score"})

IN_TREE: dict[str, frozenset[str]] = {
    "SchedulingGates": frozenset({"preEnqueue"}),
    names.PRIORITY_SORT: frozenset({"queueSort"}),
    names.NODE_UNSCHEDULABLE: frozenset({"filter"}),
    names.NODE_NAME: frozenset({"filter"}),
    names.TAINT_TOLERATION: frozenset({"filter"}) | _SCORING,
    names.NODE_AFFINITY: _FILTERING | _SCORING,
    names.NODE_PORTS: _FILTERING,
    names.NODE_RESOURCES_FIT: _FILTERING | _SCORING,
    "VolumeRestrictions": _FILTERING,
    "NodeVolumeLimits": _FILTERING,
    "VolumeBinding": _FILTERING | _SCORING | frozenset({"reserve", "preBind"}),
    "VolumeZone": _FILTERING,
    names.POD_TOPOLOGY_SPREAD: _FILTERING | _SCORING,
    names.INTER_POD_AFFINITY: _FILTERING | _SCORING,
    names.DYNAMIC_RESOURCES: _FILTERING
    | frozenset({"preEnqueue", "postFilter", "score", "reserve", "preBind"}),
    names.DEFAULT_PREEMPTION: frozenset({"preEnqueue", "postFilter"}),
    names.NODE_RESOURCES_BALANCED_ALLOCATION: _SCORING,
    names.IMAGE_LOCALITY: frozenset({"score"}),
    names.DEFAULT_BINDER: frozenset({"bind"}),
}

# getDefaultPlugins (apis/config/v1/default_plugins.go) with DynamicResourceAllocation
# on (GA): the default MultiPoint set, in order, with its score weights.
DEFAULT_MULTI_POINT: tuple[tuple[str, int | None], ...] = (
    ("SchedulingGates", None),
    (names.PRIORITY_SORT, None),
    (names.NODE_UNSCHEDULABLE, None),
    (names.NODE_NAME, None),
    (names.TAINT_TOLERATION, 3),
    (names.NODE_AFFINITY, 2),
    (names.NODE_PORTS, None),
    (names.NODE_RESOURCES_FIT, 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    (names.POD_TOPOLOGY_SPREAD, 2),
    (names.INTER_POD_AFFINITY, 2),
    (names.DYNAMIC_RESOURCES, 2),
    (names.DEFAULT_PREEMPTION, None),
    (names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    (names.IMAGE_LOCALITY, 1),
    (names.DEFAULT_BINDER, None),
)

# Removed plugins validation refuses (invalidPluginsByVersion).
INVALID_IN_V1 = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
