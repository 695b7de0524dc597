"""Fluent builders for Kubernetes objects as plain dicts, in the spirit of
pkg/scheduler/testing/wrappers.go: make_pod("web").priority(10).req(cpu="500m").obj()."""

from __future__ import annotations

import copy
from typing import Any


class PodBuilder:
    def __init__(self, name: str, namespace: str = "default") -> None:
        self._pod: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": f"uid-{namespace}-{name}",
                "labels": {},
            },
            "spec": {
                "containers": [{"name": "c0", "image": "app:1", "resources": {"requests": {}}}],
                "schedulerName": "default-scheduler",
            },
            "status": {"phase": "Pending"},
        }

    @property
    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = self._pod["spec"]
        return spec

    def uid(self, uid: str) -> PodBuilder:
        self._pod["metadata"]["uid"] = uid
        return self

    def labels(self, **labels: str) -> PodBuilder:
        self._pod["metadata"]["labels"].update(labels)
        return self

    def label(self, key: str, value: str) -> PodBuilder:
        self._pod["metadata"]["labels"][key] = value
        return self

    def priority(self, value: int) -> PodBuilder:
        self._spec["priority"] = value
        return self

    def priority_class(self, name: str) -> PodBuilder:
        self._spec["priorityClassName"] = name
        return self

    def preemption_policy(self, policy: str) -> PodBuilder:
        self._spec["preemptionPolicy"] = policy
        return self

    def req(self, **resources: str) -> PodBuilder:
        """Requests of the first container; use gpu= for nvidia.com/gpu, ephemeral= for storage."""
        reqs = self._spec["containers"][0]["resources"]["requests"]
        for k, v in resources.items():
            reqs[{"gpu": "nvidia.com/gpu", "ephemeral": "ephemeral-storage"}.get(k, k)] = v
        return self

    def container(self, image: str = "app:1", **requests: str) -> PodBuilder:
        n = len(self._spec["containers"])
        self._spec["containers"].append(
            {"name": f"c{n}", "image": image, "resources": {"requests": dict(requests)}}
        )
        return self

    def init_container(self, sidecar: bool = False, **requests: str) -> PodBuilder:
        inits = self._spec.setdefault("initContainers", [])
        c: dict[str, Any] = {
            "name": f"init{len(inits)}",
            "image": "init:1",
            "resources": {"requests": dict(requests)},
        }
        if sidecar:
            c["restartPolicy"] = "Always"
        inits.append(c)
        return self

    def overhead(self, **resources: str) -> PodBuilder:
        self._spec["overhead"] = dict(resources)
        return self

    def pod_level(self, **requests: str) -> PodBuilder:
        self._spec["resources"] = {"requests": dict(requests)}
        return self

    def best_effort(self) -> PodBuilder:
        for c in self._spec["containers"]:
            c.pop("resources", None)
        return self

    def node(self, name: str) -> PodBuilder:
        self._spec["nodeName"] = name
        self._pod["status"]["phase"] = "Running"
        return self

    def start_time(self, ts: str) -> PodBuilder:
        self._pod["status"]["startTime"] = ts
        return self

    def nominated(self, node: str) -> PodBuilder:
        self._pod["status"]["nominatedNodeName"] = node
        return self

    def grace(self, seconds: int) -> PodBuilder:
        self._spec["terminationGracePeriodSeconds"] = seconds
        return self

    def annotation(self, key: str, value: str) -> PodBuilder:
        self._pod["metadata"].setdefault("annotations", {})[key] = value
        return self

    def arrives(self, seconds: float) -> PodBuilder:
        return self.annotation("preemptlab.io/arrival-seconds", str(seconds))

    def deleted_at(self, seconds: float) -> PodBuilder:
        """A running pod someone else deletes (gracefully) at ``seconds`` of a timed run."""
        return self.annotation("preemptlab.io/delete-at-seconds", str(seconds))

    def terminating(self, by_preemption: bool = True) -> PodBuilder:
        self._pod["metadata"]["deletionTimestamp"] = "2025-06-02T09:00:00Z"
        if by_preemption:
            self._pod["status"]["conditions"] = [
                {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}
            ]
        return self

    def toleration(
        self, key: str = "", value: str = "", effect: str = "", operator: str = "Equal"
    ) -> PodBuilder:
        self._spec.setdefault("tolerations", []).append(
            {"key": key, "value": value, "effect": effect, "operator": operator}
        )
        return self

    def owned(self, kind: str, name: str) -> PodBuilder:
        """metadata.ownerReferences: one controller reference."""
        self._pod["metadata"]["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": kind, "name": name, "controller": True}
        ]
        return self

    def node_selector(self, **labels: str) -> PodBuilder:
        self._spec["nodeSelector"] = dict(labels)
        return self

    def node_affinity_in(self, key: str, *values: str) -> PodBuilder:
        self._spec.setdefault("affinity", {})["nodeAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}
                ]
            }
        }
        return self

    def preferred_node_affinity(self, weight: int, key: str, *values: str) -> PodBuilder:
        na = self._spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
        na.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append(
            {
                "weight": weight,
                "preference": {
                    "matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]
                },
            }
        )
        return self

    def pod_affinity(
        self, kind: str, term: dict[str, Any], required: bool = True, weight: int = 1
    ) -> PodBuilder:
        """kind: "podAffinity" or "podAntiAffinity"; term: a PodAffinityTerm dict."""
        section = self._spec.setdefault("affinity", {}).setdefault(kind, {})
        if required:
            section.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(term)
        else:
            section.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append(
                {"weight": weight, "podAffinityTerm": term}
            )
        return self

    def spread(
        self, max_skew: int, topology_key: str, when: str = "DoNotSchedule", **match_labels: str
    ) -> PodBuilder:
        self._spec.setdefault("topologySpreadConstraints", []).append(
            {
                "maxSkew": max_skew,
                "topologyKey": topology_key,
                "whenUnsatisfiable": when,
                "labelSelector": {"matchLabels": dict(match_labels)},
            }
        )
        return self

    def host_port(self, port: int, protocol: str = "TCP", host_ip: str | None = None) -> PodBuilder:
        p: dict[str, Any] = {"containerPort": port, "hostPort": port, "protocol": protocol}
        if host_ip:
            p["hostIP"] = host_ip
        self._spec["containers"][0].setdefault("ports", []).append(p)
        return self

    def image(self, image: str) -> PodBuilder:
        self._spec["containers"][0]["image"] = image
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._pod)


class NodeBuilder:
    def __init__(self, name: str) -> None:
        self._node: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {},
            "status": {
                "allocatable": {
                    "cpu": "4",
                    "memory": "16Gi",
                    "ephemeral-storage": "100Gi",
                    "pods": "110",
                }
            },
        }

    def capacity(self, **resources: str) -> NodeBuilder:
        alloc = self._node["status"]["allocatable"]
        for k, v in resources.items():
            alloc[{"gpu": "nvidia.com/gpu", "ephemeral": "ephemeral-storage"}.get(k, k)] = v
        return self

    def labels(self, **labels: str) -> NodeBuilder:
        self._node["metadata"]["labels"].update(labels)
        return self

    def label(self, key: str, value: str) -> NodeBuilder:
        self._node["metadata"]["labels"][key] = value
        return self

    def zone(self, zone: str) -> NodeBuilder:
        return self.label("topology.kubernetes.io/zone", zone)

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> NodeBuilder:
        self._node["spec"].setdefault("taints", []).append(
            {"key": key, "value": value, "effect": effect}
        )
        return self

    def unschedulable(self) -> NodeBuilder:
        self._node["spec"]["unschedulable"] = True
        return self.taint("node.kubernetes.io/unschedulable")

    def image(self, size: int, *names: str) -> NodeBuilder:
        self._node["status"].setdefault("images", []).append(
            {"names": list(names), "sizeBytes": size}
        )
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._node)


def make_pod(name: str, namespace: str = "default") -> PodBuilder:
    return PodBuilder(name, namespace)


def make_node(name: str) -> NodeBuilder:
    return NodeBuilder(name)


def make_pdb(
    name: str,
    namespace: str = "default",
    *,
    match_labels: dict[str, str] | None = None,
    selector: dict[str, Any] | None = None,
    disruptions_allowed: int = 0,
    disrupted_pods: list[str] | None = None,
    min_available: Any = 1,
) -> dict[str, Any]:
    sel = selector if selector is not None else {"matchLabels": dict(match_labels or {})}
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"selector": sel, "minAvailable": min_available},
        "status": {
            "disruptionsAllowed": disruptions_allowed,
            "disruptedPods": {p: "2025-06-02T09:00:00Z" for p in disrupted_pods or []},
        },
    }


def make_priority_class(
    name: str, value: int, *, global_default: bool = False, policy: str | None = None
) -> dict[str, Any]:
    pc: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "globalDefault": global_default,
    }
    if policy:
        pc["preemptionPolicy"] = policy
    return pc


def as_list(*items: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": ""},
        "items": list(items),
    }
