"""Small kubectl-shaped objects for tests: make_node(), make_pod(), ... and dump()."""

from __future__ import annotations

from typing import Any

import orjson


def make_node(name: str = "node-a", *, cpu: str = "4", memory: str = "8Gi") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}},
    }


def make_pod(
    name: str = "web-1",
    *,
    namespace: str = "default",
    node: str | None = "node-a",
    cpu: str = "500m",
    memory: str = "256Mi",
    priority_class: str | None = None,
    labels: dict[str, str] | None = None,
    phase: str = "Running",
    env: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "main",
        "image": "registry.example.com/web:1",
        "resources": {"requests": {"cpu": cpu, "memory": memory}},
    }
    if env is not None:
        container["env"] = env
    spec: dict[str, Any] = {"containers": [container]}
    if node:
        spec["nodeName"] = node
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{namespace}-{name}",
            "labels": labels or {"app": name.rsplit("-", 1)[0]},
        },
        "spec": spec,
        "status": {"phase": phase, "startTime": "2025-01-06T09:00:00Z"},
    }


def make_priority_class(name: str, value: int, *, default: bool = False) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name, "creationTimestamp": "2025-01-01T00:00:00Z"},
        "value": value,
    }
    if default:
        obj["globalDefault"] = True
    return obj


def make_pdb(
    name: str, *, app: str, min_available: int = 1, allowed: int = 1, namespace: str = "default"
) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": app}}},
        "status": {"disruptionsAllowed": allowed, "currentHealthy": 2, "desiredHealthy": 1},
    }


def as_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": items}


def dump(items: list[dict[str, Any]]) -> bytes:
    """A v1 List as kubectl -o json prints it."""
    return orjson.dumps(as_list(items), option=orjson.OPT_INDENT_2)


def small_cluster() -> list[dict[str, Any]]:
    return [
        make_priority_class("low", 100, default=True),
        make_priority_class("high", 1000),
        make_node("node-a"),
        make_node("node-b"),
        make_pod("web-1", node="node-a", labels={"app": "web"}),
        make_pod("web-2", node="node-b", labels={"app": "web"}),
        make_pod("db-1", namespace="data", node="node-a", priority_class="high"),
        make_pod("job-1", node=None, phase="Pending"),
        make_pdb("web-pdb", app="web"),
    ]


def make_deployment(
    name: str, pod_spec: dict[str, Any], *, replicas: int, namespace: str = "default"
) -> dict[str, Any]:
    """A Deployment of ``replicas`` pods of ``pod_spec``, labelled app=<name>."""
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "template": {"metadata": {"labels": dict(labels)}, "spec": pod_spec},
        },
    }
