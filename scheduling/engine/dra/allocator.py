"""The structured allocator (k8s.io/dynamic-resource-allocation/structured) for one
node: claims in order, requests in order, ``firstAvailable`` sub-requests in order,
devices in pool order, with backtracking.

The Go allocator tries device sequences depth first, restarting each device's scan at
the first device; a feasible set of devices is feasible in any order, so its first
success is the set found here by trying devices in increasing position only (the same
devices, without retrying permutations of a set that failed). Its ``firstAvailable``
choice is then the first sub-request, in request order, that some allocation admits:
what DynamicResources' Score reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cel import CelError, selector_matches
from .objects import (
    ALL,
    AllocationResult,
    AttrValue,
    Device,
    DeviceClass,
    DeviceId,
    ExactRequest,
    ResourceClaim,
)


class AllocationError(Exception):
    """Something wrong with a claim or class (a selector that cannot be evaluated):
    the scheduler returns an Error status and stops scheduling the pod."""


@dataclass(frozen=True)
class ClaimAllocation:
    """One claim's allocation on a node: its results, in request order."""

    claim: ResourceClaim
    results: tuple[AllocationResult, ...]


class _Search:
    def __init__(
        self,
        classes: Mapping[str, DeviceClass],
        devices: Sequence[Device],
        allocated: Mapping[DeviceId, object] | set[DeviceId],
        memo: dict[tuple[str, DeviceId], bool],
    ) -> None:
        self.classes = classes
        # The node's devices not allocated to other claims (read, never copied whole),
        # and those that are (allocation mode All wants none of its devices among them).
        self.devices = [d for d in devices if d.id not in allocated]
        self.in_use = [d for d in devices if d.id in allocated]
        self.taken: set[DeviceId] = set()  # picked for this pod already
        self.memo = memo
        self.matches: dict[tuple[str, int], bool] = {}

    def _match(self, req: ExactRequest, claim: ResourceClaim, i: int) -> bool:
        """The class's selectors, then the request's, on device ``i`` (selectorsMatch)."""
        key = (f"{claim.key}\0{req.name}", i)
        got = self.matches.get(key)
        if got is None:
            device = self.devices[i]
            cls = self.classes.get(req.device_class)
            got = _all_match(
                f"class {req.device_class}",
                cls.selectors if cls is not None else (),
                device,
                self.memo,
            ) and _all_match(f"claim {claim.key}", req.selectors, device, self.memo)
            self.matches[key] = got
        return got

    def _matches_in_use(self, req: ExactRequest, claim: ResourceClaim, device: Device) -> bool:
        cls = self.classes.get(req.device_class)
        return _all_match(
            f"class {req.device_class}", cls.selectors if cls is not None else (), device, self.memo
        ) and _all_match(f"claim {claim.key}", req.selectors, device, self.memo)

    def claims(self, claims: Sequence[ResourceClaim]) -> list[list[AllocationResult]] | None:
        """The first allocation of every claim together (None: none on this node); the
        search backtracks across claims as the Go allocator does."""
        steps = [(c, r) for c, claim in enumerate(claims) for r in claim.spec.requests]
        constraints = [[x for x in claim.spec.constraints if x.match_attribute] for claim in claims]
        values: list[list[AttrValue | None]] = [[None] * len(cs) for cs in constraints]
        picked: list[tuple[int, str, int]] = []

        def fits(
            c: int, req_name: str, device: Device
        ) -> list[tuple[int, AttrValue | None]] | None:
            """The constraint values this device sets (None: it breaks a constraint)."""
            changes: list[tuple[int, AttrValue | None]] = []
            vals = values[c]
            for ci, con in enumerate(constraints[c]):
                if not con.applies_to(req_name):
                    continue
                assert con.match_attribute is not None
                v = device.attribute(con.match_attribute)
                if v is None or (vals[ci] is not None and vals[ci] != v):
                    for cj, old in changes:
                        vals[cj] = old
                    return None
                if vals[ci] is None:
                    changes.append((ci, None))
                    vals[ci] = v
            return changes

        def undo(c: int, changes: list[tuple[int, AttrValue | None]]) -> None:
            for ci, old in changes:
                values[c][ci] = old

        def step(s: int) -> bool:
            if s == len(steps):
                return True
            c, req = steps[s]
            for alt in req.alternatives:
                if alt.mode == ALL:
                    if all_of(s, c, alt):
                        return True
                elif count(s, c, alt, alt.count, 0):
                    return True
            return False

        def take(c: int, alt: ExactRequest, i: int) -> list[tuple[int, AttrValue | None]] | None:
            device = self.devices[i]
            changes = fits(c, alt.name, device)
            if changes is None:
                return None
            self.taken.add(device.id)
            picked.append((c, alt.name, i))
            return changes

        def give_back(c: int, i: int, changes: list[tuple[int, AttrValue | None]]) -> None:
            picked.pop()
            self.taken.discard(self.devices[i].id)
            undo(c, changes)

        def count(s: int, c: int, alt: ExactRequest, left: int, start: int) -> bool:
            if left == 0:
                return step(s + 1)
            claim = claims[c]
            for i in range(start, len(self.devices) - left + 1):
                if self.devices[i].id in self.taken or not self._match(alt, claim, i):
                    continue
                changes = take(c, alt, i)
                if changes is None:
                    continue
                if count(s, c, alt, left - 1, i + 1):
                    return True
                give_back(c, i, changes)
            return False

        def all_of(s: int, c: int, alt: ExactRequest) -> bool:
            claim = claims[c]
            wanted = [i for i in range(len(self.devices)) if self._match(alt, claim, i)]
            if not wanted or any(self.devices[i].id in self.taken for i in wanted):
                return False
            if any(self._matches_in_use(alt, claim, d) for d in self.in_use):
                return False
            done: list[tuple[int, list[tuple[int, AttrValue | None]]]] = []
            ok = True
            for i in wanted:
                changes = take(c, alt, i)
                if changes is None:
                    ok = False
                    break
                done.append((i, changes))
            if ok and step(s + 1):
                return True
            for i, changes in reversed(done):
                give_back(c, i, changes)
            return False

        if not step(0):
            return None
        out: list[list[AllocationResult]] = [[] for _ in claims]
        for c, name, i in picked:
            d = self.devices[i]
            out[c].append(AllocationResult(name, d.driver, d.pool, d.name))
        return out


def _all_match(
    owner: str, selectors: Sequence[str], device: Device, memo: dict[tuple[str, DeviceId], bool]
) -> bool:
    for n, expr in enumerate(selectors):
        key = (expr, device.id)
        got = memo.get(key)
        if got is None:
            try:
                got = memo[key] = selector_matches(expr, device)
            except CelError as e:
                raise AllocationError(f"{owner}: selector #{n}: {e}") from None
        if not got:
            return False
    return True


def allocate(
    claims: Sequence[ResourceClaim],
    classes: Mapping[str, DeviceClass],
    devices: Sequence[Device],
    allocated: set[DeviceId] | Mapping[DeviceId, object],
    memo: dict[tuple[str, DeviceId], bool] | None = None,
) -> list[ClaimAllocation] | None:
    """Allocator.Allocate on one node: every claim (all or nothing), or None.
    AllocationError when a selector cannot be evaluated. ``memo``: selector answers by
    (expression, device), kept by the caller for as long as the devices stay the same."""
    found = _Search(classes, devices, allocated, {} if memo is None else memo).claims(claims)
    if found is None:
        return None
    return [ClaimAllocation(claim, tuple(r)) for claim, r in zip(claims, found, strict=True)]
