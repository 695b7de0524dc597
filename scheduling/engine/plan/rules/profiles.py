"""Rules about the cluster's scheduler profiles (its KubeSchedulerConfiguration, as the
engine's profile package loads it), and the reading of a profile those rules and the
pages share: whether DefaultPreemption runs in one, and NodeResourcesFit's strategy."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from ...plugins import names
from ...profile import Profile, SchedulerConfiguration, load_scheduler_config
from ...profile.defaults import LEAST_ALLOCATED
from ...profile.extension_points import build
from ...profile.types import API_VERSION, KIND
from ...words import NAMES_IN_A_SENTENCE, join_names, plural
from ..context import AuditContext
from ..finding import Draft
from ..fixes import snippet

DEFAULT_PREEMPTION = names.DEFAULT_PREEMPTION


def configured(raw: dict[str, Any] | None) -> SchedulerConfiguration:
    """The configuration kube-scheduler runs with ``raw`` (None: its defaults)."""
    return load_scheduler_config(raw or {"apiVersion": API_VERSION, "kind": KIND})


def preemption_enabled(profile: Profile) -> bool:
    """Whether DefaultPreemption runs at PostFilter in the profile's framework."""
    return build(profile.plugins).runs("postFilter", DEFAULT_PREEMPTION)


def scoring_strategy(profile: Profile) -> str:
    """NodeResourcesFit's scoringStrategy.type in the profile (defaulted)."""
    fit = profile.args.get(names.NODE_RESOURCES_FIT) or {}
    return str((fit.get("scoringStrategy") or {}).get("type") or LEAST_ALLOCATED)


def profile_ref(name: str) -> str:
    return f"KubeSchedulerConfiguration profile {name}"


def preemption_disabled(ctx: AuditContext) -> Iterator[Draft]:
    ranked = sorted((c for c in ctx.index.user_classes() if c.value > 0), key=lambda c: c.name)
    if not ranked:
        return
    names = [c.name for c in ranked]
    for profile in configured(ctx.scheduler_config).profiles:
        if preemption_enabled(profile):
            continue
        name = profile.scheduler_name
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
    known = set(configured(ctx.scheduler_config).scheduler_names)
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
        count = sum(apps.values())
        yield Draft(
            f"{plural(count, 'pending pod')} of {join_names(refs, limit=NAMES_IN_A_SENTENCE)} "
            f"{'names' if count == 1 else 'name'} schedulerName {name}, which no profile has ({join_names(sorted(known))}): they stay "
            "pending unless another scheduler of that name runs",
            (profile_ref(name), *refs),
            snippet(
                {"schedulerName": name},
                comment="Add a profile of this name under profiles[] (or set the pods' "
                "spec.schedulerName to a profile's):",
            ),
        )
