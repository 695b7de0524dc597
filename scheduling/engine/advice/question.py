"""The question advice is about, and one run of it through the engine.

A re-run goes through the entry points the analyses use: ``analyze`` for a lone pod,
the workload's objects expanded and admitted as when submitted then ``simulate`` for a
workload (scheduling/services/ computes both the same way), with the same cluster,
scheduler configuration and hypothetical PriorityClasses.

What the re-runs share, and why it is safe: the parsed Cluster (analyze and simulate
never change it; a simulation copies a node's info before it binds there), with its
NodeInfos, their totals and their cached preemption order (each pod's sort and
budgets: nothing a patched pod changes), its budgets' index of bound pods, and the
cluster with the what-if's own classes (``admitting``, made once). A re-run parses
only the changed pod, or expands the changed workload again (its pods are a few
dicts). add-nodes runs on a view holding the same NodeInfos plus the new, empty
ones (``with_nodes``); protect on a view whose new budgets are matched against
their namespace's pods only, with copies of the NodeInfos of those pods' nodes, whose
cached preemption order held the old budgets (``Cluster.with_pdbs``).
"""

from __future__ import annotations

import copy
import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..analysis import analyze
from ..cluster import Cluster, NodeInfo
from ..config import EngineConfig
from ..dra.objects import ResourceClaim, ResourceClaimTemplate
from ..errors import InvalidInput
from ..hypothetical import with_priority_classes
from ..objects import PDB, Node, Pod
from ..plugins.podtopologyspread import LABEL_HOSTNAME
from ..profile.profile_map import SchedulerConfigInput
from ..result import Result
from ..simulate import Simulation, simulate
from ..workload import DEFAULT_MAX_REPLICAS, Workload, admit, expand_workload
from .patch import apply as apply_patch
from .result import AddNodes, Answer, Change, CreateObjects, ObjectPatch

# A workload's one word (scheduling.constants.WorkloadOutcome has the same values).
ALL_RUN = "all-run"
SOME_RUN = "some-run"
NONE_RUN = "none-run"


@dataclass(frozen=True)
class PodQuestion:
    """A single-pod what-if: the pending Pod as submitted, and the preemption arguments
    it was analyzed with (None: the default profile's)."""

    pod: Mapping[str, Any]
    config: EngineConfig | None = None

    @property
    def objects(self) -> list[Mapping[str, Any]]:
        """What was submitted, as a change's ``object`` index counts it."""
        return [self.pod]


@dataclass(frozen=True)
class WorkloadQuestion:
    """A workload what-if: the objects as submitted (Pods, Deployments, ReplicaSets,
    StatefulSets, Jobs) in order, and how it was run. ``taken``: "namespace/name" keys a
    generated pod name avoids (as when it was submitted)."""

    objects: Sequence[Mapping[str, Any]]
    recreate_victims: bool = False
    timeline: bool = False
    taken: tuple[str, ...] = ()
    max_replicas: int = DEFAULT_MAX_REPLICAS


Question = PodQuestion | WorkloadQuestion


@dataclass
class Asked:
    """Everything a run shares: the question and what it was asked of. ``cluster`` is
    never changed (clusters are cached between analyses): add-nodes runs on a copy."""

    cluster: Cluster
    question: Question
    priority_classes: Sequence[Mapping[str, Any]] = ()
    scheduler_config: SchedulerConfigInput | None = None
    # The cluster as admission sees it with the what-if's classes (made once).
    _admitting: Cluster | None = field(default=None, repr=False)

    @property
    def is_pod(self) -> bool:
        return isinstance(self.question, PodQuestion)

    def objects(self) -> list[dict[str, Any]]:
        """A deep copy of what was submitted, for a change to patch."""
        return [copy.deepcopy(dict(o)) for o in self.question.objects]

    def admitting(self) -> Cluster:
        if self._admitting is None:
            self._admitting = with_priority_classes(self.cluster, self.priority_classes)
        return self._admitting

    def expand(self, objects: Sequence[Mapping[str, Any]]) -> Workload:
        """A workload's pending pods, expanded and admitted as submission does."""
        q = self.question
        assert isinstance(q, WorkloadQuestion)
        workload = expand_workload(
            objects, max_replicas=q.max_replicas, taken=q.taken, nodes=self.cluster.node_infos
        )
        admit(workload, self.admitting().resolver)
        return workload

    def pending_pods(self, objects: Sequence[Mapping[str, Any]]) -> list[Pod]:
        """The pending pods the objects make, parsed and admitted."""
        if self.is_pod:
            pod = Pod.from_dict(objects[0])
            self.admitting().resolver.resolve(pod)
            return [pod]
        return [Pod.from_dict(p) for p in self.expand(objects).pods]

    def run(self, objects: Sequence[Mapping[str, Any]], cluster: Cluster | None = None) -> Run:
        """The question with ``objects`` as submitted, answered on ``cluster`` (default:
        the question's own)."""
        on = self.cluster if cluster is None else cluster
        q = self.question
        if isinstance(q, PodQuestion):
            result = analyze(
                on,
                objects[0],
                q.config,
                priority_classes=self.priority_classes,
                scheduler_config=self.scheduler_config,
            )
            return Run(answer=pod_answer(result), result=result)
        workload = self.expand(objects)
        sim = simulate(
            on,
            workload.pods,
            recreate_victims=q.recreate_victims,
            timeline=q.timeline,
            priority_classes=self.priority_classes,
            scheduler_config=self.scheduler_config,
        )
        return Run(answer=workload_answer(sim, workload.pod_keys), simulation=sim)

    def analyze_pod(self, pod: Mapping[str, Any]) -> Result | None:
        """One pod of the question (or made from it) analyzed on the question's cluster,
        under its configuration; None when it is invalid."""
        q = self.question
        try:
            return analyze(
                self.cluster,
                pod,
                q.config if isinstance(q, PodQuestion) else None,
                priority_classes=self.priority_classes,
                scheduler_config=self.scheduler_config,
            )
        except InvalidInput:
            return None

    def answer(self, change: Change | None) -> Run:
        """The question with ``change`` applied, answered again (None: as asked)."""
        objects = self.objects()
        if change is None:
            return self.run(objects)
        if isinstance(change, ObjectPatch):
            objects[change.object] = apply_patch(objects[change.object], change.patch)
            return self.run(objects)
        if isinstance(change, AddNodes):
            return self.run(objects, with_nodes(self.cluster, change.like, change.add_nodes))
        assert isinstance(change, CreateObjects)
        dra = [m for m in change.create if m.get("kind") in DRA_KINDS]
        budgets = [m for m in change.create if m.get("kind") not in DRA_KINDS]
        cluster = with_budgets(self.cluster, budgets) if budgets else self.cluster
        return self.run(objects, with_dra_objects(cluster, dra) if dra else cluster)


def with_nodes(cluster: Cluster, like: str, count: int) -> Cluster:
    """A view of ``cluster`` with ``count`` more nodes like ``like`` (its labels, taints
    and allocatable; no pods, no images), named ``<like>-like-1``... and labelled with
    their own hostname. The cached cluster is not changed: the view shares its nodes,
    pods and indexes (NodeInfos included: analyze and simulate never change them, a
    simulation clones a node's info before binding to it), so a run on it costs only
    the new nodes."""
    model = cluster.node_info_by_name[like].node
    view = copy.copy(cluster)
    view.nodes = list(cluster.nodes)
    view.node_infos = list(cluster.node_infos)
    view.node_info_by_name = dict(cluster.node_info_by_name)
    taken = set(view.node_info_by_name)
    n = 0
    for _ in range(count):
        n += 1
        while f"{like}-like-{n}" in taken:
            n += 1
        name = f"{like}-like-{n}"
        labels = dict(model.labels)
        if LABEL_HOSTNAME in labels:
            labels[LABEL_HOSTNAME] = name
        node = Node(
            name,
            labels=labels,
            taints=[dict(t) for t in model.taints],
            allocatable=dict(model.allocatable),
        )
        ni = NodeInfo(node)
        view.nodes.append(node)
        view.node_infos.append(ni)
        view.node_info_by_name[name] = ni
    return view


DRA_KINDS = ("ResourceClaim", "ResourceClaimTemplate")


def with_dra_objects(cluster: Cluster, manifests: Sequence[Mapping[str, Any]]) -> Cluster:
    """A view of ``cluster`` where these claims and templates replace the ones of the
    same namespace and name (the cached cluster is not changed)."""
    dra = cluster.dra
    claims = dict(dra.claims)
    templates = dict(dra.templates)
    for m in manifests:
        if m.get("kind") == "ResourceClaim":
            claim = ResourceClaim.from_dict(m)
            claims[claim.key] = claim
        else:
            template = ResourceClaimTemplate.from_dict(m)
            templates[f"{template.namespace}/{template.name}"] = template
    view = copy.copy(cluster)
    view.dra = dataclasses.replace(dra.with_claims(claims), templates=templates)
    return view


def with_budgets(cluster: Cluster, manifests: Sequence[Mapping[str, Any]]) -> Cluster:
    """A view of ``cluster`` with more PodDisruptionBudgets (Cluster.with_pdbs: only the
    pods they select are matched again). A budget created now, its pods all healthy,
    allows what the disruption controller computes from its spec: ``maxUnavailable``
    (an integer; the only form advice writes) disruptions."""
    return cluster.with_pdbs(
        [
            PDB.from_dict({**m, "status": {"disruptionsAllowed": int(m["spec"]["maxUnavailable"])}})
            for m in manifests
        ]
    )


@dataclass
class Run:
    """One engine run: the answer advice compares, and the engine's own record."""

    answer: Answer
    result: Result | None = None
    simulation: Simulation | None = None


def exceeded(cluster: Cluster, victims: Iterable[Pod]) -> tuple[str, ...]:
    """The budgets ``victims`` take more pods from than they allow ("namespace/name")."""
    taken: Counter[int] = Counter()
    for v in victims:
        taken.update(cluster.pdbs_for_pod(v))
    return tuple(
        sorted(
            f"{cluster.pdbs[i].namespace}/{cluster.pdbs[i].name}"
            for i, n in taken.items()
            if n > cluster.pdbs[i].disruptions_allowed
        )
    )


def pod_answer(result: Result) -> Answer:
    chosen = result.preemption.chosen if result.preemption is not None else None
    victims = chosen.victims.pods if chosen is not None else []
    return Answer(
        outcome=result.outcome.value,
        node=result.node,
        victims=tuple(result.victims),
        pdbs_exceeded=exceeded(result.cluster, victims) if result.cluster is not None else (),
        pending=(result.pod,) if result.outcome.value == "unschedulable" else (),
    )


def workload_answer(sim: Simulation, own: Sequence[str]) -> Answer:
    wanted = set(own)
    mine = [p for p in sim.pods if p.pod in wanted]
    bound = [p for p in mine if p.bound]
    outcome = ALL_RUN if len(bound) >= len(mine) else SOME_RUN if bound else NONE_RUN
    return Answer(
        outcome=outcome,
        node=next((p.node for p in bound if p.node), None),
        victims=tuple(sim.deleted_victims),
        pdbs_exceeded=tuple(sorted(r.pdb for r in sim.pdb_report if r.exceeded)),
        pending=tuple(p.pod for p in mine if not p.bound),
    )
