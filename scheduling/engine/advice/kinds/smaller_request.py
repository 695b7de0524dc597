"""smaller-request: the largest requests at which the pod, or every replica, runs
without evicting anyone: cpu alone (to 10m), memory alone (to 16Mi), and both scaled
together (cpu to 10m, memory in proportion, to 16Mi).

A smaller request never fits worse (NodeResourcesFit only compares it with what is
free), so the search is a binary search over the steps below what was asked, step 0
being one step below it. For a lone pod the first guess is the most that is free on a
node that only lacks room (its Filter reasons are all "Insufficient ..."): two runs
prove it when nothing else decides. A workload is searched without a guess, its upper
guess the most that is free on any node (a replica larger than that runs nowhere
without evicting: the guess passes, or what is left to search is below it).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ...objects import CPU, MEMORY, Pod
from ...quantity import format_quantity
from ..question import Asked, Run
from ..result import AdviceKind, ObjectPatch
from ..search import Found, KindBudget, Probe, least_passing
from .common import (
    KindAdvice,
    Searching,
    answer_or_none,
    each_container,
    hurting_objects,
    object_patch,
    pod_spec,
    runs_clean,
    step_less,
)

MILLICPU_STEP = 10
MEMORY_STEP = 16 * 2**20

# The reasons NodeResourcesFit gives for a node without room, by resource.
INSUFFICIENT = {CPU: "Insufficient cpu", MEMORY: "Insufficient memory"}


def quantity(amount: int, resource: str) -> str:
    if resource == CPU:
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    return f"{amount // 2**20}Mi" if amount % 2**20 == 0 else str(amount)


def requests_of(spec: dict[str, Any]) -> dict[str, int]:
    """The pod's requests as the scheduler computes them (containers, init containers,
    sidecars, overhead, pod-level resources)."""
    pod = Pod.from_dict({"metadata": {"name": "advice"}, "spec": spec})
    return dict(pod.requests)


def set_request(spec: dict[str, Any], resource: str, target: int) -> None:
    """Lower the pod's ``resource`` request to ``target`` in all: pod-level requests
    when set, else the containers' (sidecars and regular ones taken from the largest
    first; each plain init container capped). A limit equal to the request it had is
    lowered with it, so the pod keeps its QoS class (a Guaranteed pod stays one)."""
    overhead = requests_of({"containers": [{"name": "o"}], "overhead": spec.get("overhead")}).get(
        resource, 0
    )
    room = max(0, target - overhead)
    level = (spec.get("resources") or {}).get("requests") or {}
    if resource in level:
        _lower(spec["resources"], resource, _amount(level[resource], resource), room)
        return
    running: list[tuple[int, dict[str, Any]]] = []
    for part, _, c in each_container(spec):
        reqs = _requests(c)
        amount = _amount(reqs.get(resource), resource)
        if part == "containers" or c.get("restartPolicy") == "Always":
            running.append((amount, c))
        elif amount > room:
            _requests(c, create=True)
            _lower(c["resources"], resource, amount, room)
    excess = sum(a for a, _ in running) - room
    for amount, c in sorted(running, key=lambda x: -x[0]):
        if excess <= 0:
            break
        cut = min(amount, excess)
        _requests(c, create=True)
        _lower(c["resources"], resource, amount, amount - cut)
        excess -= cut


def _lower(resources: dict[str, Any], resource: str, was: int, to: int) -> None:
    """requests[resource] to ``to``; limits[resource] too where it equalled the request."""
    resources["requests"][resource] = quantity(to, resource)
    limits = resources.get("limits") or {}
    if resource in limits and _amount(limits[resource], resource) == was:
        limits[resource] = quantity(to, resource)


def _requests(container: dict[str, Any], create: bool = False) -> dict[str, Any]:
    res = container.get("resources") or {}
    if create:
        container["resources"] = res
        if "requests" not in res:
            # An unset request defaults to the limit: it is written out to be lowered.
            res["requests"] = dict(res.get("limits") or {})
        got: dict[str, Any] = res["requests"]
        return got
    return res.get("requests") or res.get("limits") or {}


def _amount(raw: Any, resource: str) -> int:
    if raw is None:
        return 0
    return requests_of({"containers": [{"name": "a", "resources": {"requests": {resource: raw}}}]})[
        resource
    ]


def _guess(
    asked: Asked,
    base: Run,
    resources: tuple[str, ...],
    amounts: Callable[[int], dict[str, int]],
    replicas: int,
    top: int,
) -> int:
    """The largest request step ``k`` (0..top) at which ``replicas`` pods fit in what
    is free: for a pod, on the nodes that lack nothing but room; for a workload, on
    every schedulable node (an upper bound: other filters may refuse some). A guess,
    which the runs prove or correct."""
    only_room: set[str] | None = None
    if base.result is not None:
        allowed = {INSUFFICIENT[r] for r in resources}
        only_room = {
            r.node
            for r in base.result.rejected_nodes
            if r.status.reasons and set(r.status.reasons) <= allowed
        }
    free = [
        [ni.node.allocatable.get(r, 0) - ni.requested.get(r, 0) for r in resources]
        for ni in asked.cluster.node_infos
        if (ni.name in only_room if only_room is not None else not ni.node.unschedulable)
    ]

    def fits(k: int) -> bool:
        want = [amounts(k).get(r, 0) for r in resources]
        room = 0
        for node in free:
            room += min(
                (f // w if w > 0 else replicas) if f >= 0 else 0
                for f, w in zip(node, want, strict=True)
            )
            if room >= replicas:
                return True
        return False

    lo, hi = 0, top
    if fits(hi):
        return hi
    while lo < hi - 1:  # fits(lo) or lo == 0; not fits(hi)
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


def search(asked: Asked, base: Run, budget: KindBudget) -> KindAdvice:
    """cpu alone, memory alone; both together only where neither alone is enough (an
    item changes no resource the proof shows unneeded)."""
    with Searching(AdviceKind.SMALLER_REQUEST, budget) as s:
        for index in hurting_objects(asked, base):
            obj = asked.objects()[index]
            asked_for = requests_of(pod_spec(obj))
            cpu, mem = asked_for.get(CPU, 0), asked_for.get(MEMORY, 0)
            alone = False
            if cpu >= MILLICPU_STEP:
                alone |= _one(s, asked, base, index, (CPU,), _top(cpu, CPU), cpu, mem)
            if mem >= MEMORY_STEP:
                alone |= _one(s, asked, base, index, (MEMORY,), _top(mem, MEMORY), cpu, mem)
            if not alone and cpu >= MILLICPU_STEP and mem >= MEMORY_STEP:
                _one(s, asked, base, index, (CPU, MEMORY), _top(cpu, CPU), cpu, mem)
    return s.found


STEPS = {CPU: MILLICPU_STEP, MEMORY: MEMORY_STEP}


def _top(amount: int, resource: str) -> int:
    """The step just below what was asked."""
    return -(-amount // STEPS[resource]) - 1


def _change(asked: Asked, index: int, wanted: dict[str, int]) -> ObjectPatch:
    def edit(obj: dict[str, Any]) -> None:
        spec = pod_spec(obj)
        for r, v in wanted.items():
            set_request(spec, r, v)

    return object_patch(asked, index, edit)


def _largest(
    s: Searching,
    asked: Asked,
    index: int,
    amounts: Callable[[int], dict[str, int]],
    top: int,
    guess: int | None,
) -> tuple[int, Found[Run | None]] | None:
    """The largest step k in 0..top at which everything runs unevicting (the search's
    least passing step i is request step top - i), and its Found."""
    probe = Probe(
        run=lambda i: answer_or_none(asked, _change(asked, index, amounts(top - i))),
        passes=runs_clean,
        budget=s.budget,
    )
    found = least_passing(probe, 0, top, guess=None if guess is None else top - guess)
    return None if found is None else (top - found.step, found)


def _one(
    s: Searching,
    asked: Asked,
    base: Run,
    index: int,
    resources: tuple[str, ...],
    top: int,
    cpu: int,
    mem: int,
) -> bool:
    """The largest request of ``resources`` (steps 0..top of the first resource) at
    which everything runs unevicting; ``top`` the step just below what was asked. Both
    together go down scaled (memory in cpu's proportion), then each is raised back
    alone as far as it may go, so one step more of either still hurts. Whether an
    item was found."""

    def scaled(k: int) -> dict[str, int]:
        if resources == (CPU, MEMORY):
            # Scaled together: memory in cpu's proportion, rounded down to 16Mi.
            c = k * MILLICPU_STEP
            return {CPU: c, MEMORY: (mem * c // cpu) // MEMORY_STEP * MEMORY_STEP}
        return {resources[0]: k * STEPS[resources[0]]}

    replicas = 1 if asked.is_pod else asked.expand(asked.objects()).objects[index].replicas
    s.mark()
    guess = _guess(asked, base, resources, scaled, replicas, top)
    found = _largest(s, asked, index, scaled, top, guess)
    if found is None:
        return False
    k, proof = found
    amounts: Callable[[int], dict[str, int]] = scaled
    if resources == (CPU, MEMORY):
        # Memory back up with cpu held, then cpu back up with that memory held.
        for resource, other in ((MEMORY, CPU), (CPU, MEMORY)):
            got = amounts(k)
            start = got[resource] // STEPS[resource]
            held = got[other]

            def alone(
                j: int,
                resource: str = resource,
                other: str = other,
                held: int = held,
                start: int = start,
            ) -> dict[str, int]:
                return {resource: (start + j) * STEPS[resource], other: held}

            raised = _largest(
                s, asked, index, alone, _top(cpu if resource == CPU else mem, resource) - start, 0
            )
            if raised is not None:
                (k, proof), amounts = raised, alone
    got = amounts(k)
    # One step less of the change is one step more request (none: the question as asked).
    less = (
        step_less(_change(asked, index, amounts(k + 1)), proof.below)
        if proof.below is not None
        else step_less(None, base)
    )
    words = " and ".join(
        f"{format_quantity(v, r)} {r}" for r, v in got.items() if v < (cpu if r == CPU else mem)
    )
    s.add(
        _change(asked, index, got),
        proof.run,
        less=less,
        summary=f"request at most {words}" + qos_words(asked, index, got),
    )
    return True


def qos_words(asked: Asked, index: int, wanted: dict[str, int]) -> str:
    """ " (the pod's QoS class becomes Burstable)" where the smaller request changes it
    (set_request lowers a limit equal to its request, so a Guaranteed pod stays one)."""
    before = pod_spec(asked.objects()[index])
    after = copy.deepcopy(before)
    for r, v in wanted.items():
        set_request(after, r, v)
    was, now = qos_of(before), qos_of(after)
    return "" if was == now else f" (the pod's QoS class becomes {now}, from {was})"


def qos_of(spec: dict[str, Any]) -> str:
    return Pod.from_dict({"metadata": {"name": "advice"}, "spec": spec}).qos_class
