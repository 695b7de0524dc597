"""Reusing what an unchanged node already answered for an identical replica.

Replicas of one template ask every node the same question. When the pod's filters
and scores depend on each node alone (InterPodAffinity and PodTopologySpread skip
the pod at PreFilter and PreScore, and only TaintToleration and NodeAffinity
normalize), a node's filter status, its raw plugin scores and its preemption dry run
hold until that node changes (a pod bound or deleted there, a nomination to it).
ReplicaCache keeps them per template and recomputes only the nodes changed since its
last cycle; normalizing and totalling the scores is done over arrays. The answers
are the engine's own functions' answers: this only decides when to call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..cluster import NodeInfo
from ..framework import MAX_NODE_SCORE, CycleState, ScorePlugin, Status
from ..objects import Pod
from ..plugins import names
from ..preemption.evaluator import DryRunCache
from ..runtime import Framework
from ..schedule import HOST_SCORED, HOST_SINGLE, Diagnosis, ScheduleResult
from .state import ClusterState

# Plugins whose filter answer may depend on other nodes' pods: with either active for
# a pod, nothing is cached for it.
CROSS_NODE = frozenset({names.INTER_POD_AFFINITY, names.POD_TOPOLOGY_SPREAD})
# Score plugins that normalize with helper.DefaultNormalizeScore, and whether reversed.
DEFAULT_NORMALIZED = {names.TAINT_TOLERATION: True, names.NODE_AFFINITY: False}


def template_key(pod: Pod) -> tuple[object, ...]:
    """What the filters, scores and victim selection read of a pending pod: replicas of
    one template share it, whatever their names."""
    return (
        pod.namespace,
        pod.priority,
        pod.preemption_policy,
        pod.scheduler_name,
        tuple(sorted(pod.labels.items())),
        tuple(sorted(pod.requests.items())),
        pod.non_zero_cpu,
        pod.non_zero_memory,
        pod.score_cpu,
        pod.score_memory,
        pod.num_containers,
        repr(pod.tolerations),
        tuple(sorted(pod.node_selector.items())),
        repr(pod.affinity),
        repr(pod.topology_spread_constraints),
        tuple(pod.host_ports),
        tuple(pod.images),
    )


def cacheable(state: CycleState, framework: Framework) -> bool:
    present = {p.name for p in framework.plugins}
    return all(n in state.skip_filter_plugins or n not in present for n in CROSS_NODE)


@dataclass
class ReplicaCache:
    """One template's answers, node by node, in the order of ClusterState.node_infos."""

    state: ClusterState
    synced: int = -1  # how much of state.changes has been applied
    statuses: list[Status | None] = field(default_factory=list)  # None: feasible
    scores: dict[str, npt.NDArray[np.int64]] = field(default_factory=dict)
    score_plugins: tuple[str, ...] = ()
    dry_runs: DryRunCache = field(default_factory=dict)
    plugins: dict[str, ScorePlugin] = field(default_factory=dict)

    def _compute(self, fw: Framework, cs: CycleState, pod: Pod, i: int, ni: NodeInfo) -> None:
        status = fw.run_filter_with_nominated_pods(cs, pod, ni)
        self.statuses[i] = None if status.is_success() else status
        self.dry_runs.pop(ni.name, None)
        if status.is_success():
            for name in self.score_plugins:
                self.scores[name][i] = self.plugins[name].score(cs, pod, ni)

    def sync(self, fw: Framework, cs: CycleState, pod: Pod) -> None:
        infos = self.state.node_infos
        if self.synced < 0:
            self.statuses = [None] * len(infos)
            self.score_plugins = tuple(
                p.name for p in fw.score_plugins if p.name not in cs.skip_score_plugins
            )
            self.scores = {n: np.zeros(len(infos), dtype=np.int64) for n in self.score_plugins}
            self.plugins = {p.name: p for p in fw.score_plugins}
            todo: Sequence[int] = range(len(infos))
        else:
            index = self.state.index_of
            todo = sorted({index[n] for n in self.state.changes[self.synced :]})
        for i in todo:
            self._compute(fw, cs, pod, i, infos[i])
        self.synced = len(self.state.changes)

    def schedule(self, fw: Framework, cs: CycleState, pod: Pod) -> ScheduleResult | None:
        """schedulePod from the cache; None when the pod's own nomination makes one of
        its nodes special (the caller then runs the plain path)."""
        self.sync(fw, cs, pod)
        infos = self.state.node_infos
        feasible_idx = [i for i, s in enumerate(self.statuses) if s is None]
        diagnosis = Diagnosis()
        if not feasible_idx:
            for i, s in enumerate(self.statuses):
                assert s is not None
                diagnosis.node_to_status[infos[i].name] = s
            return ScheduleResult(feasible=[], diagnosis=diagnosis)
        feasible = [infos[i] for i in feasible_idx]
        result = ScheduleResult(feasible=feasible, diagnosis=diagnosis)
        if len(feasible) == 1:
            result.host = feasible[0].name
            result.host_selection = HOST_SINGLE
            result.top_nodes = [result.host]
            return result
        idx = np.asarray(feasible_idx)
        total = np.zeros(len(idx), dtype=np.int64)
        for name in self.score_plugins:
            raw = self.scores[name][idx]
            if name in DEFAULT_NORMALIZED:
                raw = default_normalize(raw, DEFAULT_NORMALIZED[name])
            total += raw * fw.weights.get(name, 1)
        best = total.max()
        result.top_nodes = sorted(infos[int(i)].name for i in idx[total == best])
        result.host = result.top_nodes[0]
        result.host_selection = HOST_SCORED
        return result

    def can_score(self, fw: Framework, cs: CycleState) -> bool:
        """Only TaintToleration and NodeAffinity may normalize (others are cross-node)."""
        for p in fw.score_plugins:
            if p.name in cs.skip_score_plugins:
                continue
            if hasattr(p, "normalize_score") and p.name not in DEFAULT_NORMALIZED:
                return False
        return True


def default_normalize(raw: npt.NDArray[np.int64], reverse: bool) -> npt.NDArray[np.int64]:
    """helper.DefaultNormalizeScore over an array (integer division, as in Go)."""
    top = int(raw.max()) if len(raw) else 0
    if top == 0:
        return np.full_like(raw, MAX_NODE_SCORE) if reverse else raw
    scaled = MAX_NODE_SCORE * raw // top
    return MAX_NODE_SCORE - scaled if reverse else scaled
