"""What a scheduler profile changed, in one sentence: the answer under the what-if's
configuration beside the default profile's answer to the same question ("MostAllocated
packs: web-0 goes to node-3, the default profile would choose node-1"). Empty when the
two agree."""

from __future__ import annotations

from scheduling.engine import Explanation
from scheduling.engine.explanation import Outcome
from scheduling.engine.plan.rules.profiles import (
    configured,
    preemption_enabled,
    scoring_strategy,
)
from scheduling.engine.profile import DEFAULT_SCHEDULER_NAME, Profile
from scheduling.engine.words import plural
from scheduling.scheduler_config import SchedulerChoice
from scheduling.workloads import WorkloadRun

# How a scoring strategy changes where pods go, as the sentence's lead.
_STRATEGY_LEAD = {
    "MostAllocated": "MostAllocated packs",
    "RequestedToCapacityRatio": "RequestedToCapacityRatio scores by its shape",
}


PREEMPTION_DISABLED = "preemption is disabled in this profile"


def _lead(choice: SchedulerChoice, profile: Profile | None) -> str:
    if profile is not None:
        lead = _STRATEGY_LEAD.get(scoring_strategy(profile))
        if lead:
            return lead
    return f"Under {choice.title}"


def _short(pod: str) -> str:
    return pod.rpartition("/")[2]


def _evicts(n: int) -> str:
    return f"evict {plural(n, 'pod')}"


def pod_difference(
    choice: SchedulerChoice,
    answer: Explanation,
    default: Explanation,
    *,
    scheduler_name: str = DEFAULT_SCHEDULER_NAME,
) -> str:
    same = (answer.outcome, answer.node, sorted(answer.victims)) == (
        default.outcome,
        default.node,
        sorted(default.victims),
    )
    if same:
        return ""
    profile = configured(choice.effective).profile(scheduler_name)
    pod = _short(answer.pod)
    if profile is None:
        return (
            f"No profile of this configuration is named {scheduler_name}: {pod} stays pending, "
            f"the default profile would {_default_words(default)}"
        )
    if (
        not preemption_enabled(profile)
        and answer.outcome == Outcome.UNSCHEDULABLE
        and default.outcome == Outcome.PREEMPTS
    ):
        return (
            f"{PREEMPTION_DISABLED}: the pod stays pending, "
            f"the default profile would {_evicts(len(default.victims))}"
        )
    lead = _lead(choice, profile)
    if answer.outcome == default.outcome and answer.node != default.node:
        return (
            f"{lead}: {pod} goes to {answer.node}, the default profile would choose {default.node}"
        )
    return f"{lead}: {pod} {_answer_words(answer)}, the default profile would {_default_words(default)}"


def _answer_words(ex: Explanation) -> str:
    if ex.outcome == Outcome.FITS:
        return f"goes to {ex.node}"
    if ex.outcome == Outcome.PREEMPTS:
        return f"goes to {ex.node} by evicting {plural(len(ex.victims), 'pod')}"
    return "stays pending"


def _default_words(ex: Explanation) -> str:
    if ex.outcome == Outcome.FITS:
        return f"choose {ex.node}"
    if ex.outcome == Outcome.PREEMPTS:
        return f"choose {ex.node} and {_evicts(len(ex.victims))}"
    return "leave it pending too"


def workload_difference(choice: SchedulerChoice, run: WorkloadRun, default: WorkloadRun) -> str:
    placed = {p.pod: p.node for p in run.pods if p.bound}
    placed_default = {p.pod: p.node for p in default.pods if p.bound}
    victims, victims_default = len(run.victims), len(default.victims)
    if placed == placed_default and victims == victims_default:
        return ""
    profiles = configured(choice.effective).profiles
    lead = _lead(choice, profiles[0] if len(profiles) == 1 else None)
    if (
        len(placed) < len(placed_default)
        and victims < victims_default
        and not any(preemption_enabled(p) for p in profiles)
    ):
        lead = PREEMPTION_DISABLED
        if not placed:
            stays = "the pod stays" if len(run.pods) == 1 else f"the {len(run.pods):,} pods stay"
            return f"{lead}: {stays} pending, the default profile would {_evicts(victims_default)}"
    if len(placed) == len(placed_default) and victims == victims_default:
        moved = [p for p in sorted(placed) if placed[p] != placed_default.get(p)]
        first = moved[0]
        return (
            f"{lead}: {_short(first)} goes to {placed[first]}, the default profile would choose "
            f"{placed_default.get(first)} ({plural(len(moved), 'pod')} placed elsewhere)"
        )
    total = len(run.pods)
    return (
        f"{lead}: {len(placed):,} of {total:,} pods run and {plural(victims, 'pod')} are evicted, "
        f"the default profile would run {len(placed_default):,} and {_evicts(victims_default)}"
    )


def difference_sentence(
    choice: SchedulerChoice,
    answer: Explanation | WorkloadRun,
    default: Explanation | WorkloadRun,
    *,
    scheduler_name: str = DEFAULT_SCHEDULER_NAME,
) -> str:
    """The one sentence saying how the profile's answer differs from the default's."""
    if isinstance(answer, WorkloadRun) and isinstance(default, WorkloadRun):
        return workload_difference(choice, answer, default)
    assert isinstance(answer, Explanation) and isinstance(default, Explanation)
    return pod_difference(choice, answer, default, scheduler_name=scheduler_name)
