"""The PriorityClass ladder: every class as ``kubectl get priorityclasses`` lists it, and
what uses each one (pods, apps, room, budgets, namespaces, quotas)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..cluster import Cluster
from ..collector import collector_paused
from ..objects import CPU, MEMORY, PREEMPT_LOWER_PRIORITY
from ..priority import FROM_SPEC
from .apps import quota_ref
from .index import PlanIndex, is_system_class, plan_index


@dataclass(frozen=True, slots=True)
class BudgetCoverage:
    """How the class's pods are covered by PodDisruptionBudgets, as kube-scheduler's
    preemption matches them (an empty selector counts for nothing there)."""

    apps_covered: int
    pods_covered: int
    # Budgets at 0 allowed disruptions that match pods of the class.
    blocking_pdbs: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "apps_covered": self.apps_covered,
            "pods_covered": self.pods_covered,
            "blocking_pdbs": list(self.blocking_pdbs),
        }


@dataclass(frozen=True, slots=True)
class ClassRung:
    """One PriorityClass and what uses it. ``pods`` counts every pod that is not
    Succeeded or Failed (``pending_pods`` of them bound to no node); the requests
    and shares sum over all of them, against the schedulable nodes' allocatable."""

    name: str
    value: int
    preemption_policy: str
    global_default: bool
    description: str
    builtin: bool
    pods: int
    pending_pods: int
    apps: int
    cpu_millis: int
    memory_bytes: int
    cpu_share: float
    memory_share: float
    budgets: BudgetCoverage
    namespaces: tuple[str, ...]
    # ResourceQuotas whose PriorityClass scope takes in this class's pods.
    quotas: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "value": self.value,
            "preemption_policy": self.preemption_policy,
            "global_default": self.global_default,
            "description": self.description,
            "builtin": self.builtin,
            "pods": self.pods,
            "pending_pods": self.pending_pods,
            "apps": self.apps,
            "cpu_millis": self.cpu_millis,
            "memory_bytes": self.memory_bytes,
            "cpu_share": round(self.cpu_share, 4),
            "memory_share": round(self.memory_share, 4),
            "budgets": self.budgets.to_dict(),
            "namespaces": list(self.namespaces),
            "quotas": list(self.quotas),
        }


@dataclass(frozen=True, slots=True)
class UnclassedPods:
    """Pods whose spec named no class, by what they resolved to: the globalDefault
    (``resolved_class``, given at load as admission would) or their own priority."""

    priority: int
    resolved_class: str | None
    pods: int
    apps: int

    def to_dict(self) -> dict[str, object]:
        return {
            "priority": self.priority,
            "resolved_class": self.resolved_class,
            "pods": self.pods,
            "apps": self.apps,
        }


@dataclass(frozen=True, slots=True)
class MissingClassUse:
    """Pods naming a PriorityClass the snapshot does not hold."""

    class_name: str
    pods: int
    apps: int
    # The priorities its pods run at (kept from spec.priority or assumed).
    priorities: tuple[int, ...]
    # How many of them had no spec.priority, so theirs was assumed.
    assumed: int

    def to_dict(self) -> dict[str, object]:
        return {
            "class_name": self.class_name,
            "pods": self.pods,
            "apps": self.apps,
            "priorities": list(self.priorities),
            "assumed": self.assumed,
        }


@dataclass(frozen=True, slots=True)
class Ladder:
    classes: tuple[ClassRung, ...]
    unclassed: tuple[UnclassedPods, ...]
    missing: tuple[MissingClassUse, ...]
    allocatable_cpu_millis: int
    allocatable_memory_bytes: int

    def to_dict(self) -> dict[str, object]:
        return {
            "classes": [c.to_dict() for c in self.classes],
            "unclassed": [u.to_dict() for u in self.unclassed],
            "missing": [m.to_dict() for m in self.missing],
            "allocatable_cpu_millis": self.allocatable_cpu_millis,
            "allocatable_memory_bytes": self.allocatable_memory_bytes,
        }

    def by_value(self) -> list[ClassRung]:
        """The classes as a ladder reads: highest value first (name among equals)."""
        return sorted(self.classes, key=lambda c: (-c.value, c.name))

    def rung(self, name: str) -> ClassRung:
        for c in self.classes:
            if c.name == name:
                return c
        raise KeyError(name)


@dataclass
class _Use:
    pods: int = 0
    pending: int = 0
    cpu: int = 0
    memory: int = 0
    covered: int = 0
    apps: set[str] = field(default_factory=set)
    covered_apps: set[str] = field(default_factory=set)
    namespaces: set[str] = field(default_factory=set)
    blocking: set[int] = field(default_factory=set)


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def plan_ladder(cluster: Cluster) -> Ladder:
    """Every PriorityClass, the built-in system ones too, in name order, with its use."""
    index = plan_index(cluster)
    with collector_paused():
        return ladder_of(index)


def ladder_of(index: PlanIndex) -> Ladder:
    pdbs = index.cluster.pdbs
    uses: dict[str, _Use] = defaultdict(_Use)
    unclassed: dict[tuple[int, str | None], tuple[int, set[str]]] = {}
    missing = index.missing_class_keys
    defaulted = index.defaulted_keys
    for pod, app, matched in zip(index.live, index.app_refs, index.pdb_matches, strict=True):
        name = pod.priority_class_name
        if name is None or pod.key in defaulted:
            key = (pod.priority, name)
            n, apps = unclassed.get(key, (0, set()))
            apps.add(app)
            unclassed[key] = (n + 1, apps)
        if name is None or pod.key in missing:
            continue
        u = uses[name]
        u.pods += 1
        if pod.node_name is None:
            u.pending += 1
        reqs = pod.requests
        u.cpu += reqs.get(CPU, 0)
        u.memory += reqs.get(MEMORY, 0)
        u.apps.add(app)
        u.namespaces.add(pod.namespace)
        if matched:
            u.covered += 1
            u.covered_apps.add(app)
            for i in matched:
                if pdbs[i].disruptions_allowed <= 0:
                    u.blocking.add(i)
    quotas = [q for q in index.cluster.quotas if q.scoped_by_priority_class]
    rungs: list[ClassRung] = []
    for name in sorted(index.classes):
        pc = index.classes[name]
        u = uses.get(name) or _Use()
        rungs.append(
            ClassRung(
                name=name,
                value=pc.value,
                preemption_policy=pc.preemption_policy or PREEMPT_LOWER_PRIORITY,
                global_default=pc.global_default,
                description=pc.description,
                builtin=is_system_class(pc),
                pods=u.pods,
                pending_pods=u.pending,
                apps=len(u.apps),
                cpu_millis=u.cpu,
                memory_bytes=u.memory,
                cpu_share=_share(u.cpu, index.allocatable_cpu),
                memory_share=_share(u.memory, index.allocatable_memory),
                budgets=BudgetCoverage(
                    apps_covered=len(u.covered_apps),
                    pods_covered=u.covered,
                    blocking_pdbs=tuple(sorted(index.pdb_ref(i) for i in u.blocking)),
                ),
                namespaces=tuple(sorted(u.namespaces)),
                quotas=tuple(
                    sorted(quota_ref(q.namespace, q.name) for q in quotas if q.covers_class(name))
                ),
            )
        )
    return Ladder(
        classes=tuple(rungs),
        unclassed=tuple(
            UnclassedPods(priority, cls, n, len(apps))
            for (priority, cls), (n, apps) in sorted(
                unclassed.items(), key=lambda kv: (-kv[0][0], kv[0][1] or "")
            )
        ),
        missing=_missing(index),
        allocatable_cpu_millis=index.allocatable_cpu,
        allocatable_memory_bytes=index.allocatable_memory,
    )


def _missing(index: PlanIndex) -> tuple[MissingClassUse, ...]:
    records = {m.pod: m for m in index.cluster.missing_class_pods}
    groups: dict[str, list[tuple[int, str, bool]]] = defaultdict(list)
    for pod, app in zip(index.live, index.app_refs, strict=True):
        m = records.get(pod.key)
        if m is not None:
            groups[m.class_name].append((m.priority, app, m.source != FROM_SPEC))
    return tuple(
        MissingClassUse(
            class_name=name,
            pods=len(g),
            apps=len({app for _, app, _ in g}),
            priorities=tuple(sorted({p for p, _, _ in g}, reverse=True)),
            assumed=sum(1 for _, _, assumed in g if assumed),
        )
        for name, g in sorted(groups.items())
    )
