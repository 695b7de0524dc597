"""Pipeline gates for `manage.py whatif`: does this what-if break a rule a rollout must keep?

Each gate reads the engine's Explanation (the victims with their priority and
class, as the result page shows them) and answers None when the rule holds, or
one line saying what breaks it: the line a CI log shows. A workload's run is judged
by the same rules over every victim of every cycle (``failures_of_run``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scheduling.analyses.workloads import VictimInfo, WorkloadRun
from scheduling.engine import Explanation, Outcome, VictimDetail

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


def fail_on_pending() -> Gate:
    """Fails when the pod, or any replica of the workload, is not running at the end."""

    def check(ex: Explanation) -> str | None:
        if not (pending := verdict_of(ex).pending):
            return None
        return f"{pending[0]} stays pending: {ex.message or 'no node takes it'}"

    def check_run(run: WorkloadRun) -> str | None:
        pending = verdict_of_run(run).pending
        if not pending:
            return None
        total = len(run.submitted)
        return (
            f"{_workload(run)}: {len(pending)} of {total} pod{'s' if total != 1 else ''} "
            f"stay pending: {_keys(pending)}"
        )

    return Gate("--fail-on-pending", check, check_run)


def fail_on_unschedulable() -> Gate:
    """Fails when a pod can be placed neither as the cluster stands nor by preempting."""

    def check(ex: Explanation) -> str | None:
        if not verdict_of(ex).unschedulable:
            return None
        return f"{ex.pod} cannot be scheduled: {ex.message or 'no node takes it'}"

    def check_run(run: WorkloadRun) -> str | None:
        hit = verdict_of_run(run).unschedulable
        if not hit:
            return None
        n = len(hit)
        return (
            f"{_workload(run)}: {n} pod{'s' if n != 1 else ''} cannot be scheduled, even "
            f"by preempting: {_keys(hit)}"
        )

    return Gate("--fail-on-unschedulable", check, check_run)


def _keys(keys: tuple[str, ...], limit: int = 5) -> str:
    shown = ", ".join(keys[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


@dataclass(frozen=True)
class Verdict:
    """What the gates judge, in the answer itself: the API's result carries it as
    ``verdict`` so a pipeline calling the API decides as ``whatif``'s exit status does.

    ``victims`` every pod the answer evicts; ``pending`` the asked pods not running at
    the end (--fail-on-pending); ``unschedulable`` those that no node takes, not even by
    preempting (--fail-on-unschedulable); ``pdbs_exceeded`` the budgets taken past what
    they allow (--fail-on-pdb-violation)."""

    victims: tuple[str, ...]
    highest_victim_priority: int | None
    victim_classes: tuple[str, ...]
    pdbs_exceeded: tuple[str, ...]
    pending: tuple[str, ...]
    unschedulable: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "preempts": bool(self.victims),
            "victims": list(self.victims),
            "highest_victim_priority": self.highest_victim_priority,
            "victim_classes": list(self.victim_classes),
            "pdbs_exceeded": list(self.pdbs_exceeded),
            "pending": list(self.pending),
            "unschedulable": list(self.unschedulable),
        }


def verdict_of(ex: Explanation) -> Verdict:
    """One pod's verdict: a pod that preempts runs once its victims are gone; one that
    is unschedulable stays pending (and no node takes it)."""
    victims = chosen_victims(ex)
    stuck = (ex.pod,) if ex.outcome == Outcome.UNSCHEDULABLE else ()
    exceeded = {b.pdb for v in victims if v.violates_pdb for b in v.pdbs}
    return Verdict(
        victims=tuple(v.key for v in victims),
        highest_victim_priority=max((v.priority for v in victims), default=None),
        victim_classes=tuple(sorted({v.priority_class for v in victims if v.priority_class})),
        pdbs_exceeded=tuple(sorted(exceeded)),
        pending=stuck,
        unschedulable=stuck,
    )


def verdict_of_run(run: WorkloadRun) -> Verdict:
    """A workload's verdict over the whole run: a pod left pending with a nomination
    waits for its victims' room (pending, not unschedulable); one left without one, or
    that no profile of this scheduler schedules, cannot be placed at all."""
    failed = run.failed_cycles_by_pod
    pending = [p for p in run.submitted if not p.bound]
    unschedulable = [
        p.pod
        for p in pending
        if p.created
        and not p.nominated_node
        and (p.not_scheduled or (p.pod in failed and not failed[p.pod].victims))
    ]
    return Verdict(
        victims=tuple(v.pod for v in run.victims),
        highest_victim_priority=max((v.priority for v in run.victims), default=None),
        victim_classes=tuple(sorted({v.priority_class for v in run.victims if v.priority_class})),
        pdbs_exceeded=tuple(r.pdb for r in run.exceeded_pdbs),
        pending=tuple(p.pod for p in pending),
        unschedulable=tuple(unschedulable),
    )


def failures(gates: list[Gate], ex: Explanation) -> list[str]:
    """The one-line reason of every gate that trips, in the order given."""
    return [reason for gate in gates if (reason := gate.failure(ex)) is not None]


def failures_of_run(gates: list[Gate], run: WorkloadRun) -> list[str]:
    """failures() over a workload's run: every victim of every cycle, every budget overrun."""
    return [reason for gate in gates if (reason := gate.run_failure(run)) is not None]
