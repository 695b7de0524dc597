"""The priority plan of a snapshot: the PriorityClass ladder and its audit together, as
the Plan tab, ``GET /api/snapshots/{id}/plan/`` and ``manage.py plan`` give them.

Pure Python (no Django): the engine's plan package computes; this names the whole.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from scheduling.engine import Cluster
from scheduling.engine.plan import ERROR, INFO, WARNING, Finding, Ladder, audit, plan_ladder
from scheduling.engine.plan.first_in_line import FirstInLine

# Most serious first: the order of the summary, and what --fail-on compares against.
SEVERITIES = (ERROR, WARNING, INFO)


class UnknownClasses(ValueError):
    """Classes marked critical that the snapshot does not have (a typo would make the
    critical-tier rule silently check nothing)."""

    def __init__(self, unknown: list[str], known: list[str]) -> None:
        self.unknown = unknown
        self.known = known
        super().__init__(
            f"no PriorityClass named {', '.join(unknown)} in the snapshot "
            f"(it has: {', '.join(known)})"
        )


@dataclass(frozen=True)
class Plan:
    ladder: Ladder
    findings: tuple[Finding, ...]
    # The classes the caller marked critical; empty: the audit took the top user tiers.
    critical_classes: tuple[str, ...]

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def operator_owned(self) -> int:
        """Findings (notes) about objects the platform's operators own."""
        return sum(1 for f in self.findings if f.operator_owned is not None)

    def at_or_above(self, severity: str) -> list[Finding]:
        """The findings of ``severity`` or more serious ones."""
        worst = SEVERITIES[: SEVERITIES.index(severity) + 1]
        return [f for f in self.findings if f.severity in worst]

    def to_dict(self) -> dict[str, object]:
        ladder = self.ladder.to_dict()
        return {
            "ladder": ladder["classes"],
            "pods_without_class": ladder["unclassed"],
            "missing_classes": ladder["missing"],
            "allocatable": {
                "cpu_millis": self.ladder.allocatable_cpu_millis,
                "memory_bytes": self.ladder.allocatable_memory_bytes,
            },
            "critical_classes": list(self.critical_classes),
            "summary": {
                **{severity: self.count(severity) for severity in SEVERITIES},
                "operator_owned": self.operator_owned,
            },
            "findings": [f.to_dict() for f in self.findings],
        }


def class_names(cluster: Cluster) -> list[str]:
    """Every class the plan can be asked about, the built-in ones too, by name."""
    return sorted(cluster.resolver.by_name)


def plan_of(
    cluster: Cluster,
    *,
    critical_classes: Collection[str] = (),
    scheduler_config: dict[str, Any] | None = None,
) -> Plan:
    """The ladder and the audit of ``cluster`` under its scheduler configuration (None:
    the default profile); UnknownClasses for a critical class the snapshot lacks."""
    known = class_names(cluster)
    unknown = sorted(set(critical_classes) - set(known))
    if unknown:
        raise UnknownClasses(unknown, known)
    return Plan(
        ladder=plan_ladder(cluster),
        findings=tuple(
            audit(cluster, critical_classes=critical_classes, scheduler_config=scheduler_config)
        ),
        critical_classes=tuple(sorted(set(critical_classes))),
    )


def with_first_in_line(body: dict[str, object], line: FirstInLine) -> dict[str, object]:
    """A plan's answer with the ranking as DESIGN.md's REST API has it: ``first_in_line``
    the ranked apps; ``first_in_line_probe`` how they were measured (the probe's size,
    the limit, one run per priority level, the levels nothing may preempt)."""
    ranking = line.to_dict()
    body["first_in_line"] = ranking.pop("apps")
    body["first_in_line_probe"] = ranking
    return body
