"""Decoding a KubeSchedulerConfiguration (a parsed YAML/JSON dict): strict decoding,
v1 defaulting and validation, as kube-scheduler v1.35 does when it starts; a bad one
raises InvalidInput with kube-scheduler's words and the field path."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from .defaults import default_args, merge_plugins
from .extension_points import FrameworkError
from .extension_points import build as build_extension_points
from .fielderrors import duplicate, invalid, required
from .registry import IN_TREE
from .types import (
    API_VERSION,
    DEFAULT_SCHEDULER_NAME,
    EXTENSION_POINTS,
    KIND,
    OPENSHIFT_PROFILES,
    SOURCE_ANALYSIS,
    PluginRef,
    PluginSet,
    Profile,
    SchedulerConfiguration,
)
from .validation import ARGS_VALIDATORS, invalid_plugins, percentage

_KIND = "KubeSchedulerConfiguration"
_TOP_FIELDS = frozenset(
    {
        "apiVersion",
        "kind",
        "parallelism",
        "leaderElection",
        "clientConnection",
        "healthzBindAddress",
        "metricsBindAddress",
        "enableProfiling",
        "enableContentionProfiling",
        "percentageOfNodesToScore",
        "podInitialBackoffSeconds",
        "podMaxBackoffSeconds",
        "profiles",
        "extenders",
        "delayCacheUntilActive",
    }
)
_PROFILE_FIELDS = frozenset(
    {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"}
)


# The fields of each in-tree plugin's args (pkg/scheduler/apis/config/v1, v1.35), which
# kube-scheduler decodes strictly: a misspelt field is an unknown field, not a value.
_EMBEDDED = frozenset({"apiVersion", "kind"})
_ARG_FIELDS: dict[str, frozenset[str]] = {
    "DefaultPreemption": frozenset({"minCandidateNodesPercentage", "minCandidateNodesAbsolute"}),
    "InterPodAffinity": frozenset({"hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"}),
    "NodeAffinity": frozenset({"addedAffinity"}),
    "NodeResourcesBalancedAllocation": frozenset({"resources"}),
    "NodeResourcesFit": frozenset({"ignoredResources", "ignoredResourceGroups", "scoringStrategy"}),
    "PodTopologySpread": frozenset({"defaultConstraints", "defaultingType"}),
    "VolumeBinding": frozenset({"bindTimeoutSeconds", "shape"}),
    "DynamicResources": frozenset({"filterTimeout", "bindingTimeout"}),
}
_SCORING_STRATEGY = frozenset({"type", "resources", "requestedToCapacityRatio"})


def _unknown_args(plugin: str, args: Mapping[str, Any], path: str) -> None:
    """Strict decoding of a plugin's args: its fields, and its scoring strategy's."""
    known = _ARG_FIELDS.get(plugin)
    if known is None:
        return
    _unknown(args, known | _EMBEDDED, path)
    strategy = args.get("scoringStrategy")
    if plugin == "NodeResourcesFit" and isinstance(strategy, Mapping):
        _unknown(strategy, _SCORING_STRATEGY, f"{path}.scoringStrategy")
        ratio = strategy.get("requestedToCapacityRatio")
        if isinstance(ratio, Mapping):
            _unknown(
                ratio, frozenset({"shape"}), f"{path}.scoringStrategy.requestedToCapacityRatio"
            )


def _refuse(path: str, message: str) -> InvalidInput:
    return InvalidInput(message, kind=_KIND, field=path or None)


def _unknown(raw: Mapping[str, Any], known: frozenset[str], path: str) -> None:
    for key in raw:
        if key not in known:
            where = f"{path}.{key}" if path else key
            raise _refuse("", f'strict decoding error: unknown field "{where}"')


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _refuse(path, "must be an object (a mapping of fields)")
    return value


def _list(value: Any, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _refuse(path, "must be a list")
    return value


INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
# The int32 fields of the plugins' arguments (v1 DefaultPreemptionArgs, InterPodAffinityArgs,
# PodTopologySpreadArgs' constraints, the shape's points): the decoder refuses beyond.
_INT32_ARGS = frozenset(
    {
        "minCandidateNodesPercentage",
        "minCandidateNodesAbsolute",
        "hardPodAffinityWeight",
        "maxSkew",
        "utilization",
        "score",
    }
)


def _int32(value: int, path: str) -> int:
    """The Go decoder's refusal of a number beyond an int32 field."""
    if not INT32_MIN <= value <= INT32_MAX:
        raise _refuse(
            "",
            f"strict decoding error: json: cannot unmarshal number {value} into Go struct "
            f"field {path} of type int32",
        )
    return value


def _optional_int(value: Any, path: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise _refuse(path, f"must be an integer, not {value!r}")
    return _int32(value, path)


def _int32_args(args: Any, path: str) -> None:
    """Every int32 field of a plugin's arguments within int32, at any depth (a loop, not
    recursion: the depth is the sender's)."""
    stack: list[tuple[Any, str]] = [(args, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, Mapping):
            for key, child in value.items():
                here = f"{where}.{key}"
                if key in _INT32_ARGS and isinstance(child, int) and not isinstance(child, bool):
                    _int32(child, here)
                stack.append((child, here))
        elif isinstance(value, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(value))


def _plugin_set(raw: Any, path: str) -> PluginSet:
    raw = _mapping(raw, path)
    _unknown(raw, frozenset({"enabled", "disabled"}), path)
    enabled: list[PluginRef] = []
    for i, p in enumerate(_list(raw.get("enabled"), f"{path}.enabled")):
        p = _mapping(p, f"{path}.enabled[{i}]")
        _unknown(p, frozenset({"name", "weight"}), f"{path}.enabled[{i}]")
        if not isinstance(p.get("name"), str) or not p["name"]:
            raise _refuse(f"{path}.enabled[{i}].name", "Required value: the plugin's name")
        weight = _optional_int(p.get("weight"), f"{path}.enabled[{i}].weight")
        if weight is not None and weight < 0:
            # kube-scheduler v1.35 would run it as given (framework.go's getScoreWeights
            # reads only 0 as 1), reversing the plugin's preference: refused here.
            raise _refuse(
                f"{path}.enabled[{i}].weight",
                f"Invalid value: {weight}: must be a positive integer (0 or unset means 1)",
            )
        enabled.append(PluginRef(p["name"], weight))
    disabled: list[str] = []
    for i, p in enumerate(_list(raw.get("disabled"), f"{path}.disabled")):
        p = _mapping(p, f"{path}.disabled[{i}]")
        if not isinstance(p.get("name"), str) or not p["name"]:
            raise _refuse(f"{path}.disabled[{i}].name", "Required value: the plugin's name")
        disabled.append(p["name"])
    return PluginSet(tuple(enabled), tuple(disabled))


def _plugins(raw: Any, path: str) -> dict[str, PluginSet] | None:
    if raw is None:
        return None
    raw = _mapping(raw, path)
    _unknown(raw, frozenset(EXTENSION_POINTS), path)
    return {
        point: _plugin_set(raw[point], f"{path}.{point}") for point in raw if raw[point] is not None
    }


def _enabled_names(plugins: dict[str, PluginSet]) -> list[str]:
    """Every plugin enabled at some point (getPluginSetByExtension), in first-seen order."""
    out: list[str] = []
    for point in EXTENSION_POINTS:
        for p in plugins[point].enabled:
            if p.name not in out:
                out.append(p.name)
    return out


def _profile(raw: Any, path: str, errors: list[str]) -> Profile:
    raw = _mapping(raw, path)
    _unknown(raw, _PROFILE_FIELDS, path)
    name = raw.get("schedulerName")
    if name is not None and not isinstance(name, str):
        raise _refuse(f"{path}.schedulerName", "must be a string")
    pct = _optional_int(raw.get("percentageOfNodesToScore"), f"{path}.percentageOfNodesToScore")
    errors.extend(percentage(f"{path}.percentageOfNodesToScore", pct))
    custom = _plugins(raw.get("plugins"), f"{path}.plugins")
    plugins = merge_plugins(custom)
    if custom is not None:
        for point, plugin_set in custom.items():
            errors.extend(invalid_plugins(f"{path}.plugins.{point}", plugin_set))
    given: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(_list(raw.get("pluginConfig"), f"{path}.pluginConfig")):
        p = f"{path}.pluginConfig[{i}]"
        entry = _mapping(entry, p)
        _unknown(entry, frozenset({"name", "args"}), p)
        plugin = entry.get("name")
        if not isinstance(plugin, str):
            raise _refuse(f"{p}.name", "Required value: the plugin's name")
        if plugin in given:
            errors.append(duplicate(p, plugin))
            continue
        if plugin not in IN_TREE:
            # NewFramework keeps the arguments of plugins it does not build unread.
            continue
        args = _mapping(entry.get("args") or {}, f"{p}.args")
        _int32_args(args, f"{p}.args")
        _unknown_args(plugin, args, f"{p}.args")
        args = default_args(plugin, dict(args))
        given[plugin] = args
        check = ARGS_VALIDATORS.get(plugin)
        if check is not None:
            errors.extend(check(f"{p}.args", args))
    # Defaults for every enabled plugin without a pluginConfig entry.
    for plugin in _enabled_names(plugins):
        if plugin not in given:
            given[plugin] = default_args(plugin, None)
    return Profile(name or "", plugins, given, pct)


def openshift_scheduler_words(raw: Mapping[str, Any]) -> str:
    """OpenShift's Scheduler resource pasted for a KubeSchedulerConfiguration: which preset
    its spec.profile is."""
    spec = raw.get("spec") if isinstance(raw.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    profile = str(spec.get("profile") or "LowNodeUtilization")
    preset = OPENSHIFT_PROFILES.get(profile)
    listed = ", ".join(OPENSHIFT_PROFILES.values())
    if preset is None:
        return (
            f"this is OpenShift's Scheduler resource (config.openshift.io), not a "
            f"KubeSchedulerConfiguration, and its spec.profile {profile!r} is none OpenShift "
            f"knows: choose one of the presets {listed}"
        )
    return (
        f"this is OpenShift's Scheduler resource (config.openshift.io), not a "
        f"KubeSchedulerConfiguration: its spec.profile {profile} is the preset {preset}; "
        f"choose that preset (the OpenShift presets: {listed})"
    )


def load_scheduler_config(
    raw: Mapping[str, Any], *, source: str = SOURCE_ANALYSIS, preset: str | None = None
) -> SchedulerConfiguration:
    """The configuration kube-scheduler would run with ``raw`` (a parsed
    KubeSchedulerConfiguration), or InvalidInput naming the field and what is wrong."""
    if not isinstance(raw, Mapping):
        raise InvalidInput("a KubeSchedulerConfiguration must be an object (a YAML mapping)")
    version, kind = raw.get("apiVersion"), raw.get("kind")
    if not kind:
        raise _refuse("kind", "Object 'Kind' is missing: give kind: KubeSchedulerConfiguration")
    if kind == "Scheduler" and str(version or "").startswith("config.openshift.io/"):
        raise InvalidInput(openshift_scheduler_words(raw))
    if version != API_VERSION or kind != KIND:
        raise InvalidInput(
            f'no kind "{kind}" is registered for version "{version}" in scheme '
            f'"pkg/scheduler/apis/config/scheme/scheme.go:30": give apiVersion: {API_VERSION} '
            f"and kind: {KIND}"
        )
    _unknown(raw, _TOP_FIELDS, "")
    errors: list[str] = []
    parallelism = _optional_int(raw.get("parallelism"), "parallelism")
    if parallelism is not None and parallelism <= 0:
        errors.append(
            invalid("parallelism", parallelism, "should be an integer value greater than zero")
        )
    pct = _optional_int(raw.get("percentageOfNodesToScore"), "percentageOfNodesToScore")
    raw_profiles = _list(raw.get("profiles"), "profiles") or [{}]
    profiles: list[Profile] = []
    seen: dict[str, int] = {}
    for i, rp in enumerate(raw_profiles):
        path = f"profiles[{i}]"
        profile = _profile(rp, path, errors)
        if (
            not profile.scheduler_name
            and len(raw_profiles) == 1
            and rp.get("schedulerName") is None
        ):
            profile = Profile(
                DEFAULT_SCHEDULER_NAME,
                profile.plugins,
                profile.args,
                profile.percentage_of_nodes_to_score,
            )
        if not profile.scheduler_name:
            errors.append(required(f"{path}.schedulerName"))
        elif profile.scheduler_name in seen:
            errors.append(
                duplicate(
                    f"{path}.schedulerName",
                    f"profiles[{seen[profile.scheduler_name]}].schedulerName",
                )
            )
        else:
            seen[profile.scheduler_name] = i
        profiles.append(profile)
    errors.extend(percentage("percentageOfNodesToScore", pct))
    if errors:
        raise _aggregate(errors)
    for i, profile in enumerate(profiles):
        try:
            build_extension_points(profile.plugins)
        except FrameworkError as e:
            raise _refuse(
                f"profiles[{i}].plugins", f"{e}: kube-scheduler would not start"
            ) from None
    return SchedulerConfiguration(tuple(profiles), pct or 0, source, preset, dict(raw))


def _aggregate(errors: list[str]) -> InvalidInput:
    """utilerrors.Aggregate: one error as it is, several as [a, b]."""
    first_path, _, first_body = errors[0].partition(": ")
    if len(errors) == 1:
        return InvalidInput(first_body, kind=_KIND, field=first_path)
    return InvalidInput("[" + ", ".join(errors) + "]", kind=_KIND)
