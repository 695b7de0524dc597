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

from collections.abc import Callable
from typing import Any

from ...objects import CPU, MEMORY, Pod
from ...quantity import format_quantity
from ..question import Asked, Run
from ..result import AdviceKind, ObjectPatch
from ..search import KindBudget, Probe, least_passing
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
    first; each plain init container capped)."""
    overhead = requests_of({"containers": [{"name": "o"}], "overhead": spec.get("overhead")}).get(
        resource, 0
    )
    room = max(0, target - overhead)
    level = (spec.get("resources") or {}).get("requests") or {}
    if resource in level:
        spec["resources"]["requests"][resource] = quantity(room, resource)
        return
    running: list[tuple[int, dict[str, Any]]] = []
    for part, _, c in each_container(spec):
        reqs = _requests(c)
        amount = _amount(reqs.get(resource), resource)
        if part == "containers" or c.get("restartPolicy") == "Always":
            running.append((amount, c))
        elif amount > room:
            _requests(c, create=True)[resource] = quantity(room, resource)
    excess = sum(a for a, _ in running) - room
    for amount, c in sorted(running, key=lambda x: -x[0]):
        if excess <= 0:
            break
        cut = min(amount, excess)
        _requests(c, create=True)[resource] = quantity(amount - cut, resource)
        excess -= cut


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
    with Searching(AdviceKind.SMALLER_REQUEST, budget) as s:
        for index in hurting_objects(asked, base):
            obj = asked.objects()[index]
            asked_for = requests_of(pod_spec(obj))
            cpu, mem = asked_for.get(CPU, 0), asked_for.get(MEMORY, 0)
            ways: list[tuple[tuple[str, ...], int]] = []
            if cpu >= MILLICPU_STEP:
                ways.append(((CPU,), -(-cpu // MILLICPU_STEP) - 1))
            if mem >= MEMORY_STEP:
                ways.append(((MEMORY,), -(-mem // MEMORY_STEP) - 1))
            if cpu >= MILLICPU_STEP and mem >= MEMORY_STEP:
                ways.append(((CPU, MEMORY), -(-cpu // MILLICPU_STEP) - 1))
            for resources, top in ways:
                _one(s, asked, base, index, resources, top, cpu, mem)
    return s.found


def _one(
    s: Searching,
    asked: Asked,
    base: Run,
    index: int,
    resources: tuple[str, ...],
    top: int,
    cpu: int,
    mem: int,
) -> None:
    """The largest request of ``resources`` (steps 0..top of the first resource) at
    which everything runs unevicting; ``top`` the step just below what was asked."""
    step_size = MILLICPU_STEP if resources[0] == CPU else MEMORY_STEP

    def amounts(k: int) -> dict[str, int]:
        if resources == (CPU, MEMORY):
            # Scaled together: memory in cpu's proportion, rounded down to 16Mi.
            c = k * MILLICPU_STEP
            return {CPU: c, MEMORY: (mem * c // cpu) // MEMORY_STEP * MEMORY_STEP}
        return {resources[0]: k * step_size}

    def change(k: int) -> ObjectPatch:
        wanted = amounts(k)

        def edit(obj: dict[str, Any]) -> None:
            spec = pod_spec(obj)
            for r, v in wanted.items():
                set_request(spec, r, v)

        return object_patch(asked, index, edit)

    # Step i of the search is request step top - i: the search's least passing step is
    # the largest request.
    to_k: Callable[[int], int] = lambda i: top - i  # noqa: E731
    probe = Probe(
        run=lambda i: answer_or_none(asked, change(to_k(i))),
        passes=runs_clean,
        budget=s.budget,
    )
    replicas = 1 if asked.is_pod else asked.expand(asked.objects()).objects[index].replicas
    guess = top - _guess(asked, base, resources, amounts, replicas, top)
    s.mark()
    found = least_passing(probe, 0, top, guess=guess)
    if found is None:
        return
    k = to_k(found.step)
    less = (
        step_less(change(k + 1), found.below) if found.below is not None else step_less(None, base)
    )
    got = amounts(k)
    words = " and ".join(f"{format_quantity(v, r)} {r}" for r, v in got.items())
    s.add(
        change(k),
        found.run,
        less=less,
        summary=f"request at most {words}",
    )
