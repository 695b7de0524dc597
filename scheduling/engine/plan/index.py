"""One pass over a loaded cluster that the ladder and every audit rule read.

A cluster of 150,000 pods leaves no room for a rule that compares pods with pods, so
each fact a rule needs is gathered here once, by pod, app, class, budget and node.
A loaded Cluster never changes: the index is built on first use and kept with it.
"""

from __future__ import annotations

import weakref
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ..cluster import Cluster
from ..collector import collector_paused
from ..objects import CPU, MEMORY, PDB, Pod, PriorityClass
from ..priority import (
    HIGHEST_USER_DEFINABLE_PRIORITY,
    SYSTEM_CLUSTER_CRITICAL,
    SYSTEM_NODE_CRITICAL,
)
from .apps import app_of

SYSTEM_CLASSES = (SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL)
TERMINAL_PHASES = ("Succeeded", "Failed")


@dataclass(eq=False)
class App:
    """A pod's controlling owner and what the plan needs of its pods."""

    ref: str
    namespace: str
    kind: str
    pods: list[Pod] = field(default_factory=list)
    # Pods matched by at least one budget kube-scheduler counts (non-empty selector).
    covered_pods: int = 0


@dataclass(eq=False)
class PlanIndex:
    cluster: Cluster
    # Every PriorityClass admission knows of, built-in ones first replacing listed copies.
    classes: dict[str, PriorityClass]
    # Pods that are not Succeeded or Failed: the ones holding or wanting room.
    live: list[Pod]
    # Aligned with ``live``: each pod's app and the budgets matching it.
    app_refs: list[str]
    pdb_matches: list[tuple[int, ...]]
    apps: dict[str, App]
    # Pod key -> its app, for rules that walk nodes rather than ``live``.
    app_by_key: dict[str, str]
    # Pods matched per budget (by index into cluster.pdbs), as kube-scheduler matches.
    pdb_pod_counts: list[int]
    # Live pods per namespace (what an empty-selector budget covers for eviction).
    namespace_pods: Counter[str]
    namespaces: frozenset[str]
    missing_class_keys: frozenset[str]
    defaulted_keys: frozenset[str]
    allocatable_cpu: int
    allocatable_memory: int

    def user_classes(self) -> list[PriorityClass]:
        """Classes a cluster administrator made (not the two built-in system ones)."""
        return [c for c in self.classes.values() if not is_system_class(c)]

    def pdb_ref(self, i: int) -> str:
        pdb = self.cluster.pdbs[i]
        return f"PodDisruptionBudget {pdb.namespace}/{pdb.name}"


def is_system_class(pc: PriorityClass) -> bool:
    return pc.builtin or pc.name in SYSTEM_CLASSES


def is_system_priority(priority: int) -> bool:
    return priority > HIGHEST_USER_DEFINABLE_PRIORITY


def counted_selector(pdb: PDB) -> bool:
    """Whether kube-scheduler v1.35's preemption can ever count this budget."""
    sel = pdb.label_selector
    return not (sel.nothing or sel.empty)


_INDEXES: weakref.WeakKeyDictionary[Cluster, PlanIndex] = weakref.WeakKeyDictionary()


def plan_index(cluster: Cluster) -> PlanIndex:
    index = _INDEXES.get(cluster)
    if index is None:
        with collector_paused():
            index = _build(cluster)
        _INDEXES[cluster] = index
    return index


def _build(cluster: Cluster) -> PlanIndex:
    classes = dict(cluster.resolver.by_name)
    live = [p for p in cluster.pods if p.phase not in TERMINAL_PHASES]
    pdb_pod_counts = [0] * len(cluster.pdbs)
    # Whole-list passes first (comprehensions and Counter's C loop), then one loop for the
    # per-app and per-budget tallies: a third less time than one loop doing it all.
    app_refs = [app_of(p) for p in live]
    pdbs_for_pod = cluster.pdbs_for_pod
    pdb_matches = [pdbs_for_pod(p) for p in live]
    namespace_pods = Counter(p.namespace for p in live)
    apps: dict[str, App] = {}
    for pod, ref, matched in zip(live, app_refs, pdb_matches, strict=True):
        app = apps.get(ref)
        if app is None:
            app = apps[ref] = App(ref, pod.namespace, ref.partition(" ")[0])
        app.pods.append(pod)
        if matched:
            app.covered_pods += 1
            for i in matched:
                pdb_pod_counts[i] += 1
    namespaces = set(namespace_pods)
    namespaces.update(p.namespace for p in cluster.pdbs)
    namespaces.update(q.namespace for q in cluster.quotas)
    cpu = memory = 0
    for node in cluster.nodes:
        if not node.unschedulable:
            cpu += node.allocatable.get(CPU, 0)
            memory += node.allocatable.get(MEMORY, 0)
    return PlanIndex(
        cluster=cluster,
        classes=classes,
        live=live,
        app_refs=app_refs,
        pdb_matches=pdb_matches,
        apps=apps,
        app_by_key={p.key: ref for p, ref in zip(live, app_refs, strict=True)},
        pdb_pod_counts=pdb_pod_counts,
        namespace_pods=namespace_pods,
        namespaces=frozenset(namespaces),
        missing_class_keys=frozenset(m.pod for m in cluster.missing_class_pods),
        defaulted_keys=frozenset(cluster.defaulted_pods),
        allocatable_cpu=cpu,
        allocatable_memory=memory,
    )


def pods_by_priority(index: PlanIndex) -> dict[int, list[Pod]]:
    by: dict[int, list[Pod]] = defaultdict(list)
    for pod in index.live:
        by[pod.priority].append(pod)
    return by
