"""What the plan calls an app, and how it names objects.

An app is a pod's controlling owner: a ReplicaSet made by a Deployment (its name is the
Deployment's plus "-" and the pods' pod-template-hash label) counts as that Deployment,
so the replicas of two rollouts are one app. A pod without an owner is its own app.
Objects are named "Kind namespace/name", or "Kind name" when cluster-scoped, the form
InvalidInput and kubectl's messages use.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..labels import LabelSelector
from ..objects import Pod

# Labels a controller stamps per revision or per replica: never part of an app's selector.
GENERATED_LABELS = frozenset(
    {
        "pod-template-hash",
        "controller-revision-hash",
        "pod-template-generation",
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
        "batch.kubernetes.io/controller-uid",
        "batch.kubernetes.io/job-name",
        "controller-uid",
        "job-name",
        "batch.kubernetes.io/job-completion-index",
    }
)


def pod_ref(pod: Pod) -> str:
    return f"Pod {pod.key}"


def class_ref(name: str) -> str:
    return f"PriorityClass {name}"


def pdb_ref(namespace: str, name: str) -> str:
    return f"PodDisruptionBudget {namespace}/{name}"


def quota_ref(namespace: str, name: str) -> str:
    return f"ResourceQuota {namespace}/{name}"


def namespace_ref(name: str) -> str:
    return f"Namespace {name}"


def app_of(pod: Pod) -> str:
    """The app a pod belongs to, as an object reference."""
    owner = pod.owner
    if owner is None:
        return pod_ref(pod)
    kind, _, name = owner.partition("/")
    if kind == "ReplicaSet":
        pod_hash = pod.labels.get("pod-template-hash")
        if pod_hash and name.endswith("-" + pod_hash):
            return f"Deployment {pod.namespace}/{name[: -len(pod_hash) - 1]}"
    return f"{kind} {pod.namespace}/{name}"


def app_kind(app: str) -> str:
    return app.partition(" ")[0]


def app_name(app: str) -> tuple[str, str]:
    """(namespace, name) of an app reference."""
    namespace, _, name = app.partition(" ")[2].partition("/")
    return namespace, name


def common_labels(pods: Iterable[Pod]) -> dict[str, str]:
    """The labels every one of the pods carries with the same value, less the generated
    ones: a selector that picks exactly the app, as far as its labels allow."""
    common: dict[str, str] | None = None
    for pod in pods:
        if common is None:
            common = {k: v for k, v in pod.labels.items() if k not in GENERATED_LABELS}
        else:
            common = {k: v for k, v in common.items() if pod.labels.get(k) == v}
        if not common:
            return {}
    return dict(sorted((common or {}).items()))


def selector_text(selector: LabelSelector) -> str:
    """A label selector as kubectl's -l flag writes it: "app=web,tier in (a,b),!canary"."""
    if selector.nothing:
        return "nothing"
    parts: list[str] = []
    for key, op, values in selector.requirements:
        if op == "In" and len(values) == 1:
            parts.append(f"{key}={next(iter(values))}")
        elif op in ("In", "NotIn"):
            parts.append(f"{key} {op.lower()} ({','.join(sorted(values))})")
        elif op == "Exists":
            parts.append(key)
        else:
            parts.append(f"!{key}")
    return ",".join(parts) or "every pod"
