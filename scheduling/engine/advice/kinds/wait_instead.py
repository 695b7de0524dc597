"""wait-instead: the pod (the workload's pods) in a class that does not preempt, so it
waits for room instead of making it: what then runs at once, what waits, and for what.

The Priority admission plugin refuses a pod spec whose preemptionPolicy differs from
its class's, so the change is a class: the class with preemptionPolicy Never nearest
the pod's own priority (the same value first), and the highest class whose value is
not above the lowest victim's (kube-scheduler only preempts pods of lower priority).
The spec's own priority and preemptionPolicy go with the old class. Each is one run;
a class after which someone is still evicted is no advice of this kind.
"""

from __future__ import annotations

from typing import Any

from ...objects import Pod, PriorityClass
from ...priority import HIGHEST_USER_DEFINABLE_PRIORITY
from ..question import Asked, Run
from ..result import AdviceKind, Note
from ..search import KindBudget
from .common import (
    KindAdvice,
    Searching,
    hurting_objects,
    object_patch,
    pod_spec,
    runs_clean,
    step_less,
    try_run,
)

NEVER = "Never"


def _victim_priorities(asked: Asked, base: Run) -> list[int]:
    wanted = set(base.answer.victims)
    return [p.priority for p in asked.cluster.pods if p.key in wanted]


def classes_to_try(
    classes: list[PriorityClass], own: PriorityClass | None, priority: int, lowest_victim: int
) -> list[PriorityClass]:
    """The nearest class that never preempts, then the highest class below the victims."""
    out: list[PriorityClass] = []
    never = [c for c in classes if c.preemption_policy == NEVER and c is not own]
    if never:
        out.append(min(never, key=lambda c: (abs(c.value - priority), c.value, c.name)))
    below = [c for c in classes if c.value <= lowest_victim and c is not own and c not in out]
    if below:
        out.append(max(below, key=lambda c: (c.value, c.name)))
    return out


def search(asked: Asked, base: Run, budget: KindBudget) -> KindAdvice:
    with Searching(AdviceKind.WAIT_INSTEAD, budget) as s:
        priorities = _victim_priorities(asked, base)
        if not priorities:
            return s.found
        cluster = asked.admitting()
        for index in hurting_objects(asked, base):
            obj = asked.objects()[index]
            pod = Pod.from_dict({"metadata": {"name": "advice"}, "spec": pod_spec(obj)})
            cluster.resolver.resolve(pod)
            if pod.preemption_policy == NEVER:
                continue
            if not any(c.preemption_policy == NEVER for c in cluster.priority_classes):
                s.found.notes.append(Note(AdviceKind.WAIT_INSTEAD, never_class_note(pod.priority)))
            own = next(
                (c for c in cluster.priority_classes if c.name == pod.priority_class_name), None
            )
            for pc in classes_to_try(
                list(cluster.priority_classes), own, pod.priority, min(priorities)
            ):

                def edit(o: dict[str, Any], pc: PriorityClass = pc) -> None:
                    spec = pod_spec(o)
                    spec["priorityClassName"] = pc.name
                    spec.pop("priority", None)
                    spec.pop("preemptionPolicy", None)

                change = object_patch(asked, index, edit)
                s.mark()
                run = try_run(asked, change, budget)
                if run is None or run.answer.victims:
                    continue
                s.add(
                    change,
                    run,
                    less=step_less(None, base),
                    summary=f"use PriorityClass {pc.name} ({pc.value}, "
                    f"preemptionPolicy {pc.preemption_policy}) and wait",
                    detail=waits_for(run),
                )
    return s.found


def never_class_note(priority: int) -> str:
    """The class to create when none waits: of the pod's own value where a user class
    may have it (the API server admits at most HIGHEST_USER_DEFINABLE_PRIORITY), else
    of that highest value, saying the pod then ranks lower than it does."""
    why = (
        "would let the pod wait without preempting (the pod cannot say Never itself: "
        "admission refuses a preemptionPolicy other than its class's)"
    )
    if priority <= HIGHEST_USER_DEFINABLE_PRIORITY:
        return f"no PriorityClass has preemptionPolicy Never: a class of value {priority:,} with it {why}"
    return (
        "no PriorityClass has preemptionPolicy Never: a class with it of value "
        f"{HIGHEST_USER_DEFINABLE_PRIORITY:,} (the most a user class may have; the pod's "
        f"priority {priority:,} is a system class's) {why}"
    )


def waits_for(run: Run) -> str:
    """What runs at once, what waits and for what: the FailedScheduling text."""
    if run.result is not None:
        r = run.result
        if runs_clean(run):
            return f"runs at once on {r.node}"
        return f"waits: {r.message}"
    sim = run.simulation
    assert sim is not None
    pending = set(run.answer.pending)
    last: dict[str, str] = {}
    for c in sim.cycles:
        if c.pod in pending and c.message:
            last[c.pod] = c.message
    ran = sum(1 for p in sim.pods if p.bound and p.recreated_from is None)
    if not pending:
        return f"all {ran} run at once"
    first = next(iter(sorted(pending)))
    return f"{ran} run at once, {len(pending)} wait" + (
        f"; {first}: {last[first]}" if first in last else ""
    )
