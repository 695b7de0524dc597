"""Argo Rollouts' argoproj.io/v1alpha1 Rollout: as a Deployment of its pod template and
replicas (its controller makes ReplicaSet ``<rollout>-<hash>`` labelled
rollouts-pod-template-hash, whatever the canary or blue-green strategy: a first rollout
goes straight to the full count). A Rollout that points at a Deployment's template
(``workloadRef``) is refused: give the Deployment itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from ..workload import (
    ControllerRef,
    _Context,
    _replica_set_pods,
    _replicated_template,
    object_uid,
    template_hash,
)

GROUP = "argoproj.io"
ROLLOUTS_HASH_LABEL = "rollouts-pod-template-hash"


def expand_rollout(
    ctx: _Context, obj: Mapping[str, Any], namespace: str, name: str
) -> tuple[str, list[dict[str, Any]]]:
    api_version = str(obj.get("apiVersion") or "")
    if not api_version.startswith(f"{GROUP}/"):
        raise InvalidInput(
            f"Unsupported value: {api_version!r}: a Rollout is {GROUP}/v1alpha1", field="apiVersion"
        )
    spec = obj.get("spec")
    if isinstance(spec, Mapping) and spec.get("workloadRef") and not spec.get("template"):
        raise InvalidInput(
            "the Rollout takes its pod template from a Deployment (workloadRef): give that "
            "Deployment's manifest instead",
            field="spec.workloadRef",
        )
    replicas, meta, pod_spec, labels = _replicated_template("Rollout", obj)
    ctx.reserve(replicas)
    pod_hash = template_hash({"metadata": meta, "spec": pod_spec})
    rs_name = f"{name}-{pod_hash}"
    owner = ControllerRef(
        "apps/v1", "ReplicaSet", rs_name, object_uid("ReplicaSet", namespace, rs_name)
    )
    pods = _replica_set_pods(
        ctx,
        namespace=namespace,
        rs_name=rs_name,
        owner=owner,
        template_meta=meta,
        pod_spec=pod_spec,
        labels={**labels, ROLLOUTS_HASH_LABEL: pod_hash},
        replicas=replicas,
    )
    return rs_name, pods
