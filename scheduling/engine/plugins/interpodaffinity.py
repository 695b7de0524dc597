"""InterPodAffinity: required pod affinity / anti-affinity filter, preferred terms score.

Mirrors pkg/scheduler/framework/plugins/interpodaffinity (plugin.go, filtering.go,
scoring.go) and the affinity part of framework.PodInfo (types.go) in v1.35:

* PreFilter counts, per topology pair (key, value), the existing pods whose required
  anti-affinity terms match the incoming pod, the existing pods matching *all* the
  incoming pod's required affinity terms, and the existing pods matching each of its
  required anti-affinity terms. It returns Skip when the pod has no required terms
  and no existing pod's anti-affinity matches it.
* AddPod/RemovePod update those counts for one pod (nominated pods, preemption victims).
* Filter rejects with UnschedulableAndUnresolvable when the affinity is not satisfied
  (preemption can't create a matching pod), Unschedulable for either anti-affinity.
* PreScore sums term weights per topology pair: the incoming pod's preferred terms
  over every existing pod, and the existing pods' required affinity terms (with
  hardPodAffinityWeight) and preferred terms over the incoming pod. Skip when no term
  matched anywhere. NormalizeScore maps [min, max] onto [0, 100].

Namespaces: a term without ``namespaces`` and without ``namespaceSelector`` means the
pod's own namespace; ``namespaceSelector: {}`` means every namespace. A non-empty
selector on the incoming pod's terms is resolved against the Namespace objects of the
cluster, and existing pods' selectors are matched against the incoming pod's namespace
labels; a snapshot holds no Namespace objects, so (as for a scheduler whose namespace
lister has none) those selectors match nothing, and the namespace labels are empty.
``matchLabelKeys``/``mismatchLabelKeys`` are merged into the selector by the API
server when a pod is created; the scheduler reads only the selector, and so does this.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping, Sequence
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
from ..labels import LabelSelector
from ..objects import Pod
from . import names
from .podindex import pods_by_namespace

PRE_FILTER_STATE_KEY = "PreFilter" + names.INTER_POD_AFFINITY
PRE_SCORE_STATE_KEY = "PreScore" + names.INTER_POD_AFFINITY

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = (
    "node(s) didn't satisfy existing pods anti-affinity rules"
)
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"

_NOTHING = LabelSelector([], nothing=True)

TopologyPair = tuple[str, str]
TopologyCounts = dict[TopologyPair, int]


class AffinityTerm:
    """framework.AffinityTerm: a PodAffinityTerm with its selectors parsed."""

    __slots__ = ("namespace_selector", "namespaces", "selector", "topology_key")

    def __init__(
        self,
        namespaces: frozenset[str],
        selector: LabelSelector,
        topology_key: str,
        namespace_selector: LabelSelector,
    ) -> None:
        self.namespaces = namespaces
        self.selector = selector
        self.topology_key = topology_key
        self.namespace_selector = namespace_selector

    @classmethod
    def parse(cls, pod_namespace: str, raw: Any, field: str) -> AffinityTerm:
        if not isinstance(raw, Mapping):
            raise InvalidInput("must be an object", field=field)
        selector = LabelSelector.parse(raw.get("labelSelector"), f"{field}.labelSelector")
        raw_ns_selector = raw.get("namespaceSelector")
        ns_selector = LabelSelector.parse(raw_ns_selector, f"{field}.namespaceSelector")
        listed = raw.get("namespaces") or []
        if not isinstance(listed, list):
            raise InvalidInput("must be a list", field=f"{field}.namespaces")
        # getNamespacesFromPodAffinityTerm: neither namespaces nor a selector -> own namespace.
        if not listed and raw_ns_selector is None:
            namespaces = frozenset((pod_namespace,))
        else:
            namespaces = frozenset(str(n) for n in listed)
        return cls(namespaces, selector, str(raw.get("topologyKey") or ""), ns_selector)

    def matches(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
        """AffinityTerm.Matches: namespace (listed or selected), then the label selector."""
        if pod.namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(pod.labels)
        return False

    def all_namespaces(self) -> bool:
        """Whether the term may match a pod of any namespace (a selector still in place)."""
        return not self.namespace_selector.nothing


class WeightedAffinityTerm:
    __slots__ = ("term", "weight")

    def __init__(self, term: AffinityTerm, weight: int) -> None:
        self.term = term
        self.weight = weight


class PodAffinityInfo:
    """The affinity half of framework.PodInfo: the pod's four lists of parsed terms."""

    __slots__ = (
        "preferred_affinity",
        "preferred_anti_affinity",
        "required_affinity",
        "required_anti_affinity",
    )

    def __init__(
        self,
        required_affinity: list[AffinityTerm],
        required_anti_affinity: list[AffinityTerm],
        preferred_affinity: list[WeightedAffinityTerm],
        preferred_anti_affinity: list[WeightedAffinityTerm],
    ) -> None:
        self.required_affinity = required_affinity
        self.required_anti_affinity = required_anti_affinity
        self.preferred_affinity = preferred_affinity
        self.preferred_anti_affinity = preferred_anti_affinity

    def is_empty(self) -> bool:
        return not (
            self.required_affinity
            or self.required_anti_affinity
            or self.preferred_affinity
            or self.preferred_anti_affinity
        )


EMPTY_INFO = PodAffinityInfo([], [], [], [])


def _section(pod: Pod, kind: str) -> Mapping[str, Any]:
    raw = (pod.affinity or {}).get(kind)
    return raw if isinstance(raw, Mapping) else {}


def _parse_required(pod: Pod, kind: str) -> list[AffinityTerm]:
    where = f"spec.affinity.{kind}.{_REQUIRED}"
    raw = _section(pod, kind).get(_REQUIRED) or []
    if not isinstance(raw, list):
        raise InvalidInput("must be a list", field=where)
    return [AffinityTerm.parse(pod.namespace, t, f"{where}[{i}]") for i, t in enumerate(raw)]


def _parse_preferred(pod: Pod, kind: str) -> list[WeightedAffinityTerm]:
    where = f"spec.affinity.{kind}.{_PREFERRED}"
    raw = _section(pod, kind).get(_PREFERRED) or []
    if not isinstance(raw, list):
        raise InvalidInput("must be a list", field=where)
    out: list[WeightedAffinityTerm] = []
    for i, w in enumerate(raw):
        if not isinstance(w, Mapping):
            raise InvalidInput("must be an object", field=f"{where}[{i}]")
        weight = w.get("weight", 0)
        if isinstance(weight, bool) or not isinstance(weight, int):
            raise InvalidInput("must be an integer", field=f"{where}[{i}].weight")
        term = AffinityTerm.parse(
            pod.namespace, w.get("podAffinityTerm"), f"{where}[{i}].podAffinityTerm"
        )
        out.append(WeightedAffinityTerm(term, weight))
    return out


def parse_pod_affinity(pod: Pod, *, strict: bool = True) -> PodAffinityInfo:
    """The pod's parsed (anti-)affinity terms.

    ``strict=False`` is how the scheduler cache treats a bound pod: a list whose
    selector does not parse is dropped (logged), the other lists are kept.
    """
    if not pod.affinity:
        return EMPTY_INFO
    lists: list[Any] = []
    for parse, kind in (
        (_parse_required, "podAffinity"),
        (_parse_required, "podAntiAffinity"),
        (_parse_preferred, "podAffinity"),
        (_parse_preferred, "podAntiAffinity"),
    ):
        try:
            lists.append(parse(pod, kind))
        except InvalidInput:
            if strict:
                raise
            lists.append([])
    info = PodAffinityInfo(lists[0], lists[1], lists[2], lists[3])
    return EMPTY_INFO if info.is_empty() else info


# Parsed terms of the loaded pods, per Cluster; the entry keeps the pod alive so that
# its id() stays its own for as long as the cluster lives.
_TERMS: weakref.WeakKeyDictionary[Cluster, dict[int, tuple[Pod, PodAffinityInfo]]] = (
    weakref.WeakKeyDictionary()
)


def existing_pod_info(cluster: Cluster, pod: Pod) -> PodAffinityInfo:
    """PodInfo terms of a pod already in the cluster (bound, nominated or a victim)."""
    if not pod.affinity:
        return EMPTY_INFO
    cache = _TERMS.get(cluster)
    if cache is None:
        cache = {}
        _TERMS[cluster] = cache
    hit = cache.get(id(pod))
    if hit is not None and hit[0] is pod:
        return hit[1]
    info = parse_pod_affinity(pod, strict=False)
    cache[id(pod)] = (pod, info)
    return info


def namespace_labels(cluster: Cluster, namespace: str) -> Mapping[str, str] | None:
    """GetNamespaceLabelsSnapshot: the namespace's labels, None when it is unknown."""
    known: Mapping[str, Mapping[str, str]] | None = getattr(cluster, "namespace_labels", None)
    if known is None:
        return None
    return known.get(namespace)


def _merge_namespaces(cluster: Cluster, term: AffinityTerm) -> AffinityTerm:
    """mergeAffinityTermNamespacesIfNotEmpty: resolve a non-empty namespaceSelector of the
    incoming pod into names, and leave a selector that matches nothing."""
    if term.namespace_selector.empty:
        return term
    known: Mapping[str, Mapping[str, str]] = getattr(cluster, "namespace_labels", None) or {}
    selected = {ns for ns, labels in known.items() if term.namespace_selector.matches(labels)}
    return AffinityTerm(term.namespaces | selected, term.selector, term.topology_key, _NOTHING)


def incoming_pod_info(cluster: Cluster, pod: Pod) -> PodAffinityInfo:
    """The incoming pod's terms with namespace selectors merged (PreFilter / PreScore)."""
    info = parse_pod_affinity(pod, strict=True)
    if info is EMPTY_INFO:
        return info
    return PodAffinityInfo(
        [_merge_namespaces(cluster, t) for t in info.required_affinity],
        [_merge_namespaces(cluster, t) for t in info.required_anti_affinity],
        [
            WeightedAffinityTerm(_merge_namespaces(cluster, w.term), w.weight)
            for w in info.preferred_affinity
        ],
        [
            WeightedAffinityTerm(_merge_namespaces(cluster, w.term), w.weight)
            for w in info.preferred_anti_affinity
        ],
    )


def pod_matches_all_affinity_terms(terms: Sequence[AffinityTerm], pod: Pod) -> bool:
    """podMatchesAllAffinityTerms: false for no terms. The incoming pod's selectors were
    merged into its namespaces, so no namespace labels are needed."""
    if not terms:
        return False
    return all(t.matches(pod, None) for t in terms)


def _update(counts: TopologyCounts, labels: Mapping[str, str], key: str, value: int) -> None:
    tv = labels.get(key)
    if tv is None:
        return
    pair = (key, tv)
    n = counts.get(pair, 0) + value
    if n == 0:
        counts.pop(pair, None)
    else:
        counts[pair] = n


def _namespaces_of(terms: Sequence[AffinityTerm]) -> frozenset[str] | None:
    """The namespaces a pod must be in to match one of ``terms``; None for any."""
    out: set[str] = set()
    for t in terms:
        if t.all_namespaces():
            return None
        out |= t.namespaces
    return frozenset(out)


def _pods_per_node(
    cluster: Cluster, nodes: Sequence[NodeInfo], namespaces: frozenset[str] | None
) -> Iterator[tuple[NodeInfo, Sequence[Pod]]]:
    """(node, pods on it that may match) for every node with such pods."""
    if namespaces is None:
        for ni in nodes:
            if ni.pods:
                yield ni, ni.pods
        return
    if nodes is cluster.node_infos:
        index = pods_by_namespace(cluster)
        by_name = cluster.node_info_by_name
        for ns in sorted(namespaces):
            for node_name, pods in index.get(ns, {}).items():
                yield by_name[node_name], pods
        return
    for ni in nodes:
        pods = [p for p in ni.pods if p.namespace in namespaces]
        if pods:
            yield ni, pods


class PreFilterState:
    """preFilterState: three topology-pair counters and the incoming pod's terms."""

    __slots__ = (
        "affinity_counts",
        "anti_affinity_counts",
        "existing_anti_affinity_counts",
        "info",
        "namespace_labels",
        "pod",
    )

    def __init__(
        self,
        pod: Pod,
        info: PodAffinityInfo,
        namespace_labels: Mapping[str, str] | None,
        existing_anti_affinity_counts: TopologyCounts,
        affinity_counts: TopologyCounts,
        anti_affinity_counts: TopologyCounts,
    ) -> None:
        self.pod = pod
        self.info = info
        self.namespace_labels = namespace_labels
        # existing pods whose required anti-affinity terms match the incoming pod
        self.existing_anti_affinity_counts = existing_anti_affinity_counts
        # existing pods matching all the incoming pod's required affinity terms
        self.affinity_counts = affinity_counts
        # existing pods matching the incoming pod's required anti-affinity terms
        self.anti_affinity_counts = anti_affinity_counts

    def clone(self) -> PreFilterState:
        return PreFilterState(
            self.pod,
            self.info,
            self.namespace_labels,
            dict(self.existing_anti_affinity_counts),
            dict(self.affinity_counts),
            dict(self.anti_affinity_counts),
        )

    def update_with_pod(
        self, other: Pod, other_info: PodAffinityInfo, node_info: NodeInfo, multiplier: int
    ) -> None:
        """updateWithPod: account for ``other`` appearing on (+1) or leaving (-1) the node."""
        labels = node_info.node.labels
        for t in other_info.required_anti_affinity:
            if t.matches(self.pod, self.namespace_labels):
                _update(self.existing_anti_affinity_counts, labels, t.topology_key, multiplier)
        if pod_matches_all_affinity_terms(self.info.required_affinity, other):
            for t in self.info.required_affinity:
                _update(self.affinity_counts, labels, t.topology_key, multiplier)
        for t in self.info.required_anti_affinity:
            if t.matches(other, None):
                _update(self.anti_affinity_counts, labels, t.topology_key, multiplier)


def satisfy_existing_pods_anti_affinity(state: PreFilterState, node_info: NodeInfo) -> bool:
    counts = state.existing_anti_affinity_counts
    if counts:
        for pair in node_info.node.labels.items():
            if counts.get(pair, 0) > 0:
                return False
    return True


def satisfy_pod_anti_affinity(state: PreFilterState, node_info: NodeInfo) -> bool:
    counts = state.anti_affinity_counts
    if counts:
        labels = node_info.node.labels
        for t in state.info.required_anti_affinity:
            tv = labels.get(t.topology_key)
            if tv is not None and counts.get((t.topology_key, tv), 0) > 0:
                return False
    return True


def satisfy_pod_affinity(state: PreFilterState, node_info: NodeInfo) -> bool:
    pods_exist = True
    labels = node_info.node.labels
    counts = state.affinity_counts
    for t in state.info.required_affinity:
        tv = labels.get(t.topology_key)
        if tv is None:
            # All topology labels must exist on the node.
            return False
        if counts.get((t.topology_key, tv), 0) <= 0:
            pods_exist = False
    if not pods_exist:
        # The first pod of a series with affinity to itself: allowed when no pod in the
        # cluster matches the terms at all and the pod matches its own terms.
        return not counts and pod_matches_all_affinity_terms(
            state.info.required_affinity, state.pod
        )
    return True


class PreScoreState:
    __slots__ = ("topology_score",)

    def __init__(self, topology_score: dict[str, dict[str, int]]) -> None:
        # topology key -> topology value -> summed weight
        self.topology_score = topology_score

    def clone(self) -> PreScoreState:
        return self


class _ScoreMap:
    """scoreMap plus whether any term matched (the real code's per-node map being non-empty)."""

    __slots__ = ("matched", "scores")

    def __init__(self) -> None:
        self.scores: dict[str, dict[str, int]] = {}
        self.matched = False

    def process_term(
        self,
        term: AffinityTerm,
        weight: int,
        pod: Pod,
        ns_labels: Mapping[str, str] | None,
        labels: Mapping[str, str],
        multiplier: int,
    ) -> None:
        if term.matches(pod, ns_labels):
            tv = labels.get(term.topology_key)
            if tv is not None:
                by_value = self.scores.setdefault(term.topology_key, {})
                by_value[tv] = by_value.get(tv, 0) + weight * multiplier
                self.matched = True

    def process_terms(
        self,
        terms: Sequence[WeightedAffinityTerm],
        pod: Pod,
        ns_labels: Mapping[str, str] | None,
        labels: Mapping[str, str],
        multiplier: int,
    ) -> None:
        for w in terms:
            self.process_term(w.term, w.weight, pod, ns_labels, labels, multiplier)


class InterPodAffinity:
    name = names.INTER_POD_AFFINITY

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        config = handle.config
        self.hard_pod_affinity_weight = config.hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = (
            config.ignore_preferred_terms_of_existing_pods
        )

    # PreFilter -----------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        cluster = self.handle.cluster
        try:
            info = incoming_pod_info(cluster, pod)
        except InvalidInput as e:
            return None, unresolvable(f"parsing pod: {e}")
        ns_labels = namespace_labels(cluster, pod.namespace)

        existing: TopologyCounts = {}
        for ni in cluster.node_infos:
            with_anti = ni.pods_with_required_anti_affinity
            if not with_anti:
                continue
            labels = ni.node.labels
            for ep in with_anti:
                for t in existing_pod_info(cluster, ep).required_anti_affinity:
                    if t.matches(pod, ns_labels):
                        tv = labels.get(t.topology_key)
                        if tv is not None:
                            pair = (t.topology_key, tv)
                            existing[pair] = existing.get(pair, 0) + 1

        affinity_terms = info.required_affinity
        anti_terms = info.required_anti_affinity
        if not existing and not affinity_terms and not anti_terms:
            return None, Status(Code.SKIP)

        affinity: TopologyCounts = {}
        anti: TopologyCounts = {}
        if affinity_terms or anti_terms:
            namespaces = _namespaces_of([*affinity_terms, *anti_terms])
            for ni, pods in _pods_per_node(cluster, nodes, namespaces):
                labels = ni.node.labels
                for p in pods:
                    if affinity_terms and pod_matches_all_affinity_terms(affinity_terms, p):
                        for t in affinity_terms:
                            tv = labels.get(t.topology_key)
                            if tv is not None:
                                pair = (t.topology_key, tv)
                                affinity[pair] = affinity.get(pair, 0) + 1
                    for t in anti_terms:
                        if t.matches(p, None):
                            tv = labels.get(t.topology_key)
                            if tv is not None:
                                pair = (t.topology_key, tv)
                                anti[pair] = anti.get(pair, 0) + 1
        state.write(
            PRE_FILTER_STATE_KEY, PreFilterState(pod, info, ns_labels, existing, affinity, anti)
        )
        return None, SUCCESS

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        s: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        s.update_with_pod(
            pod_to_add, existing_pod_info(self.handle.cluster, pod_to_add), node_info, 1
        )
        return SUCCESS

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        s: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        s.update_with_pod(
            pod_to_remove, existing_pod_info(self.handle.cluster, pod_to_remove), node_info, -1
        )
        return SUCCESS

    # Filter --------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        if not satisfy_pod_affinity(s, node_info):
            return unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
        if not satisfy_pod_anti_affinity(s, node_info):
            return unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        if not satisfy_existing_pods_anti_affinity(s, node_info):
            return unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return SUCCESS

    # Score ---------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        cluster = self.handle.cluster
        has_constraints = bool(_section(pod, "podAffinity").get(_PREFERRED)) or bool(
            _section(pod, "podAntiAffinity").get(_PREFERRED)
        )
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status(Code.SKIP)
        try:
            info = incoming_pod_info(cluster, pod)
        except InvalidInput as e:
            return Status(Code.ERROR, f"failed to parse pod: {e}")
        ns_labels = namespace_labels(cluster, pod.namespace)
        hard_weight = self.hard_pod_affinity_weight
        topo = _ScoreMap()

        # Existing pods' terms, matched against the incoming pod (processExistingPod's
        # second half): only pods with affinity have any.
        for ni in cluster.node_infos:
            with_affinity = ni.pods_with_affinity
            if not with_affinity:
                continue
            labels = ni.node.labels
            if not labels:
                continue
            for ep in with_affinity:
                einfo = existing_pod_info(cluster, ep)
                if hard_weight > 0:
                    for t in einfo.required_affinity:
                        topo.process_term(t, hard_weight, pod, ns_labels, labels, 1)
                topo.process_terms(einfo.preferred_affinity, pod, ns_labels, labels, 1)
                topo.process_terms(einfo.preferred_anti_affinity, pod, ns_labels, labels, -1)

        # The incoming pod's preferred terms, matched against every existing pod.
        preferred = info.preferred_affinity
        preferred_anti = info.preferred_anti_affinity
        if has_constraints and (preferred or preferred_anti):
            namespaces = _namespaces_of([w.term for w in (*preferred, *preferred_anti)])
            for ni, pods in _pods_per_node(cluster, cluster.node_infos, namespaces):
                labels = ni.node.labels
                if not labels:
                    continue
                for p in pods:
                    topo.process_terms(preferred, p, None, labels, 1)
                    topo.process_terms(preferred_anti, p, None, labels, -1)

        if not topo.matched:
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(topo.scores))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        s: PreScoreState = state.read(PRE_SCORE_STATE_KEY)
        labels = node_info.node.labels
        total = 0
        for key, by_value in s.topology_score.items():
            tv = labels.get(key)
            if tv is not None:
                total += by_value.get(tv, 0)
        return total

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> None:
        s: PreScoreState = state.read(PRE_SCORE_STATE_KEY)
        if not s.topology_score or not scores:
            return
        max_count = max(ns.score for ns in scores)
        min_count = min(ns.score for ns in scores)
        diff = max_count - min_count
        for ns in scores:
            f = 0.0
            if diff > 0:
                f = float(MAX_NODE_SCORE) * (float(ns.score - min_count) / float(diff))
            ns.score = int(f)
