"""The Priority admission plugin (plugin/pkg/admission/priority) and PriorityClass rules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

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


# How the priority of a running pod that names a deleted class was settled.
FROM_SPEC = "spec.priority"
FROM_GLOBAL_DEFAULT = "globalDefault"
FROM_ZERO = "zero"


@dataclass(frozen=True, slots=True)
class MissingClassPod:
    """A pod already in the snapshot that names a PriorityClass which no longer exists.

    The API server admitted it while the class existed and a pod's priority never
    changes afterwards, so it keeps ``spec.priority`` (``source`` "spec.priority"). A
    snapshot without it gives no way to know: the globalDefault's value is assumed
    ("globalDefault"), else 0 ("zero").
    """

    pod: str
    class_name: str
    priority: int
    source: str

    def to_dict(self) -> dict[str, object]:
        return {
            "pod": self.pod,
            "class_name": self.class_name,
            "priority": self.priority,
            "source": self.source,
        }


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

    def resolve_admitted(self, pod: Pod) -> MissingClassPod | None:
        """Resolve a pod the snapshot already holds: one that went through admission.

        Unlike a pod being submitted (``resolve``, which refuses it as admission does),
        a running pod may name a class deleted since: it is kept, at its own
        ``spec.priority`` or an assumed one, and the returned record says which.
        """
        name = pod.priority_class_name
        if not name or name in self.by_name:
            self.resolve(pod)
            return None
        if pod.spec_priority is not None:
            pod.priority, source = pod.spec_priority, FROM_SPEC
        elif self.default is not None:
            pod.priority, source = self.default.value, FROM_GLOBAL_DEFAULT
        else:
            pod.priority, source = 0, FROM_ZERO
        if pod.preemption_policy is None:
            # Without a class to copy it from, admission leaves the API default.
            pod.preemption_policy = PREEMPT_LOWER_PRIORITY
        return MissingClassPod(pod.key, name, pod.priority, source)


def missing_class_warnings(
    missing: list[MissingClassPod], default: PriorityClass | None
) -> list[str]:
    """One warning per deleted class that pods still name, saying what was assumed."""
    by_class: dict[str, list[MissingClassPod]] = {}
    for m in missing:
        by_class.setdefault(m.class_name, []).append(m)
    warnings: list[str] = []
    for name in sorted(by_class):
        group = by_class[name]
        n = len(group)
        parts: list[str] = []
        kept = sorted({m.priority for m in group if m.source == FROM_SPEC})
        n_kept = sum(1 for m in group if m.source == FROM_SPEC)
        if n_kept:
            values = ", ".join(str(v) for v in kept)
            parts.append(f"{n_kept} keep{'s' if n_kept == 1 else ''} spec.priority ({values})")
        n_assumed = n - n_kept
        if n_assumed:
            assumed = (
                f"the globalDefault {default.name}'s value {default.value}"
                if default is not None
                else "priority 0"
            )
            verb = "has" if n_assumed == 1 else "have"
            parts.append(
                f"{n_assumed} {verb} no spec.priority and {'is' if n_assumed == 1 else 'are'} assumed at {assumed}"
            )
        warnings.append(
            f"PriorityClass {name} does not exist but {n} pod{'s' if n != 1 else ''} "
            f"name{'s' if n == 1 else ''} it: {'; '.join(parts)}"
        )
    return warnings


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


class HypotheticalClass(msgspec.Struct, kw_only=True, omit_defaults=False):
    """A PriorityClass a what-if carried, applied for that run only: a new class, or a
    new value for a snapshot's class (``replaces``: the snapshot's value, else None)."""

    name: str
    value: int
    preemption_policy: str
    global_default: bool = False
    replaces: int | None = None

    def to_contract(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "preemption_policy": self.preemption_policy,
            "global_default": self.global_default,
            "replaces": self.replaces,
        }

    @classmethod
    def from_contract(cls, data: Mapping[str, Any]) -> HypotheticalClass:
        return cls(
            name=str(data["name"]),
            value=int(data["value"]),
            preemption_policy=str(data["preemption_policy"]),
            global_default=bool(data.get("global_default")),
            replaces=None if data.get("replaces") is None else int(data["replaces"]),
        )
