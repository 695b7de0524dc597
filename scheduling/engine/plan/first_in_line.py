"""First in line: every app ranked by how soon preemption reaches it.

For each priority level L at which apps have running pods, ONE :func:`capacity` run
places ``limit`` replicas of a probe pod of the stated size at priority L+1 (spec.priority,
PreemptLowerPriority, no class): the weakest preemptor that reaches level L, which may
evict only pods of priority L or lower. Every app running at L is then read off that one
run, so the cost is one run per level, never one per app. An app absorbs the replicas
before the first one whose preemption deleted one of its pods.

Which replica is "first" is counted in submission order, not in capacity's binding order.
All replicas share one priority and enter activeQ together, and a failed one waits in
unschedulablePods or backoffQ while activeQ still holds others, so cycles 1..limit are the
replicas' first attempts in submission order. A run of k replicas therefore plays exactly
the first k cycles of the run of ``limit``: if the first pod of the app went in cycle c
(replica c), k = c - 1 replicas delete none of the app's pods and c replicas delete one.
(Binding order would not do: a replica that preempts binds only on a later attempt, after
replicas that found room its victims left free.) A retry never preempts for this probe:
its nominated node's room is held for it by its equal-priority siblings, and a replica that
found no candidate at its first attempt finds none later (the pods it could evict only
grew fewer, the pods it must live with only more). The tests check both against simulate.

Levels no class could preempt (no PriorityClass above L whose policy lets it preempt) get
no run: their apps are listed as out of reach.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..capacity import Capacity, capacity, check_limit
from ..cluster import Cluster
from ..errors import InvalidInput
from ..objects import PREEMPT_LOWER_PRIORITY, Pod
from .index import plan_index

# The probe's name and namespace (a namespace the snapshot need not hold).
PROBE_NAME = "first-in-line"
PROBE_NAMESPACE = "default"
PROBE_IMAGE = "registry.k8s.io/pause:3.10"
DEFAULT_CPU_MILLIS = 1000
DEFAULT_MEMORY_BYTES = 2 * 1024**3
DEFAULT_LIMIT = 50
# The most probes one level may take. One run per level in use: on bench/generate_cluster's
# large cluster (5,000 nodes, 150,000 pods) with one class per app, four levels probed with
# 28-CPU probes that all preempt took 18.9 s at 200 and 5.3 s at 50; 1-CPU probes, which
# find room, about 1 s (bench/first_in_line_bench.py). 200 keeps the worst within 30 s.
MAX_LIMIT = 200


@dataclass(frozen=True, slots=True)
class FirstHit:
    """The replica (in submission order, from 1) whose preemption first took one of the
    app's pods, the node it preempted on and the pod."""

    replica: int
    node: str
    pod: str

    def to_dict(self) -> dict[str, Any]:
        return {"replica": self.replica, "node": self.node, "pod": self.pod}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FirstHit:
        return cls(replica=d["replica"], node=d["node"], pod=d["pod"])


@dataclass(frozen=True, slots=True)
class AppInLine:
    app: str
    namespace: str
    priority: int
    priority_class: str | None
    # Its pods bound to a node at ``priority``.
    pods: int
    # Whether every PDB covering its pods (as kube-scheduler counts them) still allows a
    # disruption; None when none covers them.
    pdb_allows_disruption: bool | None
    # Whether some class may preempt it at all (False: its level got no run).
    reachable: bool
    # Probe replicas placed before one of its pods is a victim; None: not within the limit
    # (or out of reach).
    absorbed: int | None
    absorbed_cpu_millis: int | None
    absorbed_memory_bytes: int | None
    first_hit: FirstHit | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "app": self.app,
            "namespace": self.namespace,
            "priority": self.priority,
            "priority_class": self.priority_class,
            "pods": self.pods,
            "pdb_allows_disruption": self.pdb_allows_disruption,
            "reachable": self.reachable,
            "absorbed": self.absorbed,
            "absorbed_cpu_millis": self.absorbed_cpu_millis,
            "absorbed_memory_bytes": self.absorbed_memory_bytes,
            "first_hit": self.first_hit.to_dict() if self.first_hit else None,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AppInLine:
        hit = d["first_hit"]
        return cls(**{**d, "first_hit": FirstHit.from_dict(hit) if hit else None})


@dataclass(frozen=True, slots=True)
class LevelRun:
    """One probe run: the level it reaches and what it did."""

    priority: int
    apps: int
    placed: int
    victims: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "priority": self.priority,
            "apps": self.apps,
            "placed": self.placed,
            "victims": self.victims,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LevelRun:
        return cls(**d)


@dataclass(frozen=True, slots=True)
class FirstInLine:
    cpu_millis: int
    memory_bytes: int
    limit: int
    # Ranked: absorbed ascending (beyond the limit, then out of reach, last), then
    # priority, then app.
    apps: tuple[AppInLine, ...]
    runs: tuple[LevelRun, ...]
    # Levels with apps that no class could preempt: no run.
    skipped_levels: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "size": {"cpu_millis": self.cpu_millis, "memory_bytes": self.memory_bytes},
            "limit": self.limit,
            "apps": [a.to_dict() for a in self.apps],
            "runs": [r.to_dict() for r in self.runs],
            "skipped_levels": list(self.skipped_levels),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FirstInLine:
        """The ranking as :meth:`to_dict` wrote it (a stored answer read back)."""
        return cls(
            cpu_millis=d["size"]["cpu_millis"],
            memory_bytes=d["size"]["memory_bytes"],
            limit=d["limit"],
            apps=tuple(AppInLine.from_dict(a) for a in d["apps"]),
            runs=tuple(LevelRun.from_dict(r) for r in d["runs"]),
            skipped_levels=tuple(d["skipped_levels"]),
        )


def probe_pod(level: int, cpu_millis: int, memory_bytes: int) -> dict[str, Any]:
    """The weakest preemptor that reaches ``level``: priority level + 1, no class."""
    # A pod name is a DNS label: "m" writes a negative level's minus sign.
    name = f"{PROBE_NAME}-{level}" if level >= 0 else f"{PROBE_NAME}-m{-level}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": PROBE_NAMESPACE, "labels": {"app": name}},
        "spec": {
            "priority": level + 1,
            "preemptionPolicy": PREEMPT_LOWER_PRIORITY,
            "containers": [
                {
                    "name": "probe",
                    "image": PROBE_IMAGE,
                    "resources": {
                        "requests": {"cpu": f"{cpu_millis}m", "memory": str(memory_bytes)}
                    },
                }
            ],
        },
    }


def first_hits(answer: Capacity) -> dict[str, FirstHit]:
    """Each victim's pod key -> the replica (submission order) whose preemption took it.

    Cycles 1..limit are the replicas' first attempts in submission order (the module's
    docstring says why), so a victim of cycle c <= limit is replica c's. A later cycle is
    a retry: its replica is the one whose first attempt carried its name."""
    index: dict[str, int] = {}
    for p in answer.curve:
        if p.cycle <= answer.limit:
            index[p.pod] = p.cycle
    for v in answer.victims:
        if v.cycle <= answer.limit:
            index[v.preemptor] = v.cycle
    hits: dict[str, FirstHit] = {}
    for v in answer.victims:
        # A retry of a replica whose first attempt left no record (it found no candidate)
        # is not expected (see the module docstring); counted last if it ever happens.
        replica = v.cycle if v.cycle <= answer.limit else index.get(v.preemptor, answer.limit)
        hits.setdefault(v.pod, FirstHit(replica, v.node, v.pod))
    return hits


def _can_preempt_above(classes: list[tuple[int, str]], level: int) -> bool:
    return any(value > level and policy != "Never" for value, policy in classes)


def first_in_line(
    cluster: Cluster,
    *,
    cpu_millis: int = DEFAULT_CPU_MILLIS,
    memory_bytes: int = DEFAULT_MEMORY_BYTES,
    limit: int = DEFAULT_LIMIT,
    on_run: Callable[[int, int], None] | None = None,
) -> FirstInLine:
    """Every app with running pods, ranked by how much higher-priority demand of the
    given size the cluster absorbs before preemption takes one of its pods.

    ``on_run(done, total)``: called before each level's run and once at the end, so a
    caller can show how far it is (the runs are the whole cost)."""
    limit = check_limit(limit, most=MAX_LIMIT)
    for field, amount in (("cpu", cpu_millis), ("memory", memory_bytes)):
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise InvalidInput(f"must be more than 0, not {amount!r}", field=field)
    index = plan_index(cluster)
    # The apps by the lowest priority their running pods have: that level's probe is the
    # first to reach them (a higher level's pods of the same app come later still).
    running: dict[str, list[Pod]] = defaultdict(list)
    for pod, ref in zip(index.live, index.app_refs, strict=True):
        if pod.node_name:
            running[ref].append(pod)
    level_of = {ref: min(p.priority for p in pods) for ref, pods in running.items()}
    by_level: dict[int, list[str]] = defaultdict(list)
    for ref, level in level_of.items():
        by_level[level].append(ref)
    classes = [
        (pc.value, pc.preemption_policy or PREEMPT_LOWER_PRIORITY) for pc in index.classes.values()
    ]
    pdbs = cluster.pdbs
    matches = dict(zip((p.key for p in index.live), index.pdb_matches, strict=True))

    rows: list[AppInLine] = []
    runs: list[LevelRun] = []
    skipped: list[int] = []
    total = sum(1 for level in by_level if _can_preempt_above(classes, level))
    for level in sorted(by_level, reverse=True):
        refs = by_level[level]
        reachable = _can_preempt_above(classes, level)
        hits: dict[str, FirstHit] = {}
        if reachable:
            if on_run is not None:
                on_run(len(runs), total)
            answer = capacity(cluster, probe_pod(level, cpu_millis, memory_bytes), limit=limit)
            hits = first_hits(answer)
            runs.append(LevelRun(level, len(refs), answer.placed, len(answer.victims)))
        else:
            skipped.append(level)
        for ref in refs:
            pods = [p for p in running[ref] if p.priority == level]
            hit = min(
                (hits[p.key] for p in pods if p.key in hits),
                key=lambda h: (h.replica, h.pod),
                default=None,
            )
            covering = {i for p in pods for i in matches[p.key]}
            absorbed = hit.replica - 1 if hit else None
            rows.append(
                AppInLine(
                    app=ref,
                    namespace=pods[0].namespace,
                    priority=level,
                    priority_class=pods[0].priority_class_name,
                    pods=len(pods),
                    pdb_allows_disruption=(
                        all(pdbs[i].disruptions_allowed > 0 for i in covering) if covering else None
                    ),
                    reachable=reachable,
                    absorbed=absorbed,
                    absorbed_cpu_millis=None if absorbed is None else absorbed * cpu_millis,
                    absorbed_memory_bytes=None if absorbed is None else absorbed * memory_bytes,
                    first_hit=hit,
                )
            )
    if on_run is not None:
        on_run(len(runs), total)
    rows.sort(key=_rank)
    return FirstInLine(
        cpu_millis=cpu_millis,
        memory_bytes=memory_bytes,
        limit=limit,
        apps=tuple(rows),
        runs=tuple(runs),
        skipped_levels=tuple(skipped),
    )


def _rank(row: AppInLine) -> tuple[int, int, int, str]:
    if row.absorbed is not None:
        return (0, row.absorbed, row.priority, row.app)
    return (1 if row.reachable else 2, 0, row.priority, row.app)


__all__ = [
    "DEFAULT_CPU_MILLIS",
    "DEFAULT_LIMIT",
    "DEFAULT_MEMORY_BYTES",
    "MAX_LIMIT",
    "AppInLine",
    "FirstHit",
    "FirstInLine",
    "LevelRun",
    "first_hits",
    "first_in_line",
    "probe_pod",
]
