"""One sentence on how a profile's answer differs from the default profile's answer to
the same question, from the two contracts (Result.to_dict() of analyze,
Simulation.to_dict() of simulate): what the page and the CLI print under a
non-default profile's answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..plugins import names
from .extension_points import build
from .types import Profile

SAME = "The default profile gives the same answer."


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _short(pod: str) -> str:
    return pod.rsplit("/", 1)[-1]


def why(profile: Profile | None) -> str:
    """What sets the profile's placement apart, in a few words."""
    if profile is None:
        return "this profile chooses differently"
    if not profile.plugins["score"].enabled and "*" in profile.plugins["score"].disabled:
        return "this profile scores no node"
    strategy = (profile.args.get(names.NODE_RESOURCES_FIT) or {}).get("scoringStrategy") or {}
    kind = strategy.get("type")
    if kind == "MostAllocated":
        return "MostAllocated packs"
    if kind == "RequestedToCapacityRatio":
        return "RequestedToCapacityRatio scores by its shape"
    return "this profile's scoring chooses differently"


def _default_answer(default: Mapping[str, Any], tie: Sequence[str] = ()) -> str:
    outcome = default["outcome"]
    if outcome == "fits" and len(tie) > 1:
        # selectHost picks one of the top-scored nodes at random: no node is "the" answer.
        return (
            f"the default profile ties between {len(tie)} nodes (kube-scheduler picks "
            f"one of {', '.join(tie[:3])}{' and more' if len(tie) > 3 else ''} at random)"
        )
    if outcome == "fits":
        return f"the default profile would choose {default['node']}"
    if outcome == "preempts":
        victims = _count(len(default["victims"]), "pod")
        return f"the default profile would evict {victims} on {default['node']}"
    return "the default profile would leave it pending too"


def analysis_difference(
    ours: Mapping[str, Any],
    default: Mapping[str, Any],
    profile: Profile | None = None,
    *,
    default_tie: Sequence[str] = (),
) -> str:
    """How analyze()'s answer under ``profile`` (``ours``) differs from the default
    profile's (``default``), both Result.to_dict(); ``default_tie``: the nodes the default
    profile's scores tie between (its top set), when it fits."""
    same = (
        ours["outcome"] == default["outcome"]
        and ours["node"] == default["node"]
        and sorted(ours["victims"]) == sorted(default["victims"])
    )
    if same:
        return SAME
    pod = _short(ours["pod"])
    theirs = _default_answer(default, default_tie)
    outcome = ours["outcome"]
    if outcome == "fits":
        if default["outcome"] == "fits":
            return f"{why(profile)}: {pod} goes to {ours['node']}, {theirs}."
        return f"{pod} fits on {ours['node']} in this profile, {theirs}."
    if outcome == "preempts":
        victims = _count(len(ours["victims"]), "pod")
        return f"{pod} evicts {victims} on {ours['node']} in this profile, {theirs}."
    reason = ours.get("ineligible_reason") or ""
    if "preemption is disabled" in reason:
        return f"preemption is disabled in this profile: the pod stays pending, {theirs}."
    if "names no profile" in reason:
        return f"no profile of this scheduler is named by the pod: it stays pending, {theirs}."
    return f"the pod stays pending in this profile, {theirs}."


def simulation_difference(
    ours: Mapping[str, Any], default: Mapping[str, Any], profile: Profile | None = None
) -> str:
    """How simulate()'s run under ``profile`` (``ours``) differs from the default
    profile's run (``default``), both Simulation.to_dict()."""
    mine = {p["pod"]: p for p in ours["pods"]}
    base = {p["pod"]: p for p in default["pods"]}
    moved = [k for k in mine if k in base and mine[k]["node"] != base[k]["node"]]
    evicted, evicted_default = len(ours["deleted_victims"]), len(default["deleted_victims"])
    if not moved and evicted == evicted_default:
        return SAME
    pending = sum(1 for p in ours["pods"] if p["final"] == "pending")
    if evicted < evicted_default and (profile is None or not _preempts(profile)):
        return (
            f"preemption is disabled in this profile: {_count(pending, 'pod')} "
            f"{'stays' if pending == 1 else 'stay'} pending, "
            f"the default profile would evict {_count(evicted_default, 'pod')}."
        )
    if not moved:
        return (
            f"this profile evicts {_count(evicted, 'pod')}, "
            f"the default profile would evict {evicted_default}."
        )
    unscheduled = [k for k in moved if not mine[k]["node"] and mine[k].get("not_scheduled")]
    if unscheduled and len(unscheduled) == len(moved):
        # Scoring is not the reason: no profile of this scheduler takes these pods.
        return (
            f"no profile of this scheduler schedules {_count(len(unscheduled), 'pod')} "
            f"({_short(unscheduled[0])}: {mine[unscheduled[0]]['not_scheduled']}); "
            f"{'it stays' if len(unscheduled) == 1 else 'they stay'} pending, the default "
            f"profile would place {'it' if len(unscheduled) == 1 else 'them'}."
        )
    first = moved[0]
    where, there = mine[first]["node"], base[first]["node"]
    lead = f"{why(profile)}: {_count(len(moved), 'pod')} of {len(mine)} placed otherwise"
    example = (
        f"{_short(first)} goes to {where}, the default profile would choose {there}"
        if where and there
        else f"{_short(first)} {'stays pending' if not where else 'goes to ' + where}, "
        f"the default profile would {'leave it pending' if not there else 'choose ' + there}"
    )
    return f"{lead} ({example})."


def _preempts(profile: Profile) -> bool:
    return build(profile.plugins).runs("postFilter", names.DEFAULT_PREEMPTION)
