"""fewer-replicas: the most replicas of a workload's object that all run without
evicting anyone (``spec.replicas``; a Job's ``spec.parallelism``).

Fewer replicas never need more room, so the count is binary searched below what was
asked, the first guess how many of the object's pods bound without a preemption in the
question's own run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..question import Asked, Run
from ..result import AdviceKind, ObjectPatch
from ..search import KindBudget, Probe, least_passing
from .common import (
    KindAdvice,
    Searching,
    answer_or_none,
    hurting_objects,
    object_patch,
    runs_clean,
    step_less,
)

# The field that says how many pods each kind of object makes at once.
COUNT_FIELD = {
    "Deployment": "replicas",
    "ReplicaSet": "replicas",
    "StatefulSet": "replicas",
    "Job": "parallelism",
}


def search(asked: Asked, base: Run, budget: KindBudget) -> KindAdvice:
    with Searching(AdviceKind.FEWER_REPLICAS, budget) as s:
        if asked.is_pod or base.simulation is None:
            return s.found
        workload = asked.expand(asked.objects())
        for index in hurting_objects(asked, base):
            obj = asked.objects()[index]
            kind = str(obj.get("kind"))
            count_field = COUNT_FIELD.get(kind)
            made = workload.objects[index]
            asked_for = made.replicas
            if count_field is None or asked_for < 2:
                continue
            own = set(made.pod_keys)
            preempted = {c.pod for c in base.simulation.cycles if c.victims}
            quiet = sum(
                1
                for p in base.simulation.pods
                if p.pod in own and p.bound and p.pod not in preempted
            )
            top = asked_for - 2  # step i asks for asked_for - 1 - i replicas
            change = _changing(asked, index, count_field)
            probe: Probe[Run | None] = Probe(
                run=_asking(asked, change, asked_for),
                passes=runs_clean,
                budget=budget,
            )
            s.mark()
            found = least_passing(
                probe, 0, top, guess=asked_for - 1 - quiet if 0 < quiet < asked_for else None
            )
            if found is None:
                continue
            r = asked_for - 1 - found.step
            less = (
                step_less(change(r + 1), found.below)
                if found.below is not None
                else step_less(None, base)
            )
            s.add(
                change(r),
                found.run,
                less=less,
                summary=f"run at most {r} replica{'s' if r != 1 else ''} of {made.kind} "
                f"{made.key} (not {asked_for})",
            )
    return s.found


def _changing(asked: Asked, index: int, count_field: str) -> Callable[[int], ObjectPatch]:
    def change(r: int) -> ObjectPatch:
        def edit(obj: dict[str, Any]) -> None:
            obj.setdefault("spec", {})[count_field] = r

        return object_patch(asked, index, edit)

    return change


def _asking(
    asked: Asked, change: Callable[[int], ObjectPatch], asked_for: int
) -> Callable[[int], Run | None]:
    """Step i runs the question with asked_for - 1 - i replicas."""
    return lambda i: answer_or_none(asked, change(asked_for - 1 - i))
