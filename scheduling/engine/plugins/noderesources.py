"""NodeResourcesFit (filter + LeastAllocated score) and NodeResourcesBalancedAllocation."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from ..cluster import NodeInfo
from ..framework import MAX_NODE_SCORE, SUCCESS, Code, CycleState, Handle, PreFilterResult, Status
from ..objects import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Pod
from . import names

_PRE_FILTER_KEY = "PreFilter" + names.NODE_RESOURCES_FIT
_NATIVE_ORDER = (CPU, MEMORY, EPHEMERAL_STORAGE)


def is_scalar_resource_name(name: str) -> bool:
    """schedutil.IsScalarResourceName: extended, hugepages, attachable volumes, prefixed native."""
    return "/" in name or name.startswith("hugepages-") or name.startswith("attachable-volumes-")


def fit_requests(pod: Pod) -> list[tuple[str, int]]:
    """The pod's requests in the order fitsRequest checks them: cpu, memory, storage, scalars."""
    req = pod.requests
    out = [(k, req[k]) for k in _NATIVE_ORDER if req.get(k)]
    out.extend(
        sorted(
            (k, v)
            for k, v in req.items()
            if v and k not in _NATIVE_ORDER and is_scalar_resource_name(k)
        )
    )
    return out


class InsufficientResource(NamedTuple):
    resource: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool


def fits_request(
    requests: list[tuple[str, int]], node_info: NodeInfo
) -> list[InsufficientResource]:
    """noderesources.fitsRequest: every resource the node lacks, in the scheduler's order."""
    out: list[InsufficientResource] = []
    alloc = node_info.node.allocatable
    allowed = alloc.get(PODS, 0)
    n = len(node_info.pods)
    if n + 1 > allowed:
        out.append(InsufficientResource(PODS, "Too many pods", 1, n, allowed, False))
    used = node_info.requested
    for name, want in requests:
        cap = alloc.get(name, 0)
        have = used.get(name, 0)
        if want > cap - have:
            out.append(
                InsufficientResource(name, f"Insufficient {name}", want, have, cap, want > cap)
            )
    return out


class _FitState:
    __slots__ = ("requests",)

    def __init__(self, requests: list[tuple[str, int]]) -> None:
        self.requests = requests

    def clone(self) -> _FitState:
        return self  # read-only after pre_filter


class Fit:
    name = names.NODE_RESOURCES_FIT

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self.resources = handle.config.fit_score_resources

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        state.write(_PRE_FILTER_KEY, _FitState(fit_requests(pod)))
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        fs: _FitState | None = state.get(_PRE_FILTER_KEY)
        requests = fs.requests if fs is not None else fit_requests(pod)
        insufficient = fits_request(requests, node_info)
        if not insufficient:
            return SUCCESS
        code = Code.UNSCHEDULABLE
        if any(r.unresolvable for r in insufficient):
            # The request exceeds the node's whole allocatable: no preemption can help.
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        return Status(code, *(r.reason for r in insufficient))

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        requested, allocatable = _requested_allocatable(
            self.resources, pod, node_info, use_requested=False
        )
        return least_requested_score(self.resources, requested, allocatable)


def _pod_request(pod: Pod, resource: str, use_requested: bool) -> int:
    """calculatePodResourceRequest for the pod being scheduled."""
    if not use_requested:
        if resource == CPU:
            return pod.score_cpu
        if resource == MEMORY:
            return pod.score_memory
    return pod.requests.get(resource, 0)


def _requested_allocatable(
    resources: list[tuple[str, int]], pod: Pod, node_info: NodeInfo, *, use_requested: bool
) -> tuple[list[int], list[int]]:
    """resourceAllocationScorer.calculateResourceAllocatableRequest for each resource."""
    requested: list[int] = []
    allocatable: list[int] = []
    alloc = node_info.node.allocatable
    for name, _ in resources:
        pod_req = _pod_request(pod, name, use_requested)
        if pod_req == 0 and is_scalar_resource_name(name):
            requested.append(0)
            allocatable.append(0)
            continue
        if name == CPU and not use_requested:
            node_req = node_info.non_zero_cpu
        elif name == MEMORY and not use_requested:
            node_req = node_info.non_zero_memory
        else:
            node_req = node_info.requested.get(name, 0)
        a = alloc.get(name, 0)
        requested.append(node_req + pod_req if a else 0)
        allocatable.append(a)
    return requested, allocatable


def least_requested_score(
    resources: list[tuple[str, int]], requested: list[int], allocatable: list[int]
) -> int:
    node_score = 0
    weight_sum = 0
    for (_, weight), req, cap in zip(resources, requested, allocatable, strict=True):
        if cap == 0:
            continue
        score = 0 if req > cap else (cap - req) * MAX_NODE_SCORE // cap
        node_score += score * weight
        weight_sum += weight
    return node_score // weight_sum if weight_sum else 0


def balanced_resource_score(requested: list[int], allocatable: list[int]) -> int:
    fractions: list[float] = []
    total = 0.0
    for req, cap in zip(requested, allocatable, strict=True):
        if cap == 0:
            continue
        f = min(req / cap, 1.0)
        total += f
        fractions.append(f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        std = math.sqrt(sum((f - mean) ** 2 for f in fractions) / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


class BalancedAllocation:
    name = names.NODE_RESOURCES_BALANCED_ALLOCATION

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self.resources = handle.config.balanced_resources

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        # Best-effort pods are not balanced: scoring them would pile them on one node.
        if all(_pod_request(pod, name, True) == 0 for name, _ in self.resources):
            return Status(Code.SKIP)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        requested, allocatable = _requested_allocatable(
            self.resources, pod, node_info, use_requested=True
        )
        return balanced_resource_score(requested, allocatable)
