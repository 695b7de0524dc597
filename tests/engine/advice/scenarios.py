"""Small clusters where a what-if preempts, and an independent way to ask again: the
advised change applied to the snapshot's objects (nodes and budgets written as new
objects, patches applied by the tests' own RFC 6902 applier), the cluster loaded
afresh, and the question answered by analyze or simulate."""

from __future__ import annotations

import copy
from typing import Any

from scheduling.engine import analyze, load_cluster, simulate
from scheduling.engine.advice import AddNodes, CreateObjects, ObjectPatch, StepLess
from scheduling.engine.advice.result import Change
from scheduling.engine.workload import admit, expand_workload
from tests.engine.advice.rfc6902 import apply_patch
from tests.engine.builders import make_node, make_pdb, make_pod, make_priority_class

LOW = make_priority_class("low", 100)
HIGH = make_priority_class("high", 10_000)
WAITING = make_priority_class("high-waiting", 10_000, policy="Never")


def filler(name: str, node: str, cpu: str, app: str) -> dict[str, Any]:
    pod = (
        make_pod(name)
        .priority_class("low")
        .priority(100)
        .labels(app=app, **{"pod-template-hash": "abc"})
        .req(cpu=cpu, memory="1Gi")
        .node(node)
        .start_time("2025-06-01T00:00:00Z")
        .obj()
    )
    pod["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{app}-abc", "controller": True}
    ]
    return pod


def two_nodes(*, zone_b: bool = False, budgets: bool = False) -> list[dict[str, Any]]:
    """node-a and node-b (4 cpu each): 3 cpu taken on a by app red, 3.5 on b by blue."""
    objs = [
        LOW,
        HIGH,
        WAITING,
        make_node("node-a").zone("zone-a").obj(),
        make_node("node-b").zone("zone-b" if zone_b else "zone-a").obj(),
        filler("red-1", "node-a", "1500m", "red"),
        filler("red-2", "node-a", "1500m", "red"),
        filler("blue-1", "node-b", "2", "blue"),
        filler("blue-2", "node-b", "1500m", "blue"),
    ]
    if budgets:
        objs.append(make_pdb("blue", match_labels={"app": "blue"}, disruptions_allowed=0))
    return objs


def pending(cpu: str = "2", name: str = "web") -> dict[str, Any]:
    return make_pod(name).priority_class("high").labels(app="web").req(cpu=cpu, memory="1Gi").obj()


def deployment(replicas: int, cpu: str) -> dict[str, Any]:
    template = make_pod("x").priority_class("high").labels(app="web").req(cpu=cpu).obj()
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": template["metadata"], "spec": template["spec"]},
        },
    }


def applied(
    objects: list[dict[str, Any]], submitted: list[dict[str, Any]], change: Change | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The snapshot's objects and the submitted ones with ``change`` made."""
    objects = copy.deepcopy(objects)
    submitted = copy.deepcopy(submitted)
    if isinstance(change, ObjectPatch):
        submitted[change.object] = apply_patch(submitted[change.object], change.to_dict()["patch"])
    elif isinstance(change, AddNodes):
        like = next(
            o for o in objects if o["kind"] == "Node" and o["metadata"]["name"] == change.like
        )
        for i in range(change.add_nodes):
            node = copy.deepcopy(like)
            name = f"new-{i}"
            node["metadata"]["name"] = name
            node["metadata"]["labels"]["kubernetes.io/hostname"] = name
            objects.append(node)
    elif isinstance(change, CreateObjects):
        for manifest in change.to_dict()["create"]:
            budget = copy.deepcopy(manifest)
            # Created now over healthy pods: the controller allows maxUnavailable.
            budget["status"] = {"disruptionsAllowed": manifest["spec"]["maxUnavailable"]}
            objects.append(budget)
    return objects, submitted


def ask(
    objects: list[dict[str, Any]], submitted: list[dict[str, Any]], change: Change | None
) -> tuple[str, list[str]]:
    """(outcome, victims) of the question with ``change``, asked afresh."""
    objects, submitted = applied(objects, submitted, change)
    cluster = load_cluster(objects)
    if len(submitted) == 1 and submitted[0]["kind"] == "Pod":
        r = analyze(cluster, submitted[0])
        return r.outcome.value, list(r.victims)
    workload = expand_workload(submitted)
    admit(workload, cluster.resolver)
    sim = simulate(cluster, workload.pods)
    bound = sum(1 for p in sim.pods if p.bound)
    outcome = "all-run" if bound == len(sim.pods) else "some-run" if bound else "none-run"
    return outcome, sorted(sim.deleted_victims)


def check_one_step_less(
    objects: list[dict[str, Any]], submitted: list[dict[str, Any]], less: StepLess | None
) -> None:
    assert less is not None
    outcome, victims = ask(objects, submitted, less.change)
    assert victims, "one step less must still evict"
    assert (outcome, victims) == (less.outcome, sorted(less.victims))
