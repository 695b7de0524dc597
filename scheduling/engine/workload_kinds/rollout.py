"""Argo Rollouts' argoproj.io/v1alpha1 Rollout: as a Deployment of its pod template and
replicas (its controller makes ReplicaSet ``<rollout>-<hash>`` labelled
rollouts-pod-template-hash, whatever the canary or blue-green strategy: a first rollout
goes straight to the full count). A Rollout that points at a Deployment's template
(``workloadRef``) is refused: give the Deployment itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from ..workload import _Context, expand_through_replica_set

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
    return expand_through_replica_set(
        ctx, "Rollout", obj, namespace, name, hash_label=ROLLOUTS_HASH_LABEL
    )
