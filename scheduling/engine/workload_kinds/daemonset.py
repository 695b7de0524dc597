"""DaemonSet: one pod per node its template admits, pinned to that node as the DaemonSet
controller pins it (pkg/controller/daemon, v1.35).

Which nodes: NodeShouldRunDaemonPod builds the pod the controller would make (NewPod:
the template with the tolerations util.AddOrUpdateDaemonPodTolerations adds) and asks
its predicates: the template's node selector and required node affinity match the node
(nodeaffinity.GetRequiredNodeAffinity(pod).Match), and no NoSchedule or NoExecute taint
of the node is left untolerated. How it is pinned: util.ReplaceDaemonSetPodNodeNameNodeAffinity
sets the required node affinity to one term, ``metadata.name In [node]`` as a matchFields
requirement (the template's own required terms are replaced; its preferred ones stay),
so kube-scheduler filters every other node out and the pod may preempt on its node.
The pods are named ``<daemonset>-<5 chars>`` and labelled controller-revision-hash and
pod-template-generation (1: a DaemonSet just created), in node order.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from ..objects import Pod
from ..plugins.nodeaffinity import required_node_affinity_matches
from ..plugins.tainttoleration import toleration_tolerates
from ..workload import (
    CONTROLLER_REVISION_HASH_LABEL,
    ControllerRef,
    _check_selector,
    _Context,
    _labels,
    _pod,
    _template,
    object_uid,
    template_hash,
)

POD_TEMPLATE_GENERATION_LABEL = "pod-template-generation"

# util.AddOrUpdateDaemonPodTolerations: a DaemonSet pod stays through node problems and
# tolerates the conditions' taints (TaintNodesByCondition) and a cordon.
DAEMON_POD_TOLERATIONS: tuple[dict[str, str], ...] = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)
# Added only to pods on the host's network (they need no pod network to start).
HOST_NETWORK_TOLERATION = {
    "key": "node.kubernetes.io/network-unavailable",
    "operator": "Exists",
    "effect": "NoSchedule",
}


def daemon_pod_tolerations(pod_spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The template's tolerations with the controller's added (AddOrUpdateTolerationInPodSpec:
    one already there with the same key, operator and effect is replaced)."""
    added = list(DAEMON_POD_TOLERATIONS)
    if pod_spec.get("hostNetwork") is True:
        added.append(HOST_NETWORK_TOLERATION)
    raw = pod_spec.get("tolerations") or []
    if not isinstance(raw, list):
        raise InvalidInput("must be a list", field="spec.template.spec.tolerations")
    out = [dict(t) for t in raw if isinstance(t, Mapping)]
    for tol in added:
        same = [
            i
            for i, t in enumerate(out)
            if (t.get("key") or "") == tol["key"]
            and (t.get("operator") or "Equal") == tol["operator"]
            and (t.get("effect") or "") == tol["effect"]
        ]
        if same:
            out[same[0]] = dict(tol)
        else:
            out.append(dict(tol))
    return out


def _untolerated(taints: list[dict[str, str]], tolerations: list[dict[str, Any]]) -> bool:
    """FindMatchingUntoleratedTaint over the NoSchedule and NoExecute taints."""
    return any(
        t["effect"] in ("NoSchedule", "NoExecute")
        and not any(toleration_tolerates(tol, t) for tol in tolerations)
        for t in taints
    )


def pinned_affinity(affinity: Mapping[str, Any], node: str) -> dict[str, Any]:
    """util.ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes
    ``metadata.name In [node]`` (matchFields), the rest of the affinity kept."""
    out = copy.deepcopy(dict(affinity))
    node_affinity = dict(out.get("nodeAffinity") or {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
        ]
    }
    out["nodeAffinity"] = node_affinity
    return out


def expand_daemon_set(
    ctx: _Context, obj: Mapping[str, Any], namespace: str, name: str
) -> tuple[str, list[dict[str, Any]]]:
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        raise InvalidInput("Required value", field="spec")
    meta, pod_spec = _template(spec)
    labels = _labels(meta, "spec.template.metadata.labels")
    _check_selector("DaemonSet", spec, labels)
    tolerations = daemon_pod_tolerations(pod_spec)
    probe = Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": namespace},
            "spec": {**pod_spec, "tolerations": tolerations},
        }
    )
    admitted = [
        ni
        for ni in ctx.nodes
        if required_node_affinity_matches(probe, ni)
        and not _untolerated(list(ni.node.taints), tolerations)
    ]
    if not admitted:
        raise InvalidInput(
            f"the DaemonSet's node selector, affinity and tolerations admit none of the "
            f"{len(ctx.nodes)} nodes: it would create no pods",
            field="spec.template.spec",
        )
    ctx.reserve(len(admitted))
    owner = ControllerRef("apps/v1", "DaemonSet", name, object_uid("DaemonSet", namespace, name))
    revision = template_hash({"metadata": meta, "spec": pod_spec})
    pod_labels = {
        **labels,
        CONTROLLER_REVISION_HASH_LABEL: revision,
        POD_TEMPLATE_GENERATION_LABEL: "1",
    }
    pods = []
    for ni in admitted:
        pod = _pod(
            name=ctx.names.generate(namespace, name, f"{namespace}/{name}/{ni.name}"),
            namespace=namespace,
            template_meta=meta,
            pod_spec=pod_spec,
            labels=pod_labels,
            owner=owner,
        )
        pod["spec"]["tolerations"] = tolerations
        pod["spec"]["affinity"] = pinned_affinity(pod_spec.get("affinity") or {}, ni.name)
        pods.append(pod)
    return "", pods
