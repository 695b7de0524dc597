"""What a scheduler profile changed, in the engine's one sentence (analysis_difference,
simulation_difference), for the answers the web layer and the command keep: a pod's
explanation or a workload's run, beside the default profile's answer to the same question."""

from __future__ import annotations

from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine import Explanation, analysis_difference, simulation_difference
from scheduling.engine.plan.rules.profiles import configured
from scheduling.engine.profile import DEFAULT_SCHEDULER_NAME
from scheduling.engine.profile.difference import SAME
from scheduling.scheduler_config.choice import SchedulerChoice


def difference_sentence(
    choice: SchedulerChoice,
    answer: Explanation | WorkloadRun,
    default: Explanation | WorkloadRun,
    *,
    scheduler_name: str = DEFAULT_SCHEDULER_NAME,
) -> str:
    """The one sentence saying how the profile's answer differs from the default's
    (``scheduler_name``: the profile the pending pods name)."""
    config = configured(choice.effective)
    profile = config.profile(scheduler_name)
    if isinstance(answer, WorkloadRun) and isinstance(default, WorkloadRun):
        said = simulation_difference(answer.contract, default.contract, profile)
    else:
        assert isinstance(answer, Explanation) and isinstance(default, Explanation)
        said = analysis_difference(
            answer.to_contract(),
            default.to_contract(),
            profile,
            default_tie=default.scores.top if default.scores is not None else (),
        )
    others = [p.scheduler_name for p in config.profiles if p.scheduler_name != scheduler_name]
    if said == SAME and others:
        # A configuration whose change is in another profile (Gardener's bin-packing):
        # it changes nothing for pods that do not name it, which the sentence says.
        names = ", ".join(others)
        said += (
            f" Its other profile{'s' if len(others) > 1 else ''} ({names}) "
            f"only schedule{'' if len(others) > 1 else 's'} pods whose spec.schedulerName "
            f"names {'them' if len(others) > 1 else 'it'}; these pods name {scheduler_name}."
        )
    return said
