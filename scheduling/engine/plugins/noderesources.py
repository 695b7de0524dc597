"""NodeResourcesFit (filter + its scoring strategy) and NodeResourcesBalancedAllocation."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
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
    return fits_request_on(
        requests, node_info.node.allocatable, len(node_info.pods), node_info.requested
    )


def fits_request_on(
    requests: list[tuple[str, int]], alloc: dict[str, int], n: int, used: dict[str, int]
) -> list[InsufficientResource]:
    """fits_request on a node of ``alloc`` holding ``n`` pods that request ``used``."""
    out: list[InsufficientResource] = []
    allowed = alloc.get(PODS, 0)
    if n + 1 > allowed:
        out.append(InsufficientResource(PODS, "Too many pods", 1, n, allowed, False))
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


def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a prefixed name outside kubernetes.io and
    outside the "requests." quota prefix."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def _ignored(name: str, resources: frozenset[str], groups: frozenset[str]) -> bool:
    """NodeResourcesFitArgs.ignoredResources / ignoredResourceGroups: fitsRequest skips
    these extended resources."""
    if not is_extended_resource_name(name):
        return False
    return name in resources or name.split("/", 1)[0] in groups


# ScoringStrategy types (NodeResourcesFitArgs.scoringStrategy.type).
LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
# config.MaxCustomPriorityScore: the shape's scores are on 0..10.
_MAX_CUSTOM_PRIORITY_SCORE = 10


class Fit:
    name = names.NODE_RESOURCES_FIT

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        config = handle.config
        self.resources = config.fit_score_resources
        self.strategy = config.scoring_strategy
        # The shape scaled to MaxNodeScore, as requestedToCapacityRatioScorer builds it.
        self.shape = tuple(
            (u, s * (MAX_NODE_SCORE // _MAX_CUSTOM_PRIORITY_SCORE)) for u, s in config.fit_shape
        )
        self.ignored_resources = config.ignored_resources
        self.ignored_groups = config.ignored_resource_groups

    def _requests(self, pod: Pod) -> list[tuple[str, int]]:
        requests = fit_requests(pod)
        if self.ignored_resources or self.ignored_groups:
            requests = [
                (k, v)
                for k, v in requests
                if not _ignored(k, self.ignored_resources, self.ignored_groups)
            ]
        return requests

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        state.write(_PRE_FILTER_KEY, _FitState(self._requests(pod)))
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        fs: _FitState | None = state.get(_PRE_FILTER_KEY)
        requests = fs.requests if fs is not None else self._requests(pod)
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
        if self.strategy == MOST_ALLOCATED:
            return most_requested_score(self.resources, requested, allocatable)
        if self.strategy == REQUESTED_TO_CAPACITY_RATIO:
            return requested_to_capacity_ratio_score(
                self.resources, self.shape, requested, allocatable
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


def _weighted_mean(
    resources: list[tuple[str, int]],
    requested: list[int],
    allocatable: list[int],
    per_resource: Callable[[int, int], int],
) -> int:
    """The resources' scores averaged by weight, resources without capacity left out
    (leastResourceScorer and mostResourceScorer share this)."""
    node_score = 0
    weight_sum = 0
    for (_, weight), req, cap in zip(resources, requested, allocatable, strict=True):
        if cap == 0:
            continue
        node_score += per_resource(req, cap) * weight
        weight_sum += weight
    return node_score // weight_sum if weight_sum else 0


def _least_requested(req: int, cap: int) -> int:
    return 0 if req > cap else (cap - req) * MAX_NODE_SCORE // cap


def _most_requested(req: int, cap: int) -> int:
    # A request above the capacity (pods without requests count a minimum) is capped.
    return min(req, cap) * MAX_NODE_SCORE // cap


def least_requested_score(
    resources: list[tuple[str, int]], requested: list[int], allocatable: list[int]
) -> int:
    return _weighted_mean(resources, requested, allocatable, _least_requested)


def most_requested_score(
    resources: list[tuple[str, int]], requested: list[int], allocatable: list[int]
) -> int:
    """mostResourceScorer."""
    return _weighted_mean(resources, requested, allocatable, _most_requested)


def _go_div(a: int, b: int) -> int:
    """Go's integer division, truncating toward zero (a falling shape gives a < 0)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def broken_linear(shape: tuple[tuple[int, int], ...], p: int) -> int:
    """helper.BuildBrokenLinearFunction over (utilization, score) points."""
    for i, (u, s) in enumerate(shape):
        if p <= u:
            if i == 0:
                return s
            u0, s0 = shape[i - 1]
            return s0 + _go_div((s - s0) * (p - u0), u - u0)
    return shape[-1][1]


def requested_to_capacity_ratio_score(
    resources: list[tuple[str, int]],
    shape: tuple[tuple[int, int], ...],
    requested: list[int],
    allocatable: list[int],
) -> int:
    """buildRequestedToCapacityRatioScorerFunction: the shape at each resource's
    utilization (100 when over capacity), resources scoring 0 left out of the mean,
    which is rounded half away from zero."""
    node_score = 0
    weight_sum = 0
    for (_, weight), req, cap in zip(resources, requested, allocatable, strict=True):
        if cap == 0:
            continue
        utilization = 100 if req > cap else req * 100 // cap
        score = broken_linear(shape, utilization)
        if score > 0:
            node_score += score * weight
            weight_sum += weight
    if weight_sum == 0:
        return 0
    return (2 * node_score + weight_sum) // (2 * weight_sum)


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
