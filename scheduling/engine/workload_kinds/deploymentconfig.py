"""OpenShift's apps.openshift.io/v1 DeploymentConfig: its deployer makes ReplicationController
``<name>-<version>`` (version 1 for a new one), which makes ``replicas`` pods of the
template, labelled as OpenShift labels them. Its selector is a plain map (a
ReplicationController's), defaulted to the template's labels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from ..workload import (
    ControllerRef,
    _Context,
    _count,
    _labels,
    _nonzero,
    _replica_set_pods,
    _template,
    object_uid,
)

GROUP = "apps.openshift.io"


def expand_deployment_config(
    ctx: _Context, obj: Mapping[str, Any], namespace: str, name: str
) -> tuple[str, list[dict[str, Any]]]:
    api_version = str(obj.get("apiVersion") or "")
    if api_version not in (f"{GROUP}/v1", "v1"):
        raise InvalidInput(
            f"Unsupported value: {api_version!r}: a DeploymentConfig is {GROUP}/v1",
            field="apiVersion",
        )
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        raise InvalidInput("Required value", field="spec")
    replicas = _count(spec.get("replicas"), "spec.replicas", 1)
    meta, pod_spec = _template(spec)
    labels = _labels(meta, "spec.template.metadata.labels")
    selector = spec.get("selector") or labels
    if not isinstance(selector, Mapping) or any(
        labels.get(k) != str(v) for k, v in selector.items()
    ):
        raise InvalidInput(
            "Invalid value: `selector` does not match template `labels`", field="spec.selector"
        )
    _nonzero(replicas, "spec.replicas")
    ctx.reserve(replicas)
    rc_name = f"{name}-1"
    owner = ControllerRef(
        "v1",
        "ReplicationController",
        rc_name,
        object_uid("ReplicationController", namespace, rc_name),
    )
    pods = _replica_set_pods(
        ctx,
        namespace=namespace,
        rs_name=rc_name,
        owner=owner,
        template_meta=meta,
        pod_spec=pod_spec,
        labels={
            **labels,
            "deployment": rc_name,
            "deploymentconfig": name,
            "deploymentconfig.name": name,
        },
        replicas=replicas,
    )
    return rc_name, pods
