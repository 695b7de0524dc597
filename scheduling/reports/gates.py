"""Pipeline gates for `manage.py whatif`: does this what-if break a rule a rollout must keep?

Each gate reads the engine's Explanation (the victims with their priority and
class, as the result page shows them) and answers None when the rule holds, or
one line saying what breaks it: the line a CI log shows. A workload's run is judged
by the same rules over every victim of every cycle (``failures_of_run``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scheduling.engine import Explanation, Outcome, VictimDetail
from scheduling.workloads import VictimInfo, WorkloadRun

# Exit codes of `whatif`: 0 every gate holds, GATE_FAILED a gate tripped,
# BAD_INPUT the command could not answer (unreadable file, unknown snapshot).
GATE_FAILED = 1
BAD_INPUT = 2


def chosen_victims(ex: Explanation) -> list[VictimDetail]:
    """The pods the preemptor would evict on its nominated node (none unless it preempts)."""
    return list(ex.victim_details) if ex.outcome == Outcome.PREEMPTS else []


def _names(pods: list[VictimDetail] | list[VictimInfo], limit: int = 5) -> str:
    keys = [p.key if isinstance(p, VictimDetail) else p.pod for p in pods]
    shown = ", ".join(keys[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def _workload(run: WorkloadRun) -> str:
    return "; ".join(o.describe() for o in run.objects) or "the workload"


@dataclass(frozen=True)
class Gate:
    """One rule, named by its command-line flag: judged on one pod's explanation, or on
    a workload's whole run."""

    flag: str
    check: Callable[[Explanation], str | None]
    check_run: Callable[[WorkloadRun], str | None]

    def failure(self, ex: Explanation) -> str | None:
        reason = self.check(ex)
        return None if reason is None else f"{self.flag}: {reason}"

    def run_failure(self, run: WorkloadRun) -> str | None:
        reason = self.check_run(run)
        return None if reason is None else f"{self.flag}: {reason}"


def fail_on_preempt() -> Gate:
    def check(ex: Explanation) -> str | None:
        victims = chosen_victims(ex)
        if not victims:
            return None
        return (
            f"{ex.pod} would preempt {len(victims)} pod{'s' if len(victims) != 1 else ''} "
            f"on {ex.node}: {_names(victims)}"
        )

    def check_run(run: WorkloadRun) -> str | None:
        if not run.victims:
            return None
        n = len(run.victims)
        return (
            f"{_workload(run)} would preempt {n} pod{'s' if n != 1 else ''}: {_names(run.victims)}"
        )

    return Gate("--fail-on-preempt", check, check_run)


def fail_on_victim_priority_above(limit: int) -> Gate:
    def check(ex: Explanation) -> str | None:
        above = [p for p in chosen_victims(ex) if p.priority > limit]
        if not above:
            return None
        top = max(p.priority for p in above)
        return (
            f"{ex.pod} would preempt {len(above)} pod{'s' if len(above) != 1 else ''} "
            f"with priority above {limit} (highest {top}): {_names(above)}"
        )

    def check_run(run: WorkloadRun) -> str | None:
        above = [v for v in run.victims if v.priority > limit]
        if not above:
            return None
        return (
            f"{_workload(run)} would preempt {len(above)} pod{'s' if len(above) != 1 else ''} "
            f"with priority above {limit} (highest {max(v.priority for v in above)}): "
            f"{_names(above)}"
        )

    return Gate(f"--fail-on-victim-priority-above {limit}", check, check_run)


def fail_on_pdb_violation() -> Gate:
    def check(ex: Explanation) -> str | None:
        if ex.outcome != Outcome.PREEMPTS or ex.pdb_violations == 0:
            return None
        return (
            f"{ex.pod} would break {ex.pdb_violations} PodDisruptionBudget "
            f"disruption{'s' if ex.pdb_violations != 1 else ''} on {ex.node}"
        )

    def check_run(run: WorkloadRun) -> str | None:
        # The budgets the run took past disruptionsAllowed: what a rollout breaks, even
        # where each cycle counted 0 violations on a PDB status nobody refreshed.
        over = run.exceeded_pdbs
        if not over:
            return None
        return f"{_workload(run)} would take " + ", ".join(
            f"PDB {r.pdb} {r.overrun} beyond its budget of {r.disruptions_allowed}" for r in over
        )

    return Gate("--fail-on-pdb-violation", check, check_run)


def protect(classes: list[str]) -> Gate:
    protected = set(classes)

    def check(ex: Explanation) -> str | None:
        hit = [p for p in chosen_victims(ex) if p.priority_class in protected]
        if not hit:
            return None
        names = sorted({p.priority_class or "" for p in hit})
        return (
            f"{ex.pod} would preempt {len(hit)} pod{'s' if len(hit) != 1 else ''} "
            f"of protected class {', '.join(names)}: {_names(hit)}"
        )

    def check_run(run: WorkloadRun) -> str | None:
        hit = [v for v in run.victims if v.priority_class in protected]
        if not hit:
            return None
        names = sorted({v.priority_class for v in hit})
        return (
            f"{_workload(run)} would preempt {len(hit)} pod{'s' if len(hit) != 1 else ''} "
            f"of protected class {', '.join(names)}: {_names(hit)}"
        )

    return Gate(f"--protect {','.join(classes)}", check, check_run)


def failures(gates: list[Gate], ex: Explanation) -> list[str]:
    """The one-line reason of every gate that trips, in the order given."""
    return [reason for gate in gates if (reason := gate.failure(ex)) is not None]


def failures_of_run(gates: list[Gate], run: WorkloadRun) -> list[str]:
    """failures() over a workload's run: every victim of every cycle, every budget overrun."""
    return [reason for gate in gates if (reason := gate.run_failure(run)) is not None]
