"""PodTopologySpread: DoNotSchedule constraints filter, ScheduleAnyway constraints score.

Mirrors pkg/scheduler/framework/plugins/podtopologyspread (plugin.go, common.go,
filtering.go, scoring.go) in v1.35 with its default feature gates (node inclusion
policies and matchLabelKeys on):

* PreFilter counts, per constraint and topology value, the pods of the incoming pod's
  namespace that match the constraint's selector (terminating pods aside) on the nodes
  that carry every constraint's topology key and pass the constraint's
  nodeAffinityPolicy (default Honor) and nodeTaintsPolicy (default Ignore). Two
  "critical paths" per constraint track the smallest counts, updated by AddPod/RemovePod
  exactly as the real ``criticalPaths.update`` does. Skip without DoNotSchedule constraints.
* Filter: a node without a constraint's key is UnschedulableAndUnresolvable
  ("... (missing required label)"); a skew (count on the node's domain + 1 if the pod
  matches itself - global minimum, or 0 while fewer than minDomains domains exist)
  above maxSkew is Unschedulable.
* PreScore/Score/NormalizeScore for ScheduleAnyway constraints, with the topology
  weight log(domains + 2); Skip without them.

System default constraints (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) apply
only to a pod without constraints of its own that a Service, ReplicationController,
ReplicaSet or StatefulSet selects (helper.DefaultSelector). A snapshot holds none of
those objects, so the default selector is empty and the defaults yield no constraint,
as the real scheduler does with no such objects in its informers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..cluster import Cluster, NodeInfo
from ..errors import InvalidInput
from ..framework import (
    MAX_NODE_SCORE,
    SUCCESS,
    Code,
    CycleState,
    Handle,
    NodeScore,
    PreFilterResult,
    Status,
    unresolvable,
    unschedulable,
)
from ..labels import LabelSelector, Requirement
from ..objects import Pod
from . import names
from .nodeaffinity import required_node_affinity_matches
from .podindex import node_pods_in_namespace
from .tainttoleration import toleration_tolerates

PRE_FILTER_STATE_KEY = "PreFilter" + names.POD_TOPOLOGY_SPREAD
PRE_SCORE_STATE_KEY = "PreScore" + names.POD_TOPOLOGY_SPREAD

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"

MAX_INT32 = 2**31 - 1
_INVALID_SCORE = -1

# plugin.go systemDefaultConstraints
SYSTEM_DEFAULT_CONSTRAINTS: list[dict[str, Any]] = [
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_TOPOLOGY_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
]

# helper.DoNotScheduleTaintsFilterFunc: the taint effects nodeTaintsPolicy=Honor checks.
_DO_NOT_SCHEDULE_EFFECTS = ("NoSchedule", "NoExecute")


class TopologySpreadConstraint:
    """topologySpreadConstraint: a v1.TopologySpreadConstraint with its selector parsed."""

    __slots__ = (
        "max_skew",
        "min_domains",
        "node_affinity_policy",
        "node_taints_policy",
        "selector",
        "topology_key",
    )

    def __init__(
        self,
        max_skew: int,
        topology_key: str,
        selector: LabelSelector,
        min_domains: int = 1,
        node_affinity_policy: str = HONOR,
        node_taints_policy: str = IGNORE,
    ) -> None:
        self.max_skew = max_skew
        self.topology_key = topology_key
        self.selector = selector
        self.min_domains = min_domains
        self.node_affinity_policy = node_affinity_policy
        self.node_taints_policy = node_taints_policy

    def match_node_inclusion_policies(self, pod: Pod, node_info: NodeInfo) -> bool:
        if self.node_affinity_policy == HONOR and not required_node_affinity_matches(
            pod, node_info
        ):
            return False
        if self.node_taints_policy == HONOR:
            for taint in node_info.node.taints:
                if taint["effect"] not in _DO_NOT_SCHEDULE_EFFECTS:
                    continue
                if not any(toleration_tolerates(t, taint) for t in pod.tolerations):
                    return False
        return True


def merge_label_set_with_selector(
    match_labels: Mapping[str, str], selector: LabelSelector
) -> LabelSelector:
    """mergeLabelSetWithSelector: the pod's values of matchLabelKeys AND the selector;
    a selector that matches nothing stays so."""
    if selector.nothing:
        return selector
    reqs: list[Requirement] = [(k, "In", frozenset((v,))) for k, v in sorted(match_labels.items())]
    reqs.extend(selector.requirements)
    return LabelSelector(reqs)


def _int_field(raw: Mapping[str, Any], key: str, field: str, default: int | None = None) -> int:
    value = raw.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput("must be an integer", field=f"{field}.{key}")
    return value


def filter_topology_spread_constraints(
    constraints: Sequence[Mapping[str, Any]], pod_labels: Mapping[str, str], action: str
) -> list[TopologySpreadConstraint]:
    """filterTopologySpreadConstraints: the constraints with ``whenUnsatisfiable == action``."""
    out: list[TopologySpreadConstraint] = []
    for i, c in enumerate(constraints):
        if c.get("whenUnsatisfiable") != action:
            continue
        field = f"spec.topologySpreadConstraints[{i}]"
        selector = LabelSelector.parse(c.get("labelSelector"), f"{field}.labelSelector")
        match_label_keys = c.get("matchLabelKeys") or []
        if match_label_keys:
            match_labels = {k: pod_labels[k] for k in match_label_keys if k in pod_labels}
            if match_labels:
                selector = merge_label_set_with_selector(match_labels, selector)
        out.append(
            TopologySpreadConstraint(
                max_skew=_int_field(c, "maxSkew", field),
                topology_key=str(c.get("topologyKey") or ""),
                selector=selector,
                min_domains=_int_field(c, "minDomains", field, 1),
                node_affinity_policy=str(c.get("nodeAffinityPolicy") or HONOR),
                node_taints_policy=str(c.get("nodeTaintsPolicy") or IGNORE),
            )
        )
    return out


def default_selector(cluster: Cluster, pod: Pod) -> LabelSelector:
    """helper.DefaultSelector: the selectors of the Services, ReplicationControllers,
    ReplicaSets and StatefulSets that select the pod, ANDed. The engine's Cluster holds
    no such objects, so this is the empty selector (Empty() true)."""
    return LabelSelector([])


def node_labels_match_spread_constraints(
    labels: Mapping[str, str], constraints: Sequence[TopologySpreadConstraint]
) -> bool:
    """Whether the node carries every constraint's topology key."""
    return all(c.topology_key in labels for c in constraints)


def count_pods_match_selector(pods: Sequence[Pod], selector: LabelSelector, namespace: str) -> int:
    """countPodsMatchSelector: an empty selector counts nothing; terminating pods are skipped."""
    if selector.empty:
        return 0
    n = 0
    for p in pods:
        if p.deletion_timestamp is not None or p.namespace != namespace:
            continue
        if selector.matches(p.labels):
            n += 1
    return n


class CriticalPaths:
    """criticalPaths: the two topology values with the fewest matching pods, maintained
    incrementally the way the real code does (path 0 always holds the minimum)."""

    __slots__ = ("num0", "num1", "value0", "value1")

    def __init__(self) -> None:
        self.value0 = ""
        self.num0 = MAX_INT32
        self.value1 = ""
        self.num1 = MAX_INT32

    def copy(self) -> CriticalPaths:
        c = CriticalPaths.__new__(CriticalPaths)
        c.value0, c.num0, c.value1, c.num1 = self.value0, self.num0, self.value1, self.num1
        return c

    def update(self, tp_val: str, num: int) -> None:
        if tp_val == self.value0:
            self.num0 = num
            if self.num0 > self.num1:
                self._swap()
        elif tp_val == self.value1:
            self.num1 = num
            if self.num0 > self.num1:
                self._swap()
        elif num < self.num0:
            self.value1, self.num1 = self.value0, self.num0
            self.value0, self.num0 = tp_val, num
        elif num < self.num1:
            self.value1, self.num1 = tp_val, num

    def _swap(self) -> None:
        self.value0, self.num0, self.value1, self.num1 = (
            self.value1,
            self.num1,
            self.value0,
            self.num0,
        )


class PreFilterState:
    __slots__ = ("constraints", "critical_paths", "tp_value_to_match_num")

    def __init__(
        self,
        constraints: list[TopologySpreadConstraint],
        critical_paths: list[CriticalPaths],
        tp_value_to_match_num: list[dict[str, int]],
    ) -> None:
        self.constraints = constraints
        self.critical_paths = critical_paths
        # per constraint: topology value -> number of matching pods
        self.tp_value_to_match_num = tp_value_to_match_num

    def clone(self) -> PreFilterState:
        return PreFilterState(
            self.constraints,
            [p.copy() for p in self.critical_paths],
            [dict(m) for m in self.tp_value_to_match_num],
        )

    def min_match_num(self, i: int, min_domains: int) -> int:
        """The global minimum, 0 while fewer than minDomains domains are eligible."""
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return self.critical_paths[i].num0

    def update_with_pod(
        self, updated: Pod, preemptor: Pod, node_info: NodeInfo, delta: int
    ) -> None:
        """updateWithPod. Unlike PreFilter's count it neither skips terminating pods nor
        treats an empty selector as matching nothing, as in the real code."""
        if updated.namespace != preemptor.namespace:
            return
        labels = node_info.node.labels
        if not node_labels_match_spread_constraints(labels, self.constraints):
            return
        for i, c in enumerate(self.constraints):
            if not c.selector.matches(updated.labels):
                continue
            if not c.match_node_inclusion_policies(preemptor, node_info):
                continue
            v = labels[c.topology_key]
            counts = self.tp_value_to_match_num[i]
            n = counts.get(v, 0) + delta
            counts[v] = n
            self.critical_paths[i].update(v, n)


class PreScoreState:
    __slots__ = (
        "constraints",
        "ignored_nodes",
        "topology_normalizing_weight",
        "topology_value_to_pod_counts",
    )

    def __init__(self) -> None:
        self.constraints: list[TopologySpreadConstraint] = []
        # nodes missing some constraint's topology key: scored 0
        self.ignored_nodes: set[str] = set()
        # per constraint (non-hostname): topology value -> matching pods
        self.topology_value_to_pod_counts: list[dict[str, int]] = []
        self.topology_normalizing_weight: list[float] = []

    def clone(self) -> PreScoreState:
        return self


def topology_normalizing_weight(size: int) -> float:
    return math.log(size + 2)


def score_for_count(cnt: int, max_skew: int, tp_weight: float) -> float:
    return float(cnt) * tp_weight + float(max_skew - 1)


def _round_half_away(x: float) -> int:
    """Go's math.Round (half away from zero), exactly."""
    if x < 0:
        return -_round_half_away(-x)
    r = math.floor(x)
    return int(r + 1) if x - r >= 0.5 else int(r)


class PodTopologySpread:
    name = names.POD_TOPOLOGY_SPREAD

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        # PodTopologySpreadArgs.defaultingType: System -> the system default constraints.
        self.system_defaulted = handle.config.pod_topology_spread_system_defaults
        # defaultingType List: the configured defaultConstraints.
        listed = handle.config.pod_topology_spread_default_constraints
        self.default_constraints: list[dict[str, Any]] = (
            SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else list(listed or [])
        )

    def _build_default_constraints(self, pod: Pod, action: str) -> list[TopologySpreadConstraint]:
        """buildDefaultConstraints: the defaults with the pod's controllers' selector."""
        constraints = filter_topology_spread_constraints(
            self.default_constraints, pod.labels, action
        )
        if not constraints:
            return []
        selector = default_selector(self.handle.cluster, pod)
        if selector.empty:
            return []
        for c in constraints:
            c.selector = selector
        return constraints

    def _constraints(self, pod: Pod, action: str) -> list[TopologySpreadConstraint]:
        if pod.topology_spread_constraints:
            return filter_topology_spread_constraints(
                pod.topology_spread_constraints, pod.labels, action
            )
        return self._build_default_constraints(pod, action)

    def hard_constraints(self, pod: Pod) -> list[TopologySpreadConstraint]:
        """getConstraints: the pod's DoNotSchedule constraints (or the defaulted ones), as
        the queueing hint reads them; none when they do not parse."""
        try:
            return self._constraints(pod, DO_NOT_SCHEDULE)
        except InvalidInput:
            return []

    # PreFilter -----------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        try:
            constraints = self._constraints(pod, DO_NOT_SCHEDULE)
        except InvalidInput as e:
            return None, Status(Code.ERROR, f"get constraints from pod: {e}")
        if not constraints:
            return None, Status(Code.SKIP)
        cluster = self.handle.cluster
        ns = pod.namespace
        counts: list[dict[str, int]] = [{} for _ in constraints]
        for ni in nodes:
            labels = ni.node.labels
            if not node_labels_match_spread_constraints(labels, constraints):
                continue
            pods: Sequence[Pod] | None = None
            for i, c in enumerate(constraints):
                if not c.match_node_inclusion_policies(pod, ni):
                    continue
                if pods is None:
                    pods = node_pods_in_namespace(cluster, ni, ns)
                value = labels[c.topology_key]
                by_value = counts[i]
                by_value[value] = by_value.get(value, 0) + count_pods_match_selector(
                    pods, c.selector, ns
                )
        paths: list[CriticalPaths] = []
        for by_value in counts:
            p = CriticalPaths()
            for value, num in by_value.items():
                p.update(value, num)
            paths.append(p)
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(constraints, paths, counts))
        return None, SUCCESS

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        s: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        s.update_with_pod(pod_to_add, pod_to_schedule, node_info, 1)
        return SUCCESS

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        s: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        s.update_with_pod(pod_to_remove, pod_to_schedule, node_info, -1)
        return SUCCESS

    # Filter --------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        if not s.constraints:
            return SUCCESS
        labels = node_info.node.labels
        for i, c in enumerate(s.constraints):
            tp_val = labels.get(c.topology_key)
            if tp_val is None:
                return unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
            min_match_num = s.min_match_num(i, c.min_domains)
            self_match_num = 1 if c.selector.matches(pod.labels) else 0
            match_num = s.tp_value_to_match_num[i].get(tp_val, 0)
            if match_num + self_match_num - min_match_num > c.max_skew:
                return unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return SUCCESS

    # Score ---------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        cluster = self.handle.cluster
        all_nodes = cluster.node_infos
        if not all_nodes:
            return Status(Code.SKIP)
        # Only non-system-default constraints require every topology label, so that
        # nodes without a zone still get hostname spreading.
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        try:
            constraints = self._constraints(pod, SCHEDULE_ANYWAY)
        except InvalidInput as e:
            return Status(Code.ERROR, f"calculating preScoreState: {e}")
        if not constraints:
            return Status(Code.SKIP)
        s = PreScoreState()
        s.constraints = constraints
        s.topology_value_to_pod_counts = [{} for _ in constraints]
        topo_size = [0] * len(constraints)
        for ni in nodes:
            labels = ni.node.labels
            if require_all and not node_labels_match_spread_constraints(labels, constraints):
                s.ignored_nodes.add(ni.name)
                continue
            for i, c in enumerate(constraints):
                if c.topology_key == LABEL_HOSTNAME:
                    continue  # counted per node in Score
                value = labels.get(c.topology_key, "")
                by_value = s.topology_value_to_pod_counts[i]
                if value not in by_value:
                    by_value[value] = 0
                    topo_size[i] += 1
        for i, c in enumerate(constraints):
            size = topo_size[i]
            if c.topology_key == LABEL_HOSTNAME:
                size = len(nodes) - len(s.ignored_nodes)
            s.topology_normalizing_weight.append(topology_normalizing_weight(size))

        ns = pod.namespace
        for ni in all_nodes:
            labels = ni.node.labels
            if require_all and not node_labels_match_spread_constraints(labels, constraints):
                continue
            for i, c in enumerate(constraints):
                if not c.match_node_inclusion_policies(pod, ni):
                    continue
                value = labels.get(c.topology_key, "")
                by_value = s.topology_value_to_pod_counts[i]
                if value not in by_value:
                    continue  # no candidate node in that domain (and hostname, done in Score)
                pods = node_pods_in_namespace(cluster, ni, ns)
                by_value[value] += count_pods_match_selector(pods, c.selector, ns)
        state.write(PRE_SCORE_STATE_KEY, s)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        s: PreScoreState = state.read(PRE_SCORE_STATE_KEY)
        if node_info.name in s.ignored_nodes:
            return 0
        labels = node_info.node.labels
        total = 0.0
        for i, c in enumerate(s.constraints):
            tp_val = labels.get(c.topology_key)
            if tp_val is None:
                continue
            if c.topology_key == LABEL_HOSTNAME:
                pods = node_pods_in_namespace(self.handle.cluster, node_info, pod.namespace)
                cnt = count_pods_match_selector(pods, c.selector, pod.namespace)
            else:
                cnt = s.topology_value_to_pod_counts[i].get(tp_val, 0)
            total += score_for_count(cnt, c.max_skew, s.topology_normalizing_weight[i])
        return _round_half_away(total)

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> None:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return
        min_score = 2**63 - 1
        max_score = 0
        for ns in scores:
            if ns.name in s.ignored_nodes:
                ns.score = _INVALID_SCORE
                continue
            min_score = min(min_score, ns.score)
            max_score = max(max_score, ns.score)
        for ns in scores:
            if ns.score == _INVALID_SCORE:
                ns.score = 0
                continue
            if max_score == 0:
                ns.score = MAX_NODE_SCORE
                continue
            ns.score = MAX_NODE_SCORE * (max_score + min_score - ns.score) // max_score
