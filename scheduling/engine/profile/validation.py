"""Validation as kube-scheduler v1.35 words it (apis/config/validation/validation.go and
validation_pluginargs.go): each error a field path and kube-scheduler's sentence."""

from __future__ import annotations

import re
from typing import Any

from ..errors import InvalidInput
from ..plugins import names
from ..plugins.nodeaffinity import parse_added_affinity
from .defaults import (
    LEAST_ALLOCATED,
    LIST_DEFAULTING,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    SYSTEM_DEFAULTING,
)
from .fielderrors import duplicate, forbidden, invalid, not_supported, required
from .registry import INVALID_IN_V1
from .types import API_VERSION, PluginSet

_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def percentage(path: str, value: int | None) -> list[str]:
    if value is not None and not 0 <= value <= 100:
        return [invalid(path, value, "not in valid range [0-100]")]
    return []


def label_name(path: str, value: str) -> list[str]:
    """metav1validation.ValidateLabelName (IsQualifiedName), its usual first message."""
    name = value.rsplit("/", 1)[-1] if "/" in value else value
    prefix = value.rsplit("/", 1)[0] if "/" in value else ""
    if prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        return [invalid(path, value, "prefix part must be a lowercase RFC 1123 subdomain")]
    if not name or len(name) > 63 or not _QUALIFIED_NAME.match(name):
        return [
            invalid(
                path,
                value,
                "name part must consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character",
            )
        ]
    return []


def invalid_plugins(path: str, plugin_set: PluginSet) -> list[str]:
    return [
        invalid(
            f"{path}.enabled[{i}]",
            p.name,
            f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version '
            f'"{API_VERSION}")',
        )
        for i, p in enumerate(plugin_set.enabled)
        if p.name in INVALID_IN_V1
    ]


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def default_preemption(path: str, args: dict[str, Any]) -> list[str]:
    errs: list[str] = []
    pct, absolute = (
        _int(args.get("minCandidateNodesPercentage")),
        _int(args.get("minCandidateNodesAbsolute")),
    )
    p_path, a_path = f"{path}.minCandidateNodesPercentage", f"{path}.minCandidateNodesAbsolute"
    if not 0 <= pct <= 100:
        errs.append(invalid(p_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(a_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(
            invalid(p_path, 0, "cannot be zero at the same time as minCandidateNodesAbsolute")
        )
        errs.append(
            invalid(a_path, 0, "cannot be zero at the same time as minCandidateNodesPercentage")
        )
    return errs


def inter_pod_affinity(path: str, args: dict[str, Any]) -> list[str]:
    w = _int(args.get("hardPodAffinityWeight"))
    if not 0 <= w <= 100:
        return [invalid(f"{path}.hardPodAffinityWeight", w, "not in valid range [0, 100]")]
    return []


def pod_topology_spread(path: str, args: dict[str, Any]) -> list[str]:
    errs: list[str] = []
    kind = args.get("defaultingType")
    constraints = args.get("defaultConstraints") or []
    if kind not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.append(
            not_supported(f"{path}.defaultingType", kind, [SYSTEM_DEFAULTING, LIST_DEFAULTING])
        )
    elif kind == SYSTEM_DEFAULTING and constraints:
        errs.append(
            invalid(f"{path}.defaultingType", kind, "when .defaultConstraints are not empty")
        )
    seen: list[tuple[Any, Any]] = []
    for i, c in enumerate(constraints):
        p = f"{path}.defaultConstraints[{i}]"
        skew = _int(c.get("maxSkew"))
        if skew <= 0:
            errs.append(invalid(f"{p}.maxSkew", skew, "not in valid range (0, inf)"))
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        else:
            errs.extend(label_name(f"{p}.topologyKey", key))
        when = c.get("whenUnsatisfiable") or ""
        if not when:
            errs.append(required(f"{p}.whenUnsatisfiable", "can not be empty"))
        elif when not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(
                not_supported(f"{p}.whenUnsatisfiable", when, ["DoNotSchedule", "ScheduleAnyway"])
            )
        if c.get("labelSelector") is not None:
            errs.append(
                forbidden(
                    f"{p}.labelSelector",
                    "constraint must not define a selector, as they deduced for each pod",
                )
            )
        if (key, when) in seen:
            errs.append(duplicate(f"{path}.defaultConstraints[{i}]", f"{{{key}, {when}}}"))
        seen.append((key, when))
    return errs


def _function_shape(path: str, shape: list[dict[str, Any]]) -> list[str]:
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs: list[str] = []
    for i in range(1, len(shape)):
        if _int(shape[i - 1].get("utilization")) >= _int(shape[i].get("utilization")):
            u = _int(shape[i].get("utilization"))
            errs.append(
                invalid(f"{path}[{i}].utilization", u, "values must be sorted in increasing order")
            )
            break
    for i, point in enumerate(shape):
        u, s = _int(point.get("utilization")), _int(point.get("score"))
        if not 0 <= u <= 100:
            errs.append(invalid(f"{path}[{i}].utilization", u, "not in valid range [0, 100]"))
        if not 0 <= s <= 10:
            errs.append(invalid(f"{path}[{i}].score", s, "not in valid range [0, 10]"))
    return errs


def node_resources_fit(path: str, args: dict[str, Any]) -> list[str]:
    errs: list[str] = []
    for i, res in enumerate(args.get("ignoredResources") or []):
        errs.extend(label_name(f"{path}.ignoredResources[{i}]", str(res)))
    for i, group in enumerate(args.get("ignoredResourceGroups") or []):
        p = f"{path}.ignoredResourceGroups[{i}]"
        if "/" in str(group):
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs.extend(label_name(p, str(group)))
    s_path = f"{path}.scoringStrategy"
    strategy = args.get("scoringStrategy") or {}
    kind = strategy.get("type", "")
    supported = [LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO]
    if kind not in supported:
        errs.append(not_supported(f"{s_path}.type", kind, supported))
    for i, r in enumerate(strategy.get("resources") or []):
        w = _int(r.get("weight"))
        if not 0 < w <= 100:
            detail = f"resource weight of {r.get('name')} not in valid range (0, 100]"
            errs.append(invalid(f"{s_path}.resources[{i}].weight", w, detail))
    ratio = strategy.get("requestedToCapacityRatio")
    if ratio is not None:
        # validateFunctionShape under "scoringStrategy.shape", as v1.35 names it.
        errs.extend(_function_shape(f"{s_path}.shape", ratio.get("shape") or []))
    elif kind == REQUESTED_TO_CAPACITY_RATIO:
        # kube-scheduler would fail building the scorer (no shape to read); say so here.
        errs.append(
            required(
                f"{s_path}.requestedToCapacityRatio",
                "must be specified when type is RequestedToCapacityRatio",
            )
        )
    return errs


def balanced_allocation(path: str, args: dict[str, Any]) -> list[str]:
    errs: list[str] = []
    seen: set[str] = set()
    for i, r in enumerate(args.get("resources") or []):
        name = r.get("name")
        if name in seen:
            errs.append(duplicate(f"{path}.resources[{i}].name", name))
        seen.add(name)
        if _int(r.get("weight")) != 1:
            errs.append(invalid(f"{path}.resources[{i}].weight", r.get("weight"), "must be 1"))
    return errs


def node_affinity(path: str, args: dict[str, Any]) -> list[str]:
    """ValidateNodeAffinityArgs: addedAffinity must be a valid v1.NodeAffinity."""
    try:
        parse_added_affinity(args.get("addedAffinity"))
    except InvalidInput as e:
        where = f"{path}.addedAffinity" + (f".{e.field}" if e.field else "")
        return [f"{where}: {e.message}"]
    return []


def volume_binding(path: str, args: dict[str, Any]) -> list[str]:
    """ValidateVolumeBindingArgs with StorageCapacityScoring off (its default in v1.35):
    a non-negative bindTimeoutSeconds and no shape."""
    errs: list[str] = []
    timeout = args.get("bindTimeoutSeconds", 600)
    if _int(timeout) < 0:
        errs.append(
            invalid(
                f"{path}.bindTimeoutSeconds",
                timeout,
                "invalid BindTimeoutSeconds, should not be a negative value",
            )
        )
    if args.get("shape") is not None:
        errs.append(
            invalid(
                f"{path}.shape",
                args["shape"],
                "unsupported when StorageCapacityScoring feature is disabled",
            )
        )
    return errs


# validatePluginConfig's table (NodeResourcesFit's args are validated too, as the
# plugin's constructor does, with the full path).
ARGS_VALIDATORS = {
    names.DEFAULT_PREEMPTION: default_preemption,
    names.INTER_POD_AFFINITY: inter_pod_affinity,
    names.NODE_AFFINITY: node_affinity,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: balanced_allocation,
    names.NODE_RESOURCES_FIT: node_resources_fit,
    names.POD_TOPOLOGY_SPREAD: pod_topology_spread,
    names.VOLUME_BINDING: volume_binding,
}
