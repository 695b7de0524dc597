"""relax: where a hard constraint of the pod is what forces the eviction, its effect
when it is a preference instead: a required pod anti-affinity term made preferred
(weight 100), a topology spread constraint made ScheduleAnyway, the nodeSelector or
the required node affinity made a preferred node affinity (weight 100). One run each; a
constraint whose relaxing evicts no fewer pods is not what forces the eviction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..question import Asked, Run
from ..result import AdviceKind
from ..search import KindBudget
from .common import (
    KindAdvice,
    Searching,
    hurting_objects,
    object_patch,
    pod_spec,
    step_less,
    try_run,
)

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
WEIGHT = 100

Edit = Callable[[dict[str, Any]], None]


def relaxations(spec: dict[str, Any]) -> Iterator[tuple[str, Edit]]:
    """Each hard constraint of the pod spec: its words and the edit that softens it."""
    anti = ((spec.get("affinity") or {}).get("podAntiAffinity") or {}).get(REQUIRED) or []
    for i, term in enumerate(anti):

        def soften_anti(s: dict[str, Any], i: int = i) -> None:
            aa = s["affinity"]["podAntiAffinity"]
            moved = aa[REQUIRED].pop(i)
            if not aa[REQUIRED]:
                del aa[REQUIRED]
            aa.setdefault(PREFERRED, []).append({"weight": WEIGHT, "podAffinityTerm": moved})

        yield (
            f"make the required pod anti-affinity term {i} (topologyKey "
            f"{term.get('topologyKey')}) preferred",
            soften_anti,
        )
    for i, tsc in enumerate(spec.get("topologySpreadConstraints") or []):
        if tsc.get("whenUnsatisfiable", "DoNotSchedule") != "DoNotSchedule":
            continue

        def soften_spread(s: dict[str, Any], i: int = i) -> None:
            s["topologySpreadConstraints"][i]["whenUnsatisfiable"] = "ScheduleAnyway"

        yield (
            f"make topology spread constraint {i} (topologyKey {tsc.get('topologyKey')}) "
            "whenUnsatisfiable: ScheduleAnyway",
            soften_spread,
        )
    if spec.get("nodeSelector"):

        def soften_selector(s: dict[str, Any]) -> None:
            selector = s.pop("nodeSelector")
            _prefer(
                s,
                [
                    {
                        "matchExpressions": [
                            {"key": k, "operator": "In", "values": [v]} for k, v in selector.items()
                        ]
                    }
                ],
            )

        yield "make the nodeSelector a preferred node affinity", soften_selector
    if ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(REQUIRED):

        def soften_node_affinity(s: dict[str, Any]) -> None:
            required = s["affinity"]["nodeAffinity"].pop(REQUIRED)
            _prefer(s, list(required.get("nodeSelectorTerms") or []))

        yield "make the required node affinity preferred", soften_node_affinity


def _prefer(spec: dict[str, Any], terms: list[dict[str, Any]]) -> None:
    node_affinity = spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
    node_affinity.setdefault(PREFERRED, []).extend(
        {"weight": WEIGHT, "preference": t} for t in terms
    )


def search(asked: Asked, base: Run, budget: KindBudget) -> KindAdvice:
    with Searching(AdviceKind.RELAX, budget) as s:
        hurt = len(base.answer.victims) + len(base.answer.pending)
        for index in hurting_objects(asked, base):
            spec = pod_spec(asked.objects()[index])
            for words, soften in relaxations(spec):

                def edit(obj: dict[str, Any], soften: Edit = soften) -> None:
                    soften(pod_spec(obj))

                change = object_patch(asked, index, edit)
                s.mark()
                run = try_run(asked, change, budget)
                if run is None or len(run.answer.victims) + len(run.answer.pending) >= hurt:
                    continue
                s.add(change, run, less=step_less(None, base), summary=words)
    return s.found
