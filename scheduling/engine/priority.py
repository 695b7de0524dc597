"""The Priority admission plugin (plugin/pkg/admission/priority) and PriorityClass rules."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import InvalidInput
from .objects import PREEMPT_LOWER_PRIORITY, Pod, PriorityClass

SYSTEM_CLUSTER_CRITICAL = "system-cluster-critical"
SYSTEM_NODE_CRITICAL = "system-node-critical"
# scheduling.HighestUserDefinablePriority: user classes may not go above it.
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"


def builtin_classes() -> list[PriorityClass]:
    return [
        PriorityClass(
            SYSTEM_CLUSTER_CRITICAL,
            2_000_000_000,
            builtin=True,
            description="Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
        ),
        PriorityClass(
            SYSTEM_NODE_CRITICAL,
            2_000_001_000,
            builtin=True,
            description="Used for system critical pods that must not be moved from their current node.",
        ),
    ]


class PriorityResolver:
    """Resolves a pod's priority as admission does: spec.priority, class, globalDefault, 0."""

    def __init__(self, classes: Iterable[PriorityClass]) -> None:
        self.by_name: dict[str, PriorityClass] = {}
        for pc in builtin_classes():
            self.by_name[pc.name] = pc
        defaults: list[PriorityClass] = []
        for pc in classes:
            # The built-in classes win over listed copies of them (kubectl lists both).
            if pc.name in self.by_name and self.by_name[pc.name].builtin:
                continue
            self.by_name[pc.name] = pc
            if pc.global_default:
                defaults.append(pc)
        # getDefaultPriorityClass: with several globalDefaults, the lowest value wins.
        self.default: PriorityClass | None = (
            min(defaults, key=lambda c: c.value) if defaults else None
        )

    def resolve(self, pod: Pod, *, field_prefix: str = "spec") -> None:
        """Fill pod.priority, pod.priority_class_name and pod.preemption_policy in place."""
        pc: PriorityClass | None = None
        if pod.priority_class_name:
            pc = self.by_name.get(pod.priority_class_name)
            if pc is None:
                raise InvalidInput(
                    f"no PriorityClass with name {pod.priority_class_name} was found",
                    field=f"{field_prefix}.priorityClassName",
                )
        elif pod.spec_priority is None and self.default is not None:
            pc = self.default
            pod.priority_class_name = pc.name
        if pod.spec_priority is not None:
            pod.priority = pod.spec_priority
        else:
            pod.priority = pc.value if pc else 0
        if pod.preemption_policy is None:
            pod.preemption_policy = pc.preemption_policy if pc else PREEMPT_LOWER_PRIORITY


def class_warnings(classes: list[PriorityClass], *, pods_without_priority: int) -> list[str]:
    """PriorityClass rule breaks the API server would have refused or that look wrong.

    A missing globalDefault matters only to a pod that carries neither a priority
    nor a class: real clusters rarely define one, and a snapshot whose pods all
    went through admission already has every priority set.
    """
    warnings: list[str] = []
    user = [
        c
        for c in classes
        if not c.builtin and c.name not in (SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL)
    ]
    defaults = [c.name for c in classes if c.global_default]
    if len(defaults) > 1:
        warnings.append(
            f"more than one globalDefault PriorityClass: {', '.join(sorted(defaults))}; the lowest value applies"
        )
    elif not defaults and pods_without_priority:
        n = pods_without_priority
        warnings.append(
            f"no globalDefault PriorityClass: {n} pod{'s' if n != 1 else ''} without a priority "
            f"or a class get{'s' if n == 1 else ''} priority 0"
        )
    for c in user:
        if c.value > HIGHEST_USER_DEFINABLE_PRIORITY:
            warnings.append(
                f"PriorityClass {c.name} has value {c.value}, above the user maximum {HIGHEST_USER_DEFINABLE_PRIORITY}"
            )
        if c.name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
            warnings.append(
                f"PriorityClass {c.name} uses the reserved prefix {SYSTEM_PRIORITY_CLASS_PREFIX!r}"
            )
    return warnings
