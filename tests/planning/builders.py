"""Hand-written stored answers: a single pod's result contract with its victims' details,
and a workload's stored run, each with only what a reader of the contract needs."""

from __future__ import annotations

from typing import Any

from scheduling.engine import VictimDetail
from scheduling.engine.explanation import PDBState


def pod_result(
    outcome: str,
    node: str | None = None,
    victims: list[str] | None = None,
    *,
    pod: str = "default/orange-0",
    priority_class: str = "cat-3",
    priority: int = 30000,
    pdb_violations: int = 0,
) -> dict[str, Any]:
    return {
        "pod": pod,
        "priority": priority,
        "priority_class": priority_class,
        "preemption_policy": "PreemptLowerPriority",
        "outcome": outcome,
        "eligible": True,
        "ineligible_reason": None,
        "node": node,
        "feasible_nodes": [node] if outcome == "fits" and node else [],
        "victims": list(victims or []),
        "pdb_violations": pdb_violations,
        "candidates": [],
        "tied_nodes": [],
        "rejected_nodes": [],
        "message": "",
        "sampling": {"potential_nodes": 0, "window": 0, "nominated": []},
    }


def victim(
    key: str, owner: str | None = None, pdbs: dict[str, int | None] | None = None, **kw: Any
) -> VictimDetail:
    namespace, _, name = key.partition("/")
    return VictimDetail(
        key=key,
        namespace=namespace,
        name=name,
        priority=10000,
        owner=owner,
        pdbs=[PDBState(pdb=p, disruptions_allowed=n) for p, n in (pdbs or {}).items()],
        **kw,
    )


def pod_outcome(pod: str, node: str | None, *, attempts: int = 1) -> dict[str, Any]:
    return {
        "pod": pod,
        "priority": 30000,
        "priority_class": "cat-3",
        "preemption_policy": "PreemptLowerPriority",
        "final": "bound" if node else "pending",
        "node": node,
        "nominated_node": None,
        "attempts": attempts,
    }


def workload_run(
    *,
    bound: dict[str, str | None],
    victims: list[tuple[str, str, str]],
    owners: list[tuple[str, int, int]],
    pdb_report: list[dict[str, Any]] | None = None,
    recreated: list[tuple[str, str, str, str | None]] | None = None,
    name: str = "web",
) -> dict[str, Any]:
    """A stored run (WorkloadRun.to_json()) of Deployment default/<name> whose pods are
    ``bound`` (pod -> node, None: left pending); ``victims``: (pod, owner, node);
    ``owners``: (owner, before, after) in namespace default; ``recreated``: (victim,
    new pod, owner, node the new pod runs on or None)."""
    recreated = recreated or []
    pods = [pod_outcome(p, n) for p, n in bound.items()]
    pods += [pod_outcome(new, node) for _, new, _, node in recreated]
    pending = [p["pod"] for p in pods if p["final"] == "pending"]
    contract: dict[str, Any] = {
        "pods": pods,
        "cycles": [],
        "events": [],
        "deleted_victims": sorted(v for v, _, _ in victims),
        "nominations": [],
        "flushes": [],
        "stop_reason": "queue-empty" if not pending else "no-progress-after-flush",
        "final_queue": {"active": [], "backoff": [], "unschedulable": pending},
        "pdb_report": pdb_report or [],
        "choice_points": [],
    }
    if recreated:
        contract["recreated"] = [
            {"victim": v, "pod": new, "owner": owner} for v, new, owner, _ in recreated
        ]
    return {
        "schema_version": 2,
        "contract": contract,
        "objects": [
            {
                "kind": "Deployment",
                "namespace": "default",
                "name": name,
                "replica_set": f"{name}-rs",
                "pod_keys": list(bound),
            }
        ],
        "victims": [
            {
                "pod": v,
                "namespace": "default",
                "owner": owner,
                "priority": 10000,
                "priority_class": "cat-1",
                "node": node,
                "cycle": 1,
                "preemptor": next(iter(bound)),
                "pdbs": [],
            }
            for v, owner, node in victims
        ],
        "nodes": [],
        "owners": [
            {
                "owner": o,
                "namespace": "default",
                "before": before,
                "after": after,
                "evicted": before - after,
                "recreated": 0,
            }
            for o, before, after in owners
        ],
        "recreate_victims": bool(recreated),
    }
