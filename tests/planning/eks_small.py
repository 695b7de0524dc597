"""An EKS cluster of t3.small nodes, nearly full, as `kubectl get nodes,pods,pdb,
priorityclasses -A -o json` writes it: 2 vCPU and 2 GiB each (1930m and 1,483,296Ki
allocatable, 11 pods, the figures EKS's bootstrap reserves), aws-node and kube-proxy on
every node (system-node-critical), two coredns replicas with their budget
(system-cluster-critical), and an app's pods at priority 0. The real dumps have no such
small nodes: no 2Gi pod fits on any of them, even after preemption."""

from __future__ import annotations

from typing import Any

NODES = [
    "ip-10-0-136-217.us-east-2.compute.internal",
    "ip-10-0-151-42.us-east-2.compute.internal",
    "ip-10-0-172-9.us-east-2.compute.internal",
]
STARTED = "2024-03-11T08:14:07Z"


def _node(name: str, zone: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "t3.small",
                "topology.kubernetes.io/zone": zone,
                "eks.amazonaws.com/nodegroup": "small",
            },
        },
        "status": {
            "capacity": {"cpu": "2", "memory": "2002464Ki", "pods": "11"},
            "allocatable": {"cpu": "1930m", "memory": "1483296Ki", "pods": "11"},
        },
    }


def _pod(
    namespace: str,
    name: str,
    node: str,
    *,
    owner: tuple[str, str],
    cpu: str,
    memory: str,
    app: str,
    klass: str | None = None,
    priority: int = 0,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "nodeName": node,
        "priority": priority,
        "containers": [
            {
                "name": app,
                "image": f"registry.example.com/{app}:1",
                "resources": {"requests": {"cpu": cpu, "memory": memory}},
            }
        ],
    }
    if klass:
        spec["priorityClassName"] = klass
    kind, owner_name = owner
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{namespace}-{name}",
            "labels": {"k8s-app": app},
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": kind, "name": owner_name, "controller": True}
            ],
        },
        "spec": spec,
        "status": {"phase": "Running", "startTime": STARTED},
    }


def eks_small() -> dict[str, Any]:
    """The cluster as one v1 List."""
    items: list[dict[str, Any]] = [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "system-node-critical"},
            "value": 2000001000,
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "system-cluster-critical"},
            "value": 2000000000,
        },
    ]
    for i, name in enumerate(NODES):
        items.append(_node(name, f"us-east-2{'abc'[i]}"))
        suffix = f"{i}x{i}k"
        critical = {"klass": "system-node-critical", "priority": 2000001000}
        items.append(
            _pod(
                "kube-system",
                f"aws-node-{suffix}",
                name,
                owner=("DaemonSet", "aws-node"),
                cpu="25m",
                memory="0",
                app="aws-node",
                **critical,
            )
        )
        items.append(
            _pod(
                "kube-system",
                f"kube-proxy-{suffix}",
                name,
                owner=("DaemonSet", "kube-proxy"),
                cpu="100m",
                memory="0",
                app="kube-proxy",
                **critical,
            )
        )
        # Six of the app's pods a node: with the two above and coredns, nearly 11.
        for j in range(6):
            items.append(
                _pod(
                    "shop",
                    f"web-7c9f8d6b5-{i}{j}q",
                    name,
                    owner=("ReplicaSet", "web-7c9f8d6b5"),
                    cpu="250m",
                    memory="160Mi",
                    app="web",
                )
            )
    for i in range(2):
        items.append(
            _pod(
                "kube-system",
                f"coredns-5d8f7b9c6-{i}m2x",
                NODES[i],
                owner=("ReplicaSet", "coredns-5d8f7b9c6"),
                cpu="100m",
                memory="70Mi",
                app="kube-dns",
                klass="system-cluster-critical",
                priority=2000000000,
            )
        )
    items.append(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "coredns", "namespace": "kube-system"},
            "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"k8s-app": "kube-dns"}}},
            "status": {
                "disruptionsAllowed": 1,
                "currentHealthy": 2,
                "desiredHealthy": 1,
                "expectedPods": 2,
            },
        }
    )
    return {"apiVersion": "v1", "kind": "List", "items": items}
