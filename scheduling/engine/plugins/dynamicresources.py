"""DynamicResources (pkg/scheduler/framework/plugins/dynamicresources): a pod's
ResourceClaims found and usable at PreFilter, allocated on each node at Filter by the
structured allocator, ``firstAvailable`` choices scored, and its PostFilter, which
deallocates a claim of the pod that is allocated where the pod cannot go.

Every rejection is UnschedulableAndUnresolvable (statusUnschedulable in Go), and the
devices in use are read once at PreFilter with no PreFilterExtensions: removing a
victim in a preemption dry run frees none of its devices, so preemption never helps a
pod that waits for devices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..dra.objects import DeviceId, DraObjects, ResourceClaim
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
from ..labels import NodeSelector
from . import names

if TYPE_CHECKING:
    from ..cluster import NodeInfo
    from ..dra.allocator import ClaimAllocation
    from ..objects import Pod

STATE_KEY = "PreFilterDynamicResources"

CANNOT_ALLOCATE = "cannot allocate all claims"
NOT_AVAILABLE = "resourceclaim not available on the node"
# PostFilter's answers.
NO_NEW_CLAIMS = "no new claims to deallocate"
DEALLOCATED = "deallocation of ResourceClaim completed"
STILL_NOT_SCHEDULABLE = "still not schedulable"
# Its Error when its PreFilter never ran (an earlier PreFilter plugin rejected the pod
# outright): getStateData finds no cycle state and returns the state's "not found".
NO_STATE = "not found"
FIRST_AVAILABLE_MAX_SIZE = 8


def claim_not_found(namespace: str, name: str) -> str:
    return f'could not find ResourceClaim "{namespace}/{name}"'


def not_created_yet(pod: Pod) -> str:
    return f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet'


def being_deleted(name: str) -> str:
    return f'resourceclaim "{name}" is being deleted'


def class_missing(request: str, device_class: str) -> str:
    return f"request {request}: device class {device_class} does not exist"


@dataclass
class DynamicResourcesState:
    """stateData: written at PreFilter and shared, not copied, by every clone of the
    cycle state (Go's Clone returns the same pointer), so a claim found unavailable in
    a preemption dry run is remembered for PostFilter too."""

    claims: list[ResourceClaim] = field(default_factory=list)
    # Per claim: the allocation's node selector (allocated claims only).
    available_on: list[NodeSelector | None] = field(default_factory=list)
    to_allocate: list[ResourceClaim] = field(default_factory=list)
    # The devices allocated at PreFilter (None: nothing to allocate, no allocator).
    allocated: dict[DeviceId, ResourceClaim] | None = None
    dra: DraObjects | None = None
    # Per node: the allocation found there (None: it cannot be allocated there).
    node_allocations: dict[str, list[ClaimAllocation] | None] = field(default_factory=dict)
    node_errors: dict[str, str] = field(default_factory=dict)
    unavailable: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class PostFilterAnswer:
    """What DynamicResources' PostFilter said, and the claim it deallocated if any."""

    message: str
    deallocated: ResourceClaim | None = None
    # Error, not Unschedulable: RunPostFilterPlugins stops here, DefaultPreemption
    # never runs and no nomination is made or cleared.
    error: bool = False


def resolve_claims(dra: DraObjects, pod: Pod) -> tuple[list[ResourceClaim], str | None]:
    """foreachPodResourceClaim: the pod's claims, or the reason one is not usable."""
    claims: list[ResourceClaim] = []
    for ref in pod.resource_claims:
        name = ref.resolved
        if name is None:
            return claims, not_created_yet(pod)
        claim = dra.claims.get(f"{pod.namespace}/{name}")
        if claim is None:
            return claims, claim_not_found(pod.namespace, name)
        if claim.deleting:
            return claims, being_deleted(claim.name)
        if ref.template_name is not None and (claim.owner is None or claim.owner[2] != pod.uid):
            return claims, (
                f"ResourceClaim {claim.key} was not created for pod "
                f"{pod.namespace}/{pod.name} (pod is not owner)"
            )
        claims.append(claim)
    return claims, None


class DynamicResources:
    name = names.DYNAMIC_RESOURCES

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def _dra(self) -> DraObjects:
        return self.handle.cluster.dra

    # PreFilter ---------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        s = DynamicResourcesState()
        state.write(STATE_KEY, s)
        if not pod.resource_claims:
            return None, Status(Code.SKIP)
        dra = self._dra()
        claims, problem = resolve_claims(dra, pod)
        if problem is not None:
            return None, unresolvable(problem)
        if not claims:
            return None, Status(Code.SKIP)
        for claim in claims:
            if claim.allocation is not None:
                if len(claim.reserved_for) >= 256 and not claim.reserved_for_pod(pod.uid):
                    return None, unresolvable("resourceclaim in use")
                s.available_on.append(claim.allocation.node_selector)
                continue
            s.available_on.append(None)
            s.to_allocate.append(claim)
            for req in claim.spec.requests:
                for alt in req.alternatives:
                    if not alt.device_class:
                        return None, Status(
                            Code.ERROR, f"request {alt.name}: unsupported request type"
                        )
                    if alt.device_class not in dra.classes:
                        return None, unresolvable(class_missing(alt.name, alt.device_class))
        s.claims = claims
        s.dra = dra
        if s.to_allocate:
            s.allocated = dra.allocated_devices()
        return None, SUCCESS

    # Filter ------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s: DynamicResourcesState | None = state.get(STATE_KEY)
        if s is None or not s.claims:
            return SUCCESS
        node = node_info.node
        unavailable = [
            i
            for i, sel in enumerate(s.available_on)
            if sel is not None and not sel.matches(node.labels, node.name)
        ]
        if s.allocated is not None:
            found = self.allocation_on(s, node_info)
            if node_info.name in s.node_errors:
                return Status(Code.ERROR, s.node_errors[node_info.name])
            if found is None:
                return unresolvable(CANNOT_ALLOCATE)
        if unavailable:
            s.unavailable.update(unavailable)
            return unresolvable(NOT_AVAILABLE)
        return SUCCESS

    def allocation_on(
        self, s: DynamicResourcesState, node_info: NodeInfo
    ) -> list[ClaimAllocation] | None:
        """The allocator's answer on the node, worked out once per cycle (the devices in
        use are fixed at PreFilter, so it never changes within the cycle)."""
        name = node_info.name
        if name in s.node_allocations:
            return s.node_allocations[name]
        from ..dra.allocator import AllocationError, allocate

        assert s.dra is not None and s.allocated is not None
        node = node_info.node
        try:
            found = allocate(
                s.to_allocate,
                s.dra.classes,
                s.dra.devices_for(name, node.labels),
                s.allocated,
                s.dra.selector_memo,
            )
        except AllocationError as e:
            s.node_errors[name] = str(e)
            found = None
        s.node_allocations[name] = found
        return found

    # Score -------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        # Go has no PreScore here and scores 0 for a pod without claims; skipping it
        # leaves such pods' score table as it was without the plugin.
        s: DynamicResourcesState | None = state.get(STATE_KEY)
        return SUCCESS if s is not None and s.claims else Status(Code.SKIP)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        s: DynamicResourcesState | None = state.get(STATE_KEY)
        if s is None or not s.claims or s.allocated is None:
            return 0
        found = s.node_allocations.get(node_info.name)
        if not found:
            return 0
        score = 0
        # computeScore indexes the allocations by the claim's place among all claims.
        for i, claim in enumerate(s.claims):
            if i >= len(found):
                return 0
            chosen = {r.request for r in found[i].results if "/" in r.request}
            for req in claim.spec.requests:
                if req.exactly is not None:
                    continue
                for j, sub in enumerate(req.first_available):
                    if sub.name in chosen:
                        score += FIRST_AVAILABLE_MAX_SIZE - j
        return score

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> None:
        default_normalize_score(MAX_NODE_SCORE, False, scores)

    # PostFilter --------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod) -> PostFilterAnswer:
        s: DynamicResourcesState | None = state.get(STATE_KEY)
        if s is None:
            # PreFilter writes the state before anything else: it never ran.
            return PostFilterAnswer(NO_STATE, error=True)
        if not s.claims:
            return PostFilterAnswer(NO_NEW_CLAIMS)
        # Go iterates a set (random order); the engine takes the claims in pod order.
        for i in sorted(s.unavailable):
            claim = s.claims[i]
            reserved = claim.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == pod.uid):
                return PostFilterAnswer(DEALLOCATED, claim)
        return PostFilterAnswer(STILL_NOT_SCHEDULABLE)


def waits_for_devices(state: CycleState) -> DynamicResourcesState | None:
    """The pod's DynamicResources state when it has claims (for the words)."""
    s: DynamicResourcesState | None = state.get(STATE_KEY)
    return s if s is not None and s.claims else None
