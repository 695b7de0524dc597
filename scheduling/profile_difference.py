"""What a scheduler profile changed, in the engine's one sentence (analysis_difference,
simulation_difference), for the answers the web layer and the command keep: a pod's
explanation or a workload's run, beside the default profile's answer to the same question."""

from __future__ import annotations

from scheduling.engine import Explanation, analysis_difference, simulation_difference
from scheduling.engine.plan.rules.profiles import configured
from scheduling.engine.profile import DEFAULT_SCHEDULER_NAME
from scheduling.scheduler_config import SchedulerChoice
from scheduling.workloads import WorkloadRun


def difference_sentence(
    choice: SchedulerChoice,
    answer: Explanation | WorkloadRun,
    default: Explanation | WorkloadRun,
    *,
    scheduler_name: str = DEFAULT_SCHEDULER_NAME,
) -> str:
    """The one sentence saying how the profile's answer differs from the default's
    (``scheduler_name``: the profile the pending pods name)."""
    profile = configured(choice.effective).profile(scheduler_name)
    if isinstance(answer, WorkloadRun) and isinstance(default, WorkloadRun):
        return simulation_difference(answer.contract, default.contract, profile)
    assert isinstance(answer, Explanation) and isinstance(default, Explanation)
    return analysis_difference(
        answer.to_contract(),
        default.to_contract(),
        profile,
        default_tie=default.scores.top if default.scores is not None else (),
    )
