"""Pipeline gates for `manage.py whatif`: does this what-if break a rule a rollout must keep?

Each gate reads the engine's Explanation (the victims with their priority and
class, as the result page shows them) and answers None when the rule holds, or
one line saying what breaks it: the line a CI log shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scheduling.engine import Explanation, Outcome, VictimDetail

# Exit codes of `whatif`: 0 every gate holds, GATE_FAILED a gate tripped,
# BAD_INPUT the command could not answer (unreadable file, unknown snapshot).
GATE_FAILED = 1
BAD_INPUT = 2


def chosen_victims(ex: Explanation) -> list[VictimDetail]:
    """The pods the preemptor would evict on its nominated node (none unless it preempts)."""
    return list(ex.victim_details) if ex.outcome == Outcome.PREEMPTS else []


def _names(pods: list[VictimDetail], limit: int = 5) -> str:
    shown = ", ".join(p.key for p in pods[:limit])
    return shown + (f" and {len(pods) - limit} more" if len(pods) > limit else "")


@dataclass(frozen=True)
class Gate:
    """One rule, named by its command-line flag."""

    flag: str
    check: Callable[[Explanation], str | None]

    def failure(self, ex: Explanation) -> str | None:
        reason = self.check(ex)
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

    return Gate("--fail-on-preempt", check)


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

    return Gate(f"--fail-on-victim-priority-above {limit}", check)


def fail_on_pdb_violation() -> Gate:
    def check(ex: Explanation) -> str | None:
        if ex.outcome != Outcome.PREEMPTS or ex.pdb_violations == 0:
            return None
        return (
            f"{ex.pod} would break {ex.pdb_violations} PodDisruptionBudget "
            f"disruption{'s' if ex.pdb_violations != 1 else ''} on {ex.node}"
        )

    return Gate("--fail-on-pdb-violation", check)


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

    return Gate(f"--protect {','.join(classes)}", check)


def failures(gates: list[Gate], ex: Explanation) -> list[str]:
    """The one-line reason of every gate that trips, in the order given."""
    return [reason for gate in gates if (reason := gate.failure(ex)) is not None]
