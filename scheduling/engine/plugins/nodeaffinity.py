"""NodeAffinity: nodeSelector and required node affinity filter; preferred terms score."""

from __future__ import annotations

from collections.abc import Sequence

from ..cluster import NodeInfo
from ..framework import (
    MAX_NODE_SCORE,
    SUCCESS,
    Code,
    CycleState,
    Handle,
    NodeScore,
    PreFilterResult,
    Status,
    default_normalize_score,
    unresolvable,
)
from ..objects import Pod
from . import names

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


def required_node_affinity_matches(pod: Pod, node_info: NodeInfo) -> bool:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)."""
    labels = node_info.node.labels
    for k, v in pod.node_selector.items():
        if labels.get(k) != v:
            return False
    req = pod.required_node_affinity
    return req is None or req.matches(labels, node_info.name)


class NodeAffinity:
    name = names.NODE_AFFINITY

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        req = pod.required_node_affinity
        if req is None and not pod.node_selector:
            return None, Status(Code.SKIP)
        if req is None:
            return None, SUCCESS
        # A term naming nodes through matchFields metadata.name In [...] limits the
        # nodes to evaluate; the terms are ORed, so one term without it means all nodes.
        node_names: set[str] | None = None
        for term in req.terms:
            term_names: set[str] | None = None
            for key, op, values in term.fields:
                if key == "metadata.name" and op == "In":
                    term_names = set(values) if term_names is None else term_names & set(values)
            if term_names is None:
                return None, SUCCESS
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, unresolvable(ERR_REASON_CONFLICT)
        return (PreFilterResult(node_names) if node_names is not None else None), SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if required_node_affinity_matches(pod, node_info):
            return SUCCESS
        return unresolvable(ERR_REASON_POD)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        if not pod.preferred_node_affinity:
            return Status(Code.SKIP)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        labels = node_info.node.labels
        return sum(
            w for w, term in pod.preferred_node_affinity if term.matches(labels, node_info.name)
        )

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> None:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
