"""The demo snapshot: the planning example from the Kubernetes documentation.

A full cluster running four apps:
- Blue and Purple in class cat-1 (value 10000, the global default),
  4 replicas each, each with a PDB of minAvailable 3;
- Green and Red in class cat-2 (value 20000), 3 replicas each, each with a PDB
  of minAvailable 2;
- classes cat-3 (30000) and cluster-service (1000000) defined, the latter used
  by an ingress controller; the system classes used by kube-proxy and CoreDNS.

"Full" means no node has a free CPU core: a cat-3 pod requesting 1 CPU and
2 GiB (a normal amount) cannot fit anywhere and must preempt. Every object is
shaped like `kubectl get ... -o json` prints it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

DEMO_NAME = "Demo: the PriorityClass planning example"
NAMESPACE = "default"
CREATED = datetime(2025, 1, 6, 9, 0, 0, tzinfo=UTC)

NODES = ["node-1", "node-2", "node-3", "node-4", "node-5"]
ZONES = ["zone-a", "zone-b", "zone-c", "zone-a", "zone-b"]

# app -> (class, replicas, minAvailable, cpu, memory)
APPS: dict[str, tuple[str, int, int, str, str]] = {
    "blue": ("cat-1", 4, 3, "1", "2Gi"),
    "purple": ("cat-1", 4, 3, "1", "2Gi"),
    "green": ("cat-2", 3, 2, "1", "2Gi"),
    "red": ("cat-2", 3, 2, "1", "2Gi"),
}
# Where each replica runs: node -> [(app, replica)].
PLACEMENT: dict[str, list[tuple[str, int]]] = {
    "node-1": [("blue", 0), ("purple", 0), ("green", 0)],
    "node-2": [("blue", 1), ("purple", 1), ("red", 0)],
    "node-3": [("blue", 2), ("green", 1), ("red", 1)],
    "node-4": [("purple", 2), ("green", 2), ("red", 2)],
    "node-5": [("blue", 3), ("purple", 3)],
}

CLASSES: list[tuple[str, int, bool, str]] = [
    ("cat-1", 10_000, True, "Category 1: stateless apps that tolerate a replica loss."),
    ("cat-2", 20_000, False, "Category 2: apps that must keep most of their replicas."),
    ("cat-3", 30_000, False, "Category 3: critical apps that may preempt cat-1 and cat-2."),
    ("cluster-service", 1_000_000, False, "Cluster services: ingress, monitoring."),
    (
        "system-cluster-critical",
        2_000_000_000,
        False,
        "Used for system critical pods that must run in the cluster, but can be moved "
        "to another node if necessary.",
    ),
    (
        "system-node-critical",
        2_000_001_000,
        False,
        "Used for system critical pods that must not be moved from their current node.",
    ),
]
CLASS_VALUES = {name: value for name, value, _, _ in CLASSES}


def _ts(delta: timedelta = timedelta()) -> str:
    return (CREATED + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def _uid(*parts: object) -> str:
    import hashlib

    h = hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _suffix(*parts: object) -> str:
    import hashlib

    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    digest = hashlib.sha1("/".join(map(str, parts)).encode()).digest()
    return "".join(alphabet[b % len(alphabet)] for b in digest[:5])


def _priority_class(name: str, value: int, default: bool, description: str) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {
            "name": name,
            "uid": _uid("pc", name),
            "resourceVersion": "81",
            "creationTimestamp": _ts(),
        },
        "value": value,
        "preemptionPolicy": "PreemptLowerPriority",
        "description": description,
    }
    if default:
        obj["globalDefault"] = True
    return obj


def _node(index: int, name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": _uid("node", name),
            "creationTimestamp": _ts(),
            "labels": {
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "standard-4",
                "topology.kubernetes.io/zone": ZONES[index],
            },
        },
        "spec": {"podCIDR": f"10.244.{index}.0/24"},
        "status": {
            "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"},
            "allocatable": {
                "cpu": "3500m",
                "memory": "7680Mi",
                "pods": "110",
                "ephemeral-storage": "95Gi",
            },
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "kubelet is posting ready status",
                    "lastTransitionTime": _ts(),
                }
            ],
            "nodeInfo": {"kubeletVersion": "v1.33.1", "osImage": "Debian GNU/Linux 12"},
        },
    }


def _pod(
    *,
    namespace: str,
    name: str,
    node: str,
    labels: dict[str, str],
    owner: tuple[str, str],
    priority_class: str,
    image: str,
    requests: dict[str, str],
    limits: dict[str, str] | None = None,
    started: timedelta,
) -> dict[str, Any]:
    resources: dict[str, Any] = {"requests": requests}
    if limits:
        resources["limits"] = limits
    guaranteed = limits == requests
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": _uid("pod", namespace, name),
            "creationTimestamp": _ts(started),
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": owner[0],
                    "name": owner[1],
                    "uid": _uid("owner", namespace, *owner),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "containers": [
                {
                    "name": labels.get("app", name.split("-")[0]),
                    "image": image,
                    "resources": resources,
                    "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                }
            ],
            "nodeName": node,
            "priorityClassName": priority_class,
            "priority": CLASS_VALUES[priority_class],
            "preemptionPolicy": "PreemptLowerPriority",
            "schedulerName": "default-scheduler",
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "tolerations": [
                {
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                }
            ],
        },
        "status": {
            "phase": "Running",
            "startTime": _ts(started),
            "qosClass": "Guaranteed" if guaranteed else "Burstable",
            "conditions": [
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": _ts(started)},
                {"type": "Ready", "status": "True", "lastTransitionTime": _ts(started)},
            ],
        },
    }


def _pdb(app: str, replicas: int, min_available: int) -> dict[str, Any]:
    allowed = max(0, replicas - min_available)
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {
            "name": f"{app}-pdb",
            "namespace": NAMESPACE,
            "uid": _uid("pdb", app),
            "generation": 1,
            "creationTimestamp": _ts(),
        },
        "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": app}}},
        "status": {
            "observedGeneration": 1,
            "currentHealthy": replicas,
            "desiredHealthy": min_available,
            "expectedPods": replicas,
            "disruptionsAllowed": allowed,
            "conditions": [
                {
                    "type": "DisruptionAllowed",
                    "status": "True" if allowed else "False",
                    "reason": "SufficientPods" if allowed else "InsufficientPods",
                    "observedGeneration": 1,
                    "lastTransitionTime": _ts(),
                }
            ],
        },
    }


def demo_objects() -> dict[str, Any]:
    """The demo cluster as one v1 List, as `kubectl get ... -o json` prints it."""
    items: list[dict[str, Any]] = []
    items += [_priority_class(*c) for c in CLASSES]
    items += [_node(i, n) for i, n in enumerate(NODES)]
    for i, node in enumerate(NODES):
        items.append(
            _pod(
                namespace="kube-system",
                name=f"kube-proxy-{_suffix('kube-proxy', node)}",
                node=node,
                labels={"k8s-app": "kube-proxy"},
                owner=("DaemonSet", "kube-proxy"),
                priority_class="system-node-critical",
                image="registry.k8s.io/kube-proxy:v1.33.1",
                requests={"cpu": "100m", "memory": "128Mi"},
                started=timedelta(minutes=i),
            )
        )
    for i, node in enumerate(NODES[:2]):
        items.append(
            _pod(
                namespace="kube-system",
                name=f"coredns-5d78c9869d-{_suffix('coredns', i)}",
                node=node,
                labels={"k8s-app": "kube-dns"},
                owner=("ReplicaSet", "coredns-5d78c9869d"),
                priority_class="system-cluster-critical",
                image="registry.k8s.io/coredns/coredns:v1.12.0",
                requests={"cpu": "100m", "memory": "70Mi"},
                limits={"memory": "170Mi"},
                started=timedelta(minutes=10 + i),
            )
        )
    items.append(
        _pod(
            namespace="ingress-nginx",
            name=f"ingress-nginx-controller-7c6974c4d8-{_suffix('ingress')}",
            node="node-5",
            labels={"app.kubernetes.io/name": "ingress-nginx"},
            owner=("ReplicaSet", "ingress-nginx-controller-7c6974c4d8"),
            priority_class="cluster-service",
            image="registry.k8s.io/ingress-nginx/controller:v1.12.1",
            requests={"cpu": "1", "memory": "1Gi"},
            limits={"cpu": "1", "memory": "1Gi"},
            started=timedelta(minutes=20),
        )
    )
    minute = 30
    for node, placed in PLACEMENT.items():
        for app, replica in placed:
            cls, _, _, cpu, memory = APPS[app]
            rs = f"{app}-{_suffix(app, 'rs')}"
            minute += 1
            items.append(
                _pod(
                    namespace=NAMESPACE,
                    name=f"{rs}-{_suffix(app, replica)}",
                    node=node,
                    labels={"app": app, "pod-template-hash": rs.split("-")[-1]},
                    owner=("ReplicaSet", rs),
                    priority_class=cls,
                    image=f"registry.example.com/{app}:1.4.2",
                    requests={"cpu": cpu, "memory": memory},
                    limits={"cpu": cpu, "memory": memory},
                    started=timedelta(hours=1, minutes=minute),
                )
            )
    items += [_pdb(app, replicas, min_av) for app, (_, replicas, min_av, _, _) in APPS.items()]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def demo_cat3_pod() -> dict[str, Any]:
    """The question the demo is built for: where would a cat-3 app's pod go?"""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "orange-0", "namespace": NAMESPACE, "labels": {"app": "orange"}},
        "spec": {
            "priorityClassName": "cat-3",
            "containers": [
                {
                    "name": "orange",
                    "image": "registry.example.com/orange:1.0.0",
                    "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
                }
            ],
        },
    }
