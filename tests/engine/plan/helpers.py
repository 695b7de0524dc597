"""Small clusters for the plan's tests, built from plain dicts with the engine builders."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from scheduling.engine import load_cluster
from scheduling.engine.plan import Finding, audit

from ..builders import PodBuilder, make_pod


def owned(pod: dict[str, Any], kind: str, name: str) -> dict[str, Any]:
    pod["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": kind, "name": name, "controller": True}
    ]
    return pod


def replica(
    deployment: str, i: int, namespace: str = "default", pod_hash: str = "6f7c9"
) -> PodBuilder:
    """A pod of a Deployment's ReplicaSet, labelled app=<deployment> (owner set by ``obj``)."""
    return (
        make_pod(f"{deployment}-{pod_hash}-{i}", namespace)
        .label("app", deployment)
        .label("pod-template-hash", pod_hash)
    )


def deployment_pod(builder: PodBuilder, deployment: str, pod_hash: str = "6f7c9") -> dict[str, Any]:
    return owned(builder.obj(), "ReplicaSet", f"{deployment}-{pod_hash}")


def findings(
    objects: list[dict[str, Any]], rule: str, *, critical_classes: Collection[str] = ()
) -> list[Finding]:
    return [
        f for f in audit(load_cluster(objects), critical_classes=critical_classes) if f.rule == rule
    ]
