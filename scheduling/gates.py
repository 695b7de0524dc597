"""Pipeline gates for `manage.py whatif`: does this what-if break a rule a rollout must keep?

Each gate reads the engine's Result (the chosen candidate's victims as Pod
objects, so their priority and class are at hand) and answers None when the
rule holds, or one line saying what breaks it: the line a CI log shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scheduling.engine import Pod, Result

# Exit codes of `whatif`: 0 every gate holds, GATE_FAILED a gate tripped,
# BAD_INPUT the command could not answer (unreadable file, unknown snapshot).
GATE_FAILED = 1
BAD_INPUT = 2


def chosen_victims(result: Result) -> list[Pod]:
    """The pods the preemptor would evict on its nominated node (none unless it preempts)."""
    if result.outcome != "preempts":
        return []
    for candidate in result.candidates:
        if candidate.node == result.node:
            return list(candidate.victims.pods)
    return []


def _names(pods: list[Pod], limit: int = 5) -> str:
    shown = ", ".join(p.key for p in pods[:limit])
    return shown + (f" and {len(pods) - limit} more" if len(pods) > limit else "")


@dataclass(frozen=True)
class Gate:
    """One rule, named by its command-line flag."""

    flag: str
    check: Callable[[Result], str | None]

    def failure(self, result: Result) -> str | None:
        reason = self.check(result)
        return None if reason is None else f"{self.flag}: {reason}"


def fail_on_preempt() -> Gate:
    def check(result: Result) -> str | None:
        victims = chosen_victims(result)
        if not victims:
            return None
        return (
            f"{result.pod} would preempt {len(victims)} pod{'s' if len(victims) != 1 else ''} "
            f"on {result.node}: {_names(victims)}"
        )

    return Gate("--fail-on-preempt", check)


def fail_on_victim_priority_above(limit: int) -> Gate:
    def check(result: Result) -> str | None:
        above = [p for p in chosen_victims(result) if p.priority > limit]
        if not above:
            return None
        top = max(p.priority for p in above)
        return (
            f"{result.pod} would preempt {len(above)} pod{'s' if len(above) != 1 else ''} "
            f"with priority above {limit} (highest {top}): {_names(above)}"
        )

    return Gate(f"--fail-on-victim-priority-above {limit}", check)


def fail_on_pdb_violation() -> Gate:
    def check(result: Result) -> str | None:
        if result.outcome != "preempts" or result.pdb_violations == 0:
            return None
        return (
            f"{result.pod} would break {result.pdb_violations} PodDisruptionBudget "
            f"disruption{'s' if result.pdb_violations != 1 else ''} on {result.node}"
        )

    return Gate("--fail-on-pdb-violation", check)


def protect(classes: list[str]) -> Gate:
    protected = set(classes)

    def check(result: Result) -> str | None:
        hit = [p for p in chosen_victims(result) if p.priority_class_name in protected]
        if not hit:
            return None
        names = sorted({p.priority_class_name or "" for p in hit})
        return (
            f"{result.pod} would preempt {len(hit)} pod{'s' if len(hit) != 1 else ''} "
            f"of protected class {', '.join(names)}: {_names(hit)}"
        )

    return Gate(f"--protect {','.join(classes)}", check)


def failures(gates: list[Gate], result: Result) -> list[str]:
    """The one-line reason of every gate that trips, in the order given."""
    return [reason for gate in gates if (reason := gate.failure(result)) is not None]
