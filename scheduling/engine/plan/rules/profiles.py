"""Rules about the cluster's scheduler profiles (its KubeSchedulerConfiguration), and the
reading of a profile those rules and the pages share: which profiles exist, whether
DefaultPreemption runs in one, and NodeResourcesFit's scoring strategy.

A configuration here is the parsed KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)
as given; None is kube-scheduler's default: one profile, default-scheduler.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from ...words import NAMES_IN_A_SENTENCE, join_names, plural
from ..context import AuditContext
from ..finding import Draft
from ..fixes import snippet

DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_PREEMPTION = "DefaultPreemption"
NODE_RESOURCES_FIT = "NodeResourcesFit"
DEFAULT_SCORING_STRATEGY = "LeastAllocated"


def scheduler_profiles(config: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The profiles, defaulted as kube-scheduler's v1 defaulting does when there are none."""
    profiles = (config or {}).get("profiles") or []
    if not profiles:
        return [{"schedulerName": DEFAULT_SCHEDULER_NAME}]
    return [p for p in profiles if isinstance(p, dict)]


def profile_name(profile: dict[str, Any]) -> str:
    return str(profile.get("schedulerName") or DEFAULT_SCHEDULER_NAME)


def _names(entries: Any) -> set[str]:
    return {str(e.get("name")) for e in entries or [] if isinstance(e, dict)}


def preemption_enabled(profile: dict[str, Any]) -> bool:
    """Whether DefaultPreemption runs at PostFilter: the default set has it; disabling it
    (by name or "*") at postFilter or multiPoint removes it unless enabled again."""
    plugins = profile.get("plugins") or {}
    enabled = False
    disabled = False
    for point in ("multiPoint", "postFilter"):
        sets = plugins.get(point) or {}
        off = _names(sets.get("disabled"))
        if DEFAULT_PREEMPTION in off or "*" in off:
            disabled = True
        if DEFAULT_PREEMPTION in _names(sets.get("enabled")):
            enabled = True
    return enabled or not disabled


def scoring_strategy(profile: dict[str, Any]) -> str:
    """NodeResourcesFit's scoringStrategy.type in the profile (LeastAllocated by default)."""
    for entry in profile.get("pluginConfig") or []:
        if isinstance(entry, dict) and entry.get("name") == NODE_RESOURCES_FIT:
            strategy = (entry.get("args") or {}).get("scoringStrategy") or {}
            return str(strategy.get("type") or DEFAULT_SCORING_STRATEGY)
    return DEFAULT_SCORING_STRATEGY


def profile_ref(name: str) -> str:
    return f"KubeSchedulerConfiguration profile {name}"


def preemption_disabled(ctx: AuditContext) -> Iterator[Draft]:
    ranked = sorted((c for c in ctx.index.user_classes() if c.value > 0), key=lambda c: c.name)
    if not ranked:
        return
    names = [c.name for c in ranked]
    for profile in scheduler_profiles(ctx.scheduler_config):
        if preemption_enabled(profile):
            continue
        name = profile_name(profile)
        yield Draft(
            f"Profile {name} runs without DefaultPreemption while {plural(len(ranked), 'PriorityClass')} "
            f"({join_names(names, limit=NAMES_IN_A_SENTENCE)}) rank pods above 0: a pod that does not fit "
            "waits for room instead of preempting lower-priority pods",
            (profile_ref(name), *(f"PriorityClass {n}" for n in names)),
            snippet(
                {"postFilter": {"enabled": [{"name": DEFAULT_PREEMPTION}]}},
                comment=f"Under profiles[].plugins of {name}: run preemption again "
                "(or give these classes preemptionPolicy: Never, to say it is meant).",
            ),
        )


def pods_without_profile(ctx: AuditContext) -> Iterator[Draft]:
    known = {profile_name(p) for p in scheduler_profiles(ctx.scheduler_config)}
    # schedulerName -> app -> its pending pods naming it
    waiting: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    index = ctx.index
    for pod, app in zip(index.live, index.app_refs, strict=True):
        if pod.node_name or pod.scheduler_name in known:
            continue
        waiting[pod.scheduler_name][app] += 1
    for name in sorted(waiting):
        apps = waiting[name]
        refs = sorted(apps)
        yield Draft(
            f"{plural(sum(apps.values()), 'pending pod')} of {join_names(refs, limit=NAMES_IN_A_SENTENCE)} "
            f"name schedulerName {name}, which no profile has ({join_names(sorted(known))}): they stay "
            "pending unless another scheduler of that name runs",
            (profile_ref(name), *refs),
            snippet(
                {"schedulerName": name},
                comment="Add a profile of this name under profiles[] (or set the pods' "
                "spec.schedulerName to a profile's):",
            ),
        )
