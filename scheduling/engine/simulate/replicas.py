"""Reusing what an unchanged node already answered for an identical replica.

Replicas of one template ask every node the same question. When the pod's filters
and scores depend on each node alone (InterPodAffinity and PodTopologySpread skip
the pod at PreFilter and PreScore, and only TaintToleration and NodeAffinity
normalize), a node's filter status, its raw plugin scores and its preemption dry run
hold until that node changes (a pod bound or deleted there, a nomination to it).
ReplicaCache keeps them per template and recomputes only the nodes changed since its
last cycle; normalizing and totalling the scores is done over arrays. A replica that
fits nowhere reads its Diagnosis, FailedScheduling message and preemption from what
changed too (diagnosis.py, dryrun.py). The answers are the engine's own functions'
answers: this only decides when to call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..cluster import NodeInfo
from ..framework import MAX_NODE_SCORE, CycleState, ScorePlugin
from ..message import fit_error_message_of_counts
from ..objects import Pod
from ..plugins import names
from ..preemption.evaluator import DryRunCache, PreemptionResult, preempt
from ..runtime import Framework
from ..schedule import HOST_SCORED, HOST_SINGLE, Diagnosis, ScheduleResult
from .diagnosis import LiveDiagnosis
from .dryrun import DryRunIndex
from .state import ClusterState

# Plugins whose filter answer may depend on other nodes' pods: with any active for
# a pod, nothing is cached for it (VolumeRestrictions counts the pods using a
# ReadWriteOncePod claim across the cluster; DynamicResources sees claims allocated
# anywhere).
CROSS_NODE = frozenset(
    {
        names.INTER_POD_AFFINITY,
        names.POD_TOPOLOGY_SPREAD,
        names.VOLUME_RESTRICTIONS,
        names.DYNAMIC_RESOURCES,
    }
)
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
        # The claims (by name) and inline disks: each replica of a StatefulSet has its own.
        pod.volumes,
    )


def cacheable(state: CycleState, framework: Framework) -> bool:
    present = {p.name for p in framework.plugins}
    return all(n in state.skip_filter_plugins or n not in present for n in CROSS_NODE)


@dataclass
class ReplicaCache:
    """One template's answers, node by node, in the order of ClusterState.node_infos."""

    state: ClusterState
    synced: int = -1  # how much of state.changes has been applied
    live: LiveDiagnosis = field(default_factory=lambda: LiveDiagnosis(()))
    scores: dict[str, npt.NDArray[np.int64]] = field(default_factory=dict)
    score_plugins: tuple[str, ...] = ()
    dry_runs: DryRunCache = field(default_factory=dict)
    dry_run: DryRunIndex = field(default_factory=DryRunIndex)
    plugins: dict[str, ScorePlugin] = field(default_factory=dict)

    def _compute(self, fw: Framework, cs: CycleState, pod: Pod, i: int, ni: NodeInfo) -> None:
        status = fw.run_filter_with_nominated_pods(cs, pod, ni)
        verdict = None if status.is_success() else status
        self.live.set(i, verdict)
        self.dry_run.update(i, ni.name, verdict)
        self.dry_runs.pop(ni.name, None)
        if status.is_success():
            for name in self.score_plugins:
                self.scores[name][i] = self.plugins[name].score(cs, pod, ni)

    def sync(self, fw: Framework, cs: CycleState, pod: Pod) -> None:
        infos = self.state.node_infos
        if self.synced < 0:
            self.live = LiveDiagnosis([ni.name for ni in infos])
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
        if not self.live.feasible:
            diagnosis = Diagnosis(node_to_status=self.live.node_to_status())
            return ScheduleResult(feasible=[], diagnosis=diagnosis)
        feasible_idx = [i for i, s in enumerate(self.live.statuses) if s is None]
        feasible = [infos[i] for i in feasible_idx]
        result = ScheduleResult(feasible=feasible, diagnosis=Diagnosis())
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

    def preempt(
        self, fw: Framework, cs: CycleState, pod: Pod, diagnosis: Diagnosis
    ) -> PreemptionResult:
        """PostFilter for a pod that fits nowhere (``diagnosis`` is schedule's)."""
        got = self.dry_run.preempt(fw, cs, pod, diagnosis, self.state.node_infos, self.dry_runs)
        return got if got is not None else preempt(fw, cs, pod, diagnosis, self.dry_runs)

    def fit_error_message(self, diagnosis: Diagnosis, num_all_nodes: int, post: str) -> str:
        """FitError.Error() for a pod that fits nowhere, from the live counts."""
        live = self.live
        return fit_error_message_of_counts(
            num_all_nodes,
            live.reason_lists,
            len(live.statuses) - live.feasible,
            diagnosis.absent_status,
            diagnosis.pre_filter_msg,
            post,
        )

    def unschedulable_plugins(self) -> frozenset[str]:
        return self.live.unschedulable_plugins()

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
