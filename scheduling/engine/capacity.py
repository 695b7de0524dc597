"""Room per tier: how many replicas of one pod template the cluster takes, and at what cost.

:func:`capacity` hands ``limit`` replicas of the template to :func:`simulate` as the
pods of one ReplicaSet (named as its controller would name them) and reads the run,
replica by replica in binding order:

- fits as the cluster stands ("now"): bound while no victim had been deleted yet, and
  never nominated before (no room was made for it);
- fits by preempting: bound on room a preemption made, its own or an earlier
  replica's (a replica bound after the first deletion may use what another replica's
  victims left free: the cluster as it stood would not have taken it);
- cannot be placed: pending when the run ended (within the limit); why, in the words of
  the FailedScheduling event of each one's last attempt ("0/4 nodes are available: 4 Too
  many pods. preemption: ..."), the replicas that ended on the same words counted together.

The cost curve puts, beside each placed replica, what the run had taken by then: the
victims deleted so far (split by their PriorityClass), the apps (owners) that lost
pods and the PDBs taken past their disruptionsAllowed. Victims a replica deleted and
then never bound still count: they are gone all the same, and the totals say so.

:func:`capacity_by_class` asks the same for one size in every user PriorityClass: the
table a PriorityClass plan wants ("how much room does each tier have?").
"""

from __future__ import annotations

import copy
import enum
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cluster import Cluster, load_cluster
from .config import EngineConfig
from .errors import InvalidInput
from .hypothetical import with_priority_classes
from .message import read_fit_error
from .objects import CPU, MEMORY, PREEMPT_LOWER_PRIORITY, Pod
from .plan.index import is_system_class
from .profile import SchedulerConfigInput
from .quantity import QuantityError, resource_value
from .simulate import Simulation, simulate
from .simulate.result import CycleResult
from .workload import expand_workload

# Replicas simulated when the caller states no limit, and the most one question may ask.
# Measured on bench/generate_cluster's large cluster (5,000 nodes, 150,000 pods, 2,000
# PDBs): a replica that preempts takes about 2-3 ms there (each cycle redoes only the
# nodes that changed, simulate/replicas.py), one that fits about 1 ms; 500 preempting
# replicas take about 1.3 s, the most, 1,000, about 2.3 s, and the every-class table
# (1,000 per class, four classes) about 4 s: well inside the analysis budget's 120 s,
# which stops anything longer and says so.
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000

# The label a template without labels gets, so its ReplicaSet has a selector.
TEMPLATE_LABEL = "preemptlab.io/capacity-of"
# The pod the by-class table places (one container, the given requests).
ROOM_NAMESPACE = "default"
ROOM_IMAGE = "registry.k8s.io/pause:3.10"
# The by-class table's pod that names no class is called room-no-class.
NO_CLASS_NAME = "no-class"


class Placement(enum.Enum):
    NOW = "now"
    PREEMPTING = "preempting"


def class_of(pod: Pod) -> str:
    """The name a victim's class goes by in the split: its PriorityClass, or "priority N"
    for a pod that names none."""
    return pod.priority_class_name or f"priority {pod.priority}"


def app_of(pod: Pod) -> str:
    """What a reader calls an app: the pod's owner in its namespace, or the pod itself."""
    return f"{pod.namespace}/{pod.owner}" if pod.owner else pod.key


@dataclass(frozen=True)
class Template:
    """The pod asked about, as admission left it."""

    pod: str
    priority: int
    priority_class: str | None
    preemption_policy: str
    # The scheduler's computed requests: millicores for cpu, bytes for memory.
    requests: Mapping[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "priority": self.priority,
            "priority_class": self.priority_class,
            "preemption_policy": self.preemption_policy,
            "requests": dict(self.requests),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Template:
        return cls(
            d["pod"], d["priority"], d["priority_class"], d["preemption_policy"], d["requests"]
        )


@dataclass(frozen=True)
class Victim:
    """A pod the run deleted, and the replica whose preemption did it."""

    pod: str
    priority: int
    priority_class: str
    app: str
    node: str
    cycle: int
    preemptor: str
    # The PDBs that select it.
    pdbs: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "priority": self.priority,
            "priority_class": self.priority_class,
            "app": self.app,
            "node": self.node,
            "cycle": self.cycle,
            "preemptor": self.preemptor,
            "pdbs": list(self.pdbs),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Victim:
        return cls(**{**{k: d[k] for k in cls.__dataclass_fields__}, "pdbs": tuple(d["pdbs"])})


@dataclass(frozen=True)
class CurvePoint:
    """The ``replica``-th replica placed, and what the run had taken when it was bound."""

    replica: int
    pod: str
    node: str
    cycle: int
    placement: Placement
    # The victims of this replica's own preemptions.
    preempted: tuple[str, ...]
    victims_total: int
    victims_by_class: Mapping[str, int]
    apps_hit: int
    pdbs_exceeded: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "replica": self.replica,
            "pod": self.pod,
            "node": self.node,
            "cycle": self.cycle,
            "placement": self.placement.value,
            "preempted": list(self.preempted),
            "victims_total": self.victims_total,
            "victims_by_class": dict(self.victims_by_class),
            "apps_hit": self.apps_hit,
            "pdbs_exceeded": self.pdbs_exceeded,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CurvePoint:
        return cls(
            replica=d["replica"],
            pod=d["pod"],
            node=d["node"],
            cycle=d["cycle"],
            placement=Placement(d["placement"]),
            preempted=tuple(d["preempted"]),
            victims_total=d["victims_total"],
            victims_by_class=dict(d["victims_by_class"]),
            apps_hit=d["apps_hit"],
            pdbs_exceeded=d["pdbs_exceeded"],
        )


@dataclass(frozen=True)
class Unplaced:
    """Why replicas stayed pending: the FailedScheduling message of their last attempt,
    read back (how many nodes, each reason with the nodes that gave it, as kube-scheduler's
    NodeResourcesFit and the other filters say it), and how many replicas ended on it."""

    message: str
    replicas: int
    nodes: int
    # (reason, nodes), in the message's order.
    reasons: tuple[tuple[str, int], ...]
    # The filters' half of the message: "0/4 nodes are available: 4 Too many pods".
    filters: str
    # DefaultPreemption's half; None when the profile runs no preemption.
    preemption: str | None

    @classmethod
    def of(cls, message: str, replicas: int) -> Unplaced:
        read = read_fit_error(message)
        if read is None:
            return cls(message, replicas, 0, (), message, None)
        return cls(message, replicas, read.nodes, read.reasons, read.filters, read.preemption)

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "replicas": self.replicas,
            "nodes": self.nodes,
            "reasons": [{"reason": r, "nodes": n} for r, n in self.reasons],
            "filters": self.filters,
            "preemption": self.preemption,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Unplaced:
        return cls.of(d["message"], d["replicas"])


def unplaced_of(sim: Simulation, placed: Collection[str]) -> tuple[Unplaced, ...]:
    """The replicas left pending grouped by the message of their last failed cycle, most
    replicas first (then by message). A replica the run never tried (it stopped at the
    cycle limit first) has no message and is in no group."""
    last: dict[str, str] = {}
    for y in sim.cycles:
        if y.result is not CycleResult.BOUND:
            last[y.pod] = y.message
    counts = Counter(m for pod, m in last.items() if pod not in placed)
    return tuple(
        Unplaced.of(m, n) for m, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )


@dataclass(frozen=True)
class Capacity:
    """How many replicas of the template fit, and the cost of each one past the free room."""

    template: Template
    limit: int
    fit_now: int
    fit_by_preempting: int
    unplaced: int
    stop_reason: str
    cycles: int
    curve: tuple[CurvePoint, ...]
    # Every pod the run deleted, in the order deleted (a victim of a replica that was
    # never placed included); the classes they had, in order of priority, highest first.
    victims: tuple[Victim, ...]
    victim_classes: tuple[str, ...]
    # disruptionsAllowed of each PDB that selects a victim.
    pdb_budgets: Mapping[str, int]
    # Why the replicas that cannot be placed stayed pending (an answer stored before this
    # was kept reads back without it).
    unplaced_reasons: tuple[Unplaced, ...] = ()

    @property
    def placed(self) -> int:
        return self.fit_now + self.fit_by_preempting

    @property
    def victims_by_class(self) -> dict[str, int]:
        counts = Counter(v.priority_class for v in self.victims)
        return {c: counts[c] for c in self.victim_classes}

    @property
    def apps_hit(self) -> tuple[str, ...]:
        return tuple(sorted({v.app for v in self.victims}))

    @property
    def pdbs_exceeded(self) -> tuple[str, ...]:
        """The PDBs the run took past their disruptionsAllowed (all its victims counted)."""
        taken = Counter(b for v in self.victims for b in v.pdbs)
        return tuple(sorted(b for b, n in taken.items() if n > self.pdb_budgets[b]))

    @property
    def wasted_victims(self) -> tuple[Victim, ...]:
        """Victims of replicas that were never placed."""
        placed = {p.pod for p in self.curve}
        return tuple(v for v in self.victims if v.preemptor not in placed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "template": self.template.to_dict(),
            "limit": self.limit,
            "fit_now": self.fit_now,
            "fit_by_preempting": self.fit_by_preempting,
            "unplaced": self.unplaced,
            "stop_reason": self.stop_reason,
            "cycles": self.cycles,
            "curve": [p.to_dict() for p in self.curve],
            "victims": [v.to_dict() for v in self.victims],
            "victim_classes": list(self.victim_classes),
            "victims_total": len(self.victims),
            "victims_by_class": self.victims_by_class,
            "apps_hit": list(self.apps_hit),
            "pdbs_exceeded": list(self.pdbs_exceeded),
            "pdb_budgets": dict(self.pdb_budgets),
            "unplaced_reasons": [u.to_dict() for u in self.unplaced_reasons],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Capacity:
        return cls(
            template=Template.from_dict(d["template"]),
            limit=d["limit"],
            fit_now=d["fit_now"],
            fit_by_preempting=d["fit_by_preempting"],
            unplaced=d["unplaced"],
            stop_reason=d["stop_reason"],
            cycles=d["cycles"],
            curve=tuple(CurvePoint.from_dict(p) for p in d["curve"]),
            victims=tuple(Victim.from_dict(v) for v in d["victims"]),
            victim_classes=tuple(d["victim_classes"]),
            pdb_budgets=dict(d["pdb_budgets"]),
            unplaced_reasons=tuple(Unplaced.from_dict(u) for u in d.get("unplaced_reasons", ())),
        )


def check_limit(limit: object, *, most: int = MAX_LIMIT) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= most:
        raise InvalidInput(
            f"the limit must be a whole number from 1 to {most:,}, not {limit!r}",
            field="limit",
        )
    return limit


def replica_set_of(
    pod: Mapping[str, Any],
    replicas: int,
    *,
    name: str | None = None,
    drop: Sequence[str] = ("nodeName",),
) -> dict[str, Any]:
    """A ReplicaSet (named ``name``, else after the pod) with the pod as its template: its
    replicas are named and labelled as the ReplicaSet controller would make them. The
    spec's ``drop`` fields are left out of the template."""
    if not isinstance(pod, Mapping):
        raise InvalidInput("the pod must be an object", kind="Pod")
    raw_meta = pod.get("metadata")
    meta: Mapping[str, Any] = raw_meta if isinstance(raw_meta, Mapping) else {}
    name = name or meta.get("name")
    if not isinstance(name, str) or not name:
        raise InvalidInput("Required value: a name", kind="Pod", field="metadata.name")
    raw_labels = meta.get("labels")
    labels = (
        {str(k): str(v) for k, v in (raw_labels or {}).items()}
        if isinstance(raw_labels, Mapping)
        else {}
    )
    labels = labels or {TEMPLATE_LABEL: name}
    template_meta: dict[str, Any] = {"labels": labels}
    if isinstance(meta.get("annotations"), Mapping) and meta["annotations"]:
        template_meta["annotations"] = dict(meta["annotations"])
    spec = copy.deepcopy(dict(pod.get("spec") or {}))
    for key in drop:
        spec.pop(key, None)
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": meta.get("namespace") or "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": template_meta, "spec": spec},
        },
    }


def capacity(
    cluster: Cluster | list[dict[str, Any]] | dict[str, Any],
    pod: Mapping[str, Any],
    *,
    limit: int = DEFAULT_LIMIT,
    config: EngineConfig | None = None,
    on_cycle: Callable[[int], None] | None = None,
    priority_classes: Sequence[Mapping[str, Any]] = (),
    scheduler_config: SchedulerConfigInput | None = None,
) -> Capacity:
    """How many of ``limit`` replicas of ``pod`` kube-scheduler places on the cluster,
    without and with preemption, and the victims each costs. Never mutates the cluster.
    ``priority_classes``: the what-if's own PriorityClass objects, ``scheduler_config``
    the KubeSchedulerConfiguration (both as for simulate)."""
    limit = check_limit(limit)
    base = cluster if isinstance(cluster, Cluster) else load_cluster(cluster)
    base = with_priority_classes(base, priority_classes)
    taken = [p.key for p in base.pods]
    workload = expand_workload([replica_set_of(pod, limit)], max_replicas=limit, taken=taken)
    sim = simulate(
        base, workload.pods, config=config, on_cycle=on_cycle, scheduler_config=scheduler_config
    )
    return read_run(sim, limit=limit, template=workload.objects[0].key)


def read_run(sim: Simulation, *, limit: int, template: str) -> Capacity:
    """The capacity answer of a finished run of the template's replicas.

    The curve counts each placed replica's own victims, cumulatively in binding order:
    "to place this many, these pods go". (The run itself often deletes them all before
    the first binding: replicas of one priority preempt one after another while the
    earlier ones wait for their nominated nodes.)"""
    first = sim.pending[0]
    answer_for = Template(
        pod=template,
        priority=first.priority,
        priority_class=first.priority_class_name,
        preemption_policy=first.preemption_policy or PREEMPT_LOWER_PRIORITY,
        requests={r: first.requests[r] for r in (CPU, MEMORY) if r in first.requests},
    )
    budgets = {r.pdb: r.disruptions_allowed for r in sim.pdb_report}
    covered: dict[str, list[str]] = {}
    for r in sim.pdb_report:
        for key in r.deleted_matching_victims:
            covered.setdefault(key, []).append(r.pdb)
    popped = {y.cycle: y.pod for y in sim.cycles}
    victims = [
        Victim(
            pod=v.key,
            priority=v.priority,
            priority_class=class_of(v),
            app=app_of(v),
            node=node,
            cycle=cycle,
            preemptor=popped[cycle],
            pdbs=tuple(sorted(covered.get(v.key, ()))),
        )
        for cycle, node, pods, _ in sim.preemptions
        for v in pods
    ]
    first_deletion = min((v.cycle for v in victims), default=None)
    nominated_at: dict[str, int] = {}
    for n in sim.nominations:
        if n.to_node:
            nominated_at.setdefault(n.pod, n.cycle)
    own: dict[str, list[Victim]] = {}
    for v in victims:
        own.setdefault(v.preemptor, []).append(v)

    curve: list[CurvePoint] = []
    by_class: Counter[str] = Counter()
    apps: set[str] = set()
    per_pdb: Counter[str] = Counter()
    total = 0
    for y in sim.cycles:
        if y.result is not CycleResult.BOUND:
            continue
        mine = own.get(y.pod, [])
        for v in mine:
            by_class[v.priority_class] += 1
            apps.add(v.app)
            per_pdb.update(v.pdbs)
        total += len(mine)
        earlier_nomination = nominated_at.get(y.pod, y.cycle) < y.cycle
        now = (first_deletion is None or y.cycle < first_deletion) and not earlier_nomination
        assert y.node is not None
        curve.append(
            CurvePoint(
                replica=len(curve) + 1,
                pod=y.pod,
                node=y.node,
                cycle=y.cycle,
                placement=Placement.NOW if now else Placement.PREEMPTING,
                preempted=tuple(v.pod for v in mine),
                victims_total=total,
                victims_by_class=dict(by_class),
                apps_hit=len(apps),
                pdbs_exceeded=sum(1 for b, n in per_pdb.items() if n > budgets[b]),
            )
        )
    fit_now = sum(1 for p in curve if p.placement is Placement.NOW)
    ranks = {v.priority_class: v.priority for v in victims}
    return Capacity(
        template=answer_for,
        limit=limit,
        fit_now=fit_now,
        fit_by_preempting=len(curve) - fit_now,
        unplaced=limit - len(curve),
        stop_reason=sim.stop_reason.value,
        cycles=len(sim.cycles),
        curve=tuple(curve),
        victims=tuple(victims),
        victim_classes=tuple(sorted(ranks, key=lambda c: (-ranks[c], c))),
        pdb_budgets=budgets,
        unplaced_reasons=unplaced_of(sim, {p.pod for p in curve}),
    )


# --- every user class at once, for one size --------------------------------------------


@dataclass(frozen=True)
class Size:
    """The requests of the by-class table's pod, as Kubernetes writes them."""

    cpu: str
    memory: str

    def check(self) -> Size:
        for resource, raw in ((CPU, self.cpu), (MEMORY, self.memory)):
            try:
                amount = resource_value(resource, raw)
            except (QuantityError, ValueError, TypeError):
                raise InvalidInput(
                    f"{raw!r} is not a quantity (write it as Kubernetes does: "
                    f"{'500m, 2' if resource == CPU else '512Mi, 4Gi'})",
                    field=resource,
                ) from None
            if amount <= 0:
                raise InvalidInput(f"must be more than 0, not {raw!r}", field=resource)
        return self

    def to_dict(self) -> dict[str, str]:
        return {"cpu": self.cpu, "memory": self.memory}


def room_pod(size: Size, priority_class: str | None) -> dict[str, Any]:
    """The by-class table's pod: one container asking ``size``, in ``priority_class``
    (None: naming no class, so admission gives it the default priority)."""
    name = f"room-{priority_class or NO_CLASS_NAME}"
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "main",
                "image": ROOM_IMAGE,
                "resources": {"requests": size.to_dict()},
            }
        ],
    }
    if priority_class is not None:
        spec = {"priorityClassName": priority_class, **spec}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ROOM_NAMESPACE, "labels": {"app": name}},
        "spec": spec,
    }


@dataclass(frozen=True)
class ClassRoom:
    """One row of the by-class table: the room one tier has for the size. The tier of
    the pods that name no class, where no class is the globalDefault, has
    ``priority_class`` None (its value is then 0)."""

    priority_class: str | None
    value: int
    preemption_policy: str
    fit_now: int
    fit_by_preempting: int
    unplaced: int
    victims_total: int
    victims_by_class: Mapping[str, int]
    apps_hit: int
    pdbs_exceeded: int
    # Why the replicas left stayed pending: the FailedScheduling message most of them
    # ended on ("" when none is left).
    unplaced_why: str = ""

    @property
    def tier(self) -> str:
        """The row's name: its class, or "(no class) priority 0"."""
        return self.priority_class or f"(no class) priority {self.value}"

    @classmethod
    def of(cls, answer: Capacity) -> ClassRoom:
        t = answer.template
        reasons = answer.unplaced_reasons
        return cls(
            priority_class=t.priority_class,
            value=t.priority,
            preemption_policy=t.preemption_policy,
            fit_now=answer.fit_now,
            fit_by_preempting=answer.fit_by_preempting,
            unplaced=answer.unplaced,
            victims_total=len(answer.victims),
            victims_by_class=answer.victims_by_class,
            apps_hit=len(answer.apps_hit),
            pdbs_exceeded=len(answer.pdbs_exceeded),
            unplaced_why=reasons[0].message if reasons else "",
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "priority_class": self.priority_class,
            "value": self.value,
            "preemption_policy": self.preemption_policy,
            "fit_now": self.fit_now,
            "fit_by_preempting": self.fit_by_preempting,
            "unplaced": self.unplaced,
            "victims_total": self.victims_total,
            "victims_by_class": dict(self.victims_by_class),
            "apps_hit": self.apps_hit,
            "pdbs_exceeded": self.pdbs_exceeded,
            "unplaced_why": self.unplaced_why,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClassRoom:
        # A row stored before unplaced_why was kept reads back without it.
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


@dataclass(frozen=True)
class RoomByClass:
    """The table: one row per user PriorityClass, highest value first, then the row of
    the pods that name no class (when no class is the globalDefault)."""

    size: Size
    limit: int
    rows: tuple[ClassRoom, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "size": self.size.to_dict(),
            "limit": self.limit,
            "classes": [r.to_dict() for r in self.rows],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RoomByClass:
        return cls(
            size=Size(**d["size"]),
            limit=d["limit"],
            rows=tuple(ClassRoom.from_dict(r) for r in d["classes"]),
        )


def user_classes(cluster: Cluster) -> list[str]:
    """The PriorityClasses users made (not the system ones), highest value first."""
    return [
        pc.name
        for pc in sorted(cluster.priority_classes, key=lambda pc: (-pc.value, pc.name))
        if not is_system_class(pc)
    ]


def room_tiers(cluster: Cluster) -> list[str | None]:
    """The tiers the by-class table asks about: every user class, highest value first,
    then, unless a class is the globalDefault, the pods that name none (None): admission
    gives those priority 0, so they are a tier of their own, the only one a cluster
    without classes of its own has."""
    tiers: list[str | None] = list(user_classes(cluster))
    if cluster.resolver.default is None:
        tiers.append(None)
    return tiers


def capacity_by_class(
    cluster: Cluster | list[dict[str, Any]] | dict[str, Any],
    cpu: str,
    memory: str,
    *,
    limit: int = DEFAULT_LIMIT,
    config: EngineConfig | None = None,
    on_cycle: Callable[[int], None] | None = None,
    priority_classes: Sequence[Mapping[str, Any]] = (),
    scheduler_config: SchedulerConfigInput | None = None,
) -> RoomByClass:
    """:func:`capacity` of one pod of ``cpu`` and ``memory`` in each user PriorityClass,
    and naming no class when no class is the globalDefault (:func:`room_tiers`)."""
    size = Size(cpu, memory).check()
    limit = check_limit(limit)
    base = cluster if isinstance(cluster, Cluster) else load_cluster(cluster)
    base = with_priority_classes(base, priority_classes)
    rows = tuple(
        ClassRoom.of(
            capacity(
                base,
                room_pod(size, name),
                limit=limit,
                config=config,
                on_cycle=on_cycle,
                scheduler_config=scheduler_config,
            )
        )
        for name in room_tiers(base)
    )
    return RoomByClass(size=size, limit=limit, rows=rows)


__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "Capacity",
    "ClassRoom",
    "CurvePoint",
    "Placement",
    "RoomByClass",
    "Size",
    "Template",
    "Unplaced",
    "Victim",
    "capacity",
    "capacity_by_class",
    "check_limit",
    "read_run",
    "replica_set_of",
    "room_pod",
    "room_tiers",
    "user_classes",
]
