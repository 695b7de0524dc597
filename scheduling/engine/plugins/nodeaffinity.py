"""NodeAffinity: nodeSelector and required node affinity filter; preferred terms score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..cluster import NodeInfo
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
    default_normalize_score,
    unresolvable,
)
from ..labels import NodeSelector, NodeSelectorTerm
from ..objects import Pod
from . import names

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"

# NodeAffinityArgs.addedAffinity parsed: the required selector and the weighted
# preferred terms every pod of the profile gets on top of its own.
AddedAffinity = tuple[NodeSelector | None, list[tuple[int, NodeSelectorTerm]]]


def parse_added_affinity(raw: Mapping[str, Any] | None) -> AddedAffinity:
    """NodeAffinityArgs.addedAffinity (a v1.NodeAffinity); InvalidInput with the field
    inside it."""
    if not raw:
        return None, []
    if not isinstance(raw, Mapping):
        raise InvalidInput("must be an object")
    req = raw.get("requiredDuringSchedulingIgnoredDuringExecution")
    required = (
        None
        if req is None
        else NodeSelector.parse(req, "requiredDuringSchedulingIgnoredDuringExecution")
    )
    preferred: list[tuple[int, NodeSelectorTerm]] = []
    for i, term in enumerate(raw.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        f = f"preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        if not isinstance(term, Mapping):
            raise InvalidInput("must be an object", field=f)
        weight = term.get("weight", 0)
        if isinstance(weight, bool) or not isinstance(weight, int):
            raise InvalidInput("must be an integer", field=f"{f}.weight")
        preferred.append(
            (weight, NodeSelectorTerm.parse(term.get("preference") or {}, f"{f}.preference"))
        )
    return required, preferred


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
        # A profile's addedAffinity (validated when the configuration was loaded).
        self.added_required, self.added_preferred = parse_added_affinity(
            handle.config.node_affinity_added
        )

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        req = pod.required_node_affinity
        if req is None and not pod.node_selector and self.added_required is None:
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
        added = self.added_required
        if added is not None and not added.matches(node_info.node.labels, node_info.name):
            return unresolvable(ERR_REASON_ENFORCED)
        if required_node_affinity_matches(pod, node_info):
            return SUCCESS
        return unresolvable(ERR_REASON_POD)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        if not pod.preferred_node_affinity and not self.added_preferred:
            return Status(Code.SKIP)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        labels = node_info.node.labels
        return sum(
            w
            for terms in (self.added_preferred, pod.preferred_node_affinity)
            for w, term in terms
            if term.matches(labels, node_info.name)
        )

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> None:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
