"""What every audit rule reads: the plan index and the cluster's critical tier."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..objects import Pod, PriorityClass
from .index import PlanIndex, is_system_class, is_system_priority


@dataclass(frozen=True, eq=False)
class AuditContext:
    index: PlanIndex
    # The business-critical tier: the classes the caller marks, or else the top user
    # class(es) by value that pods use, when pods use at least two user values (with one
    # tier in use there is nothing to be critical above).
    critical: frozenset[str]
    # The lowest value in the critical tier; None when there is no such tier.
    critical_floor: int | None
    # The cluster's KubeSchedulerConfiguration (parsed); None: the default profile.
    scheduler_config: dict[str, Any] | None = None

    def is_high(self, pod: Pod) -> bool:
        """A pod of the critical tier or above, system pods included."""
        if is_system_priority(pod.priority):
            return True
        return self.critical_floor is not None and pod.priority >= self.critical_floor

    def high_classes(self) -> list[PriorityClass]:
        """User classes at or above the critical tier's lowest value, used or not."""
        floor = self.critical_floor
        if floor is None:
            return []
        return sorted(
            (c for c in self.index.user_classes() if c.value >= floor), key=lambda c: c.name
        )


def audit_context(
    index: PlanIndex,
    critical_classes: Collection[str] = (),
    scheduler_config: dict[str, Any] | None = None,
) -> AuditContext:
    missing = index.missing_class_keys
    used = frozenset(
        p.priority_class_name
        for p in index.live
        if p.priority_class_name is not None and p.key not in missing
    )
    user_used = [
        index.classes[n]
        for n in used
        if n in index.classes and not is_system_class(index.classes[n])
    ]
    if critical_classes:
        unknown = sorted(set(critical_classes) - set(index.classes))
        if unknown:
            raise InvalidInput(
                f"no PriorityClass with name {', '.join(unknown)} was found",
                field="critical_classes",
            )
        critical = frozenset(critical_classes)
    else:
        values = {c.value for c in user_used}
        top = max(values) if len(values) >= 2 else None
        critical = frozenset(c.name for c in user_used if c.value == top)
    floor = min((index.classes[n].value for n in critical), default=None)
    return AuditContext(index, critical, floor, scheduler_config)
