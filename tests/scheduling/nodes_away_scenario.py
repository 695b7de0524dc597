"""The hand-made cluster of taking nodes away: three 4-CPU nodes. node-1 holds two 1500m
replicas of a high-priority Deployment (ReplicaSet web-5d8f) under a PDB allowing one
disruption, a bare pod and a DaemonSet pod; node-2 and node-3 hold low-priority bare pods
of 2000m and 3000m.

Drained with force: the DaemonSet pod stays, the bare pod is deleted, the first
replacement fits on node-2 (2 CPU free there, 1 on node-3), the second preempts the
2000m pod on node-2 (node-2 and node-3 tie on every criterion: by name), and the drain
completes. Without force it stops at the bare pod; with a PDB of minAvailable 2 (no
disruption allowed) it is blocked, naming the budget and the replica.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.clusters.builders import make_node, make_pdb, make_pod, make_priority_class

NODES = ("node-1", "node-2", "node-3")
REPLICAS = ("default/web-5d8f-a1", "default/web-5d8f-b2")
BARE = "default/bare"
DAEMON = "kube-system/agent-x7"
LOW_2000 = "default/low-2000"
LOW_3000 = "default/low-3000"


def _owned(pod: dict[str, Any], kind: str, name: str) -> dict[str, Any]:
    pod["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "apps/v1",
            "kind": kind,
            "name": name,
            "uid": f"uid-{kind}-{name}",
            "controller": True,
        }
    ]
    return pod


def nodes_away_objects(*, min_available: int = 1) -> list[dict[str, Any]]:
    """The cluster; ``min_available`` 2 leaves the replicas' PDB no disruption."""
    objects: list[dict[str, Any]] = [
        make_priority_class("high", 1000),
        make_priority_class("low", 100),
        *(make_node(n, cpu="4", memory="16Gi") for n in NODES),
    ]
    for key in REPLICAS:
        name = key.split("/")[1]
        objects.append(
            _owned(
                make_pod(
                    name,
                    node="node-1",
                    cpu="1500m",
                    memory="1Gi",
                    priority_class="high",
                    labels={"app": "web", "pod-template-hash": "5d8f"},
                ),
                "ReplicaSet",
                "web-5d8f",
            )
        )
    objects.append(make_pod("bare", node="node-1", cpu="250m", memory="256Mi"))
    objects.append(
        _owned(
            make_pod(
                "agent-x7",
                namespace="kube-system",
                node="node-1",
                cpu="100m",
                memory="128Mi",
                labels={"app": "agent"},
            ),
            "DaemonSet",
            "agent",
        )
    )
    objects.append(
        make_pod("low-2000", node="node-2", cpu="2000m", memory="1Gi", priority_class="low")
    )
    objects.append(
        make_pod("low-3000", node="node-3", cpu="3000m", memory="1Gi", priority_class="low")
    )
    allowed = 1 if min_available < 2 else 0
    pdb = make_pdb("web-pdb", app="web", min_available=min_available, allowed=allowed)
    pdb["status"]["desiredHealthy"] = min_available
    objects.append(pdb)
    return copy.deepcopy(objects)
