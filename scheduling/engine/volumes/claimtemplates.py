"""A StatefulSet's volumeClaimTemplates: the claim ``<template>-<statefulset>-<ordinal>``
each replica mounts, which the StatefulSet controller creates when it is missing.

The pending pods of a workload carry the claims their controller would create in the
CLAIMS_ANNOTATION (as CREATED_AFTER carries the ordering): simulate() creates those
that the cluster does not already hold when the pod is submitted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput

CLAIMS_ANNOTATION = "preemptlab.io/volume-claims"


def claim_name(template: str, stateful_set: str, ordinal: int) -> str:
    """getPersistentVolumeClaimName."""
    return f"{template}-{stateful_set}-{ordinal}"


def replica_claims(
    templates: list[Any], namespace: str, stateful_set: str, ordinal: int, labels: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The claims of one replica, as the controller's getPersistentVolumeClaims makes them."""
    out: list[dict[str, Any]] = []
    for i, t in enumerate(templates):
        where = f"spec.volumeClaimTemplates[{i}]"
        if not isinstance(t, Mapping):
            raise InvalidInput("must be an object", field=where)
        meta = t.get("metadata")
        name = meta.get("name") if isinstance(meta, Mapping) else None
        if not isinstance(name, str) or not name:
            raise InvalidInput("Required value: a name", field=f"{where}.metadata.name")
        spec = t.get("spec")
        if spec is not None and not isinstance(spec, Mapping):
            raise InvalidInput("must be an object", field=f"{where}.spec")
        out.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {
                    "name": claim_name(name, stateful_set, ordinal),
                    "namespace": namespace,
                    "labels": dict(labels),
                },
                "spec": dict(spec or {}),
                "status": {"phase": "Pending"},
            }
        )
    return out


def pod_claims(raw_pod: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The claims a pending pod's controller creates for it (CLAIMS_ANNOTATION)."""
    meta = raw_pod.get("metadata")
    notes = meta.get("annotations") if isinstance(meta, Mapping) else None
    text = notes.get(CLAIMS_ANNOTATION) if isinstance(notes, Mapping) else None
    if not text:
        return []
    try:
        claims = json.loads(text)
    except (TypeError, ValueError):
        claims = None
    if not isinstance(claims, list):
        raise InvalidInput(
            "must be a JSON list of PersistentVolumeClaims",
            field=f"metadata.annotations[{CLAIMS_ANNOTATION}]",
        )
    return claims
