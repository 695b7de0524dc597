"""add-nodes: the fewest nodes like an existing one that let the pod (every replica)
run without evicting anyone.

``like`` is the most common shape (labels but the hostname, taints, allocatable) among
the nodes the pod could use: those whose allocatable holds it and where it passes
every filter once it asks for no room (one run of the pod without requests says which;
its first replica for a workload). Ties go to the shape whose first node sorts first. One node more never makes
room scarcer, so the count is searched from 1, galloping from a guess: the replicas
that hurt and that what is free on the usable nodes cannot hold, divided by how many
fit on one such node. Each run is on a view of the cluster
with the new nodes only (question.with_nodes): the cached cluster is shared, not copied.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from ...objects import Pod
from ...plugins.podtopologyspread import LABEL_HOSTNAME
from ..question import Asked, Run
from ..result import AddNodes, AdviceKind
from ..search import KindBudget, Probe, least_passing
from .common import (
    KindAdvice,
    Searching,
    answer_or_none,
    each_container,
    hurting_objects,
    pod_spec,
    runs_clean,
    step_less,
)


def _without_requests(obj: dict[str, Any]) -> dict[str, Any]:
    """The object's pod asking for no room: what its node would have to pass besides."""
    obj = copy.deepcopy(obj)
    spec = pod_spec(obj)
    spec.pop("overhead", None)
    spec.pop("resources", None)
    for _, _, c in each_container(spec):
        c.pop("resources", None)
    meta = obj.get("metadata") or {}
    if obj.get("kind", "Pod") != "Pod":
        meta = {
            **(obj["spec"]["template"].get("metadata") or {}),
            "name": meta.get("name"),
            "namespace": meta.get("namespace"),
        }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def shape(asked: Asked, node: str) -> str:
    n = asked.cluster.node_info_by_name[node].node
    labels = {k: v for k, v in n.labels.items() if k != LABEL_HOSTNAME}
    return json.dumps([labels, n.taints, n.allocatable], sort_keys=True)


def like_node(asked: Asked, usable: list[str]) -> str | None:
    if not usable:
        return None
    shapes = Counter(shape(asked, n) for n in usable)
    first: dict[str, str] = {}
    for n in sorted(usable):
        first.setdefault(shape(asked, n), n)
    # The most nodes; among equals, the shape whose first node sorts first.
    best = min(shapes, key=lambda s: (-shapes[s], first[s]))
    return first[best]


def search(asked: Asked, base: Run, budget: KindBudget) -> KindAdvice:
    with Searching(AdviceKind.ADD_NODES, budget) as s:
        for index in hurting_objects(asked, base):
            obj = asked.objects()[index]
            probe_pod = _without_requests(obj)
            s.mark()
            budget.spend()
            requests = Pod.from_dict(
                {"metadata": {"name": "advice"}, "spec": pod_spec(obj)}
            ).requests
            usable = _usable(asked, probe_pod, dict(requests))
            like = like_node(asked, usable)
            if like is None:
                continue
            hurt = _hurting_replicas(asked, base, index)
            per_node = _per_node(asked, like, obj)
            # The replicas what is free on the usable nodes cannot hold, on new nodes.
            homeless = max(1, _replicas(asked, index) - _fitting(asked, usable, requests))
            guess = max(1, -(-min(hurt, homeless) // per_node)) if per_node else 1
            probe: Probe[Run | None] = Probe(
                run=_adding(asked, like),
                passes=runs_clean,
                budget=budget,
            )
            found = least_passing(probe, 1, max(guess, hurt), guess=guess)
            if found is None:
                continue
            n = found.step
            less = (
                step_less(AddNodes(n - 1, like), found.below)
                if found.below is not None
                else step_less(None, base)
            )
            s.add(
                AddNodes(n, like),
                found.run,
                less=less,
                summary=f"add {n} node{'s' if n != 1 else ''} like {like}",
            )
    return s.found


def _usable(asked: Asked, pod: dict[str, Any], requests: dict[str, int]) -> list[str]:
    """The nodes the pod passes every filter of when it asks for no room, and whose
    allocatable would hold it."""
    result = asked.analyze_pod(pod)
    if result is None:
        return []
    infos = asked.cluster.node_info_by_name
    return [
        n
        for n in result.feasible_nodes
        if all(infos[n].node.allocatable.get(r, 0) >= v for r, v in requests.items())
    ]


def _hurting_replicas(asked: Asked, base: Run, index: int) -> int:
    """How many of the object's pods preempted or were left pending."""
    if asked.is_pod:
        return 1
    sim = base.simulation
    assert sim is not None
    own = set(asked.expand(asked.objects()).objects[index].pod_keys)
    hurt = {c.pod for c in sim.cycles if c.victims} | set(base.answer.pending)
    return len(own & hurt)


def _replicas(asked: Asked, index: int) -> int:
    return 1 if asked.is_pod else asked.expand(asked.objects()).objects[index].replicas


def _fitting(asked: Asked, usable: list[str], requests: dict[str, int]) -> int:
    """How many such pods what is free on the usable nodes holds."""
    total = 0
    for name in usable:
        ni = asked.cluster.node_info_by_name[name]
        free = [
            (ni.node.allocatable.get(r, 0) - ni.requested.get(r, 0)) // v
            for r, v in requests.items()
            if v
        ]
        total += max(0, min(free)) if free else 0
    return total


def _per_node(asked: Asked, like: str, obj: dict[str, Any]) -> int:
    """How many of the object's pods fit on an empty node like ``like`` (0: none)."""
    pod = Pod.from_dict({"metadata": {"name": "advice"}, "spec": pod_spec(obj)})
    allocatable = asked.cluster.node_info_by_name[like].node.allocatable
    fits = [allocatable.get(r, 0) // v for r, v in pod.requests.items() if v]
    if "pods" in allocatable:
        fits.append(allocatable["pods"])
    return min(fits) if fits else 1


def _adding(asked: Asked, like: str) -> Callable[[int], Run | None]:
    return lambda n: answer_or_none(asked, AddNodes(n, like))
