"""Workload input: the pending pods a Deployment, ReplicaSet, StatefulSet or Job would
create, named and labelled as their controllers make them, in creation order.

A what-if may be a Pod, one of those controllers, a ``List`` of them or several
documents; :func:`expand_workload` turns it into the pods ``simulate`` takes, in
submission order (documents in order, each controller's replicas in the order its
controller creates them). The API server's checks come first, so bad input is refused
before anything is stored:

- apps/v1 requires a selector on Deployments, ReplicaSets and StatefulSets, and it
  must select the template's labels ("`selector` does not match template `labels`");
- a pod template needs at least one container;
- 0 replicas (or a Job whose parallelism or completions is 0) creates nothing: a
  what-if of nothing is refused rather than answered "nothing happens";
- more pods than ``max_replicas``: :class:`TooManyReplicas`, so the caller can say
  which setting raises the limit.

Names. generateName adds five random characters of utilrand's alphabet; here they
are derived from the owner and the replica's index (:func:`name_suffix`, the same
helper the recreate-victims cascade uses), so a run is repeatable. A name already
taken (by an earlier replica or by ``taken``) is derived again, as the API server
retries a generateName conflict. The pod-template-hash and controller-revision-hash
are fnv32a hashes of the template, encoded as ``rand.SafeEncodeString``; Go hashes
its spew dump of the object, which is not reproduced, so a hash differs from the
one a real cluster prints while being as stable (same template, same hash).

A StatefulSet with the default ``OrderedReady`` policy creates pod N+1 only once pod
N runs and is ready: each such pod carries the ``CREATED_AFTER`` annotation naming
its predecessor, and simulate() creates it when that pod binds (the kubelet is
instant there, so bound means running and ready). ``Parallel`` creates them all.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput
from .labels import LabelSelector
from .objects import ARRIVAL_SECONDS, Pod, seconds_annotation_ms
from .priority import PriorityResolver
from .simulate.controllers import CREATED_AFTER, name_suffix
from .volumes.claimtemplates import CLAIMS_ANNOTATION, replica_claims
from .words import join_names, plural

if TYPE_CHECKING:
    from .cluster import NodeInfo

# podManagementPolicy values.
ORDERED_READY = "OrderedReady"
PARALLEL = "Parallel"

SUPPORTED_KINDS = ("Pod", "Deployment", "ReplicaSet", "StatefulSet", "Job")
# What a manifest holds beside its workloads that the what-if takes in: budgets join the
# snapshot for this run (workload_kinds' siblings and hypothetical.py read them).
PDB_KIND = "PodDisruptionBudget"
PRIORITY_CLASS_KIND = "PriorityClass"
# How many pods one what-if may create unless the caller states another limit.
DEFAULT_MAX_REPLICAS = 1000

# The labels the controllers add to the pods they create.
POD_TEMPLATE_HASH_LABEL = "pod-template-hash"
CONTROLLER_REVISION_HASH_LABEL = "controller-revision-hash"
STATEFULSET_POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
JOB_CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_JOB_CONTROLLER_UID_LABEL = "controller-uid"
LEGACY_JOB_NAME_LABEL = "job-name"
JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"

# rand.SafeEncodeString's alphabet (no vowels, no 0/1/3: names never spell words).
_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
# A fixed namespace for the deterministic uids of the objects a workload creates.
_UID_NAMESPACE = uuid.UUID("5b0e0f4c-9a52-4c6e-8d0c-2f1f4b1c8e11")


class TooManyReplicas(InvalidInput):
    """The workload would create more pods than the stated limit."""

    def __init__(self, count: int, limit: int) -> None:
        self.count = count
        self.limit = limit
        super().__init__(
            f"the workload creates {count:,} pods; at most {limit:,} are simulated in one "
            "what-if (each pod is at least one scheduling cycle)"
        )


@dataclass(frozen=True)
class ControllerRef:
    """The controller a pod belongs to (its ownerReference with controller: true)."""

    api_version: str
    kind: str
    name: str
    uid: str

    def owner_reference(self) -> dict[str, Any]:
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "uid": self.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }


@dataclass(frozen=True)
class WorkloadObject:
    """One submitted object and the pods it makes (a Pod makes itself)."""

    kind: str
    namespace: str
    name: str
    # The ReplicaSet a Deployment creates, "" otherwise.
    replica_set: str
    pod_keys: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def replicas(self) -> int:
        return len(self.pod_keys)

    def describe(self) -> str:
        """ "Deployment default/web (10 replicas)"; "DaemonSet kube-system/agent (3 pods,
        one a node)"."""
        n = self.replicas
        if self.kind == "DaemonSet":
            return f"{self.kind} {self.key} ({plural(n, 'pod')}, one a node)"
        return f"{self.kind} {self.key} ({n} replica{'s' if n != 1 else ''})"


@dataclass
class Workload:
    """The pending pods of a what-if in submission order, and what made them; the
    PodDisruptionBudgets the manifest carried (they join the snapshot for this run) and
    how many objects of each other kind it skipped."""

    pods: list[dict[str, Any]] = field(default_factory=list)
    objects: list[WorkloadObject] = field(default_factory=list)
    budgets: list[dict[str, Any]] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def pod_keys(self) -> list[str]:
        return [pod_key(p) for p in self.pods]

    def describe(self) -> str:
        return "; ".join(o.describe() for o in self.objects)


def pod_key(pod: Mapping[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


# --- reading the documents ----------------------------------------------------------


def workload_objects(documents: Iterable[Any]) -> list[Any]:
    """The objects of parsed documents: ``List`` items spliced in place, empty documents
    (a trailing ``---``) dropped."""
    out: list[Any] = []
    for doc in documents:
        if doc is None:
            continue
        if isinstance(doc, Mapping) and str(doc.get("kind", "")).endswith("List"):
            items = doc.get("items")
            if items is None:
                continue
            if not isinstance(items, list):
                raise InvalidInput("must be a list", kind=str(doc.get("kind")), field="items")
            out.extend(workload_objects(items))
        else:
            out.append(doc)
    return out


# --- hashes and names --------------------------------------------------------------


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(text: str) -> str:
    """rand.SafeEncodeString: each character mapped into the alphabet without vowels."""
    return "".join(_SAFE_ALPHABET[ord(c) % len(_SAFE_ALPHABET)] for c in text)


def template_hash(template: Mapping[str, Any]) -> str:
    """controller.ComputeHash's shape: fnv32a of the template, its decimal digits safe-encoded."""
    canonical = json.dumps(template, sort_keys=True, separators=(",", ":"), default=str)
    return safe_encode(str(fnv32a(canonical.encode())))


def object_uid(kind: str, namespace: str, name: str) -> str:
    return str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{namespace}/{name}"))


class _Names:
    """generateName: ``<base>-<5 chars>``, drawn again while the name is taken."""

    def __init__(self, taken: Iterable[str]) -> None:
        self.taken = set(taken)

    def claim(self, key: str) -> bool:
        if key in self.taken:
            return False
        self.taken.add(key)
        return True

    def generate(self, namespace: str, base: str, seed: str) -> str:
        attempt = 0
        while True:
            name = f"{base}-{name_suffix(f'{seed}#{attempt}' if attempt else seed)}"
            if self.claim(f"{namespace}/{name}"):
                return name
            attempt += 1


# --- validation shared by the controllers --------------------------------------------


def _mapping(raw: Any, field_path: str) -> Mapping[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidInput("must be an object", field=field_path)
    return raw


def _count(raw: Any, field_path: str, default: int) -> int:
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise InvalidInput(f"must be a whole number, not {raw!r}", field=field_path)
    if raw < 0:
        raise InvalidInput(f"must be greater than or equal to 0, not {raw}", field=field_path)
    return raw


def _template(spec: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """(template.metadata, template.spec), refusing a template without containers."""
    template = _mapping(spec.get("template"), "spec.template")
    if not template:
        raise InvalidInput("Required value: a pod template", field="spec.template")
    meta = _mapping(template.get("metadata"), "spec.template.metadata")
    pod_spec = _mapping(template.get("spec"), "spec.template.spec")
    containers = pod_spec.get("containers")
    if not isinstance(containers, list) or not containers:
        raise InvalidInput(
            "Required value: the pod template has no containers; a pod needs at least one",
            field="spec.template.spec.containers",
        )
    return meta, pod_spec


def _labels(meta: Mapping[str, Any], field_path: str) -> dict[str, str]:
    raw = _mapping(meta.get("labels"), field_path)
    return {str(k): str(v) for k, v in raw.items()}


def _replicated_template(
    kind: str, obj: Mapping[str, Any]
) -> tuple[int, Mapping[str, Any], Mapping[str, Any], dict[str, str]]:
    """An apps/v1 controller's (replicas, template metadata, template spec, labels), checked
    as the API server checks them: containers, a selector of the labels, replicas > 0."""
    spec = _mapping(obj.get("spec"), "spec")
    replicas = _count(spec.get("replicas"), "spec.replicas", 1)
    meta, pod_spec = _template(spec)
    labels = _labels(meta, "spec.template.metadata.labels")
    _check_selector(kind, spec, labels)
    _nonzero(replicas, "spec.replicas")
    return replicas, meta, pod_spec, labels


def _check_selector(kind: str, spec: Mapping[str, Any], labels: Mapping[str, str]) -> None:
    """apps/v1 validation: a non-empty selector that selects the template's labels."""
    raw = spec.get("selector")
    if raw is None:
        raise InvalidInput("Required value", field="spec.selector")
    selector = LabelSelector.parse(raw, "spec.selector")
    if selector.empty:
        raise InvalidInput(
            f"Invalid value: empty selector is invalid for {kind.lower()}",
            field="spec.selector",
        )
    if not selector.matches(labels):
        shown = ", ".join(f"{k}={v}" for k, v in sorted(labels.items())) or "none"
        raise InvalidInput(
            f"Invalid value: `selector` does not match template `labels` (the template's "
            f"labels are {shown}); make spec.selector select the labels of "
            "spec.template.metadata.labels",
            field="spec.template.metadata.labels",
        )


def _pod(
    *,
    name: str,
    namespace: str,
    template_meta: Mapping[str, Any],
    pod_spec: Mapping[str, Any],
    labels: Mapping[str, str],
    owner: ControllerRef | None,
    annotations: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A pending pod stamped out of a template, as the controller's pod control makes it."""
    meta: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "uid": object_uid("Pod", namespace, name),
        "labels": dict(labels),
    }
    notes = {**_mapping(template_meta.get("annotations"), "metadata.annotations")}
    notes.update(annotations or {})
    if notes:
        meta["annotations"] = {str(k): str(v) for k, v in notes.items()}
    if owner is not None:
        meta["ownerReferences"] = [owner.owner_reference()]
    spec = copy.deepcopy(dict(pod_spec))
    spec.pop("nodeName", None)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": spec,
        "status": {"phase": "Pending"},
    }


# --- the controllers ------------------------------------------------------------------


@dataclass
class _Context:
    names: _Names
    # What the remaining replicas may still add before the limit.
    max_replicas: int
    made: int = 0
    # The cluster's nodes, for the controllers that make a pod per node (DaemonSet).
    nodes: Sequence[NodeInfo] = ()

    def reserve(self, count: int) -> None:
        if self.made + count > self.max_replicas:
            raise TooManyReplicas(self.made + count, self.max_replicas)
        self.made += count


def _replica_set_pods(
    ctx: _Context,
    *,
    namespace: str,
    rs_name: str,
    owner: ControllerRef,
    template_meta: Mapping[str, Any],
    pod_spec: Mapping[str, Any],
    labels: Mapping[str, str],
    replicas: int,
    first_index: int = 0,
) -> list[dict[str, Any]]:
    """The ReplicaSet controller's pods: generateName ``<rs>-``, the template's labels."""
    return [
        _pod(
            name=ctx.names.generate(namespace, rs_name, f"{namespace}/{rs_name}/{i}"),
            namespace=namespace,
            template_meta=template_meta,
            pod_spec=pod_spec,
            labels=labels,
            owner=owner,
        )
        for i in range(first_index, first_index + replicas)
    ]


def _expand_replica_set(
    ctx: _Context, obj: Mapping[str, Any], namespace: str, name: str
) -> tuple[str, list[dict[str, Any]]]:
    replicas, meta, pod_spec, labels = _replicated_template("ReplicaSet", obj)
    ctx.reserve(replicas)
    owner = ControllerRef("apps/v1", "ReplicaSet", name, object_uid("ReplicaSet", namespace, name))
    pods = _replica_set_pods(
        ctx,
        namespace=namespace,
        rs_name=name,
        owner=owner,
        template_meta=meta,
        pod_spec=pod_spec,
        labels=labels,
        replicas=replicas,
    )
    return "", pods


def _expand_deployment(
    ctx: _Context, obj: Mapping[str, Any], namespace: str, name: str
) -> tuple[str, list[dict[str, Any]]]:
    """A Deployment creates ReplicaSet ``<deployment>-<pod-template-hash>``, which creates
    the pods; the hash label goes on the ReplicaSet's selector, template and pods."""
    return expand_through_replica_set(
        ctx, "Deployment", obj, namespace, name, hash_label=POD_TEMPLATE_HASH_LABEL
    )


def expand_through_replica_set(
    ctx: _Context,
    kind: str,
    obj: Mapping[str, Any],
    namespace: str,
    name: str,
    *,
    hash_label: str,
) -> tuple[str, list[dict[str, Any]]]:
    """The pods of a controller that makes ReplicaSet ``<name>-<template hash>`` (a
    Deployment, an Argo Rollout), the hash under ``hash_label`` on the pods."""
    replicas, meta, pod_spec, labels = _replicated_template(kind, obj)
    ctx.reserve(replicas)
    pod_template_hash = template_hash({"metadata": meta, "spec": pod_spec})
    rs_name = f"{name}-{pod_template_hash}"
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
        labels={**labels, hash_label: pod_template_hash},
        replicas=replicas,
    )
    return rs_name, pods


def _expand_stateful_set(
    ctx: _Context, obj: Mapping[str, Any], namespace: str, name: str
) -> tuple[str, list[dict[str, Any]]]:
    """Pods ``<name>-0`` .. ``<name>-(N-1)``, with the revision, pod-name and index labels,
    and hostname/subdomain as the StatefulSet controller sets them."""
    replicas, meta, pod_spec, labels = _replicated_template("StatefulSet", obj)
    spec = _mapping(obj.get("spec"), "spec")
    ordinals = _mapping(spec.get("ordinals"), "spec.ordinals")
    start = _count(ordinals.get("start"), "spec.ordinals.start", 0)
    ctx.reserve(replicas)
    owner = ControllerRef(
        "apps/v1", "StatefulSet", name, object_uid("StatefulSet", namespace, name)
    )
    revision = f"{name}-{template_hash({'metadata': meta, 'spec': pod_spec})}"
    service = spec.get("serviceName")
    ordered = spec.get("podManagementPolicy", ORDERED_READY) != PARALLEL
    templates = spec.get("volumeClaimTemplates") or []
    if not isinstance(templates, list):
        raise InvalidInput("must be a list", field="spec.volumeClaimTemplates")
    selector = _mapping(spec.get("selector"), "spec.selector")
    claim_labels = _mapping(selector.get("matchLabels"), "spec.selector.matchLabels")
    pods: list[dict[str, Any]] = []
    for ordinal in range(start, start + replicas):
        pod_name = f"{name}-{ordinal}"
        if not ctx.names.claim(f"{namespace}/{pod_name}"):
            raise InvalidInput(
                f"pod {namespace}/{pod_name} is already part of this workload",
                field="metadata.name",
            )
        pod = _pod(
            name=pod_name,
            namespace=namespace,
            template_meta=meta,
            pod_spec=pod_spec,
            labels={
                **labels,
                CONTROLLER_REVISION_HASH_LABEL: revision,
                STATEFULSET_POD_NAME_LABEL: pod_name,
                POD_INDEX_LABEL: str(ordinal),
            },
            owner=owner,
        )
        if templates:
            # updateStorage: each template's claim replaces the volume of its name.
            claims = replica_claims(templates, namespace, name, ordinal, claim_labels)
            volumes = [
                v
                for v in pod["spec"].get("volumes") or []
                if not (
                    isinstance(v, Mapping)
                    and any(v.get("name") == t["metadata"]["name"] for t in templates)
                )
            ]
            for t, c in zip(templates, claims, strict=True):
                volumes.append(
                    {
                        "name": t["metadata"]["name"],
                        "persistentVolumeClaim": {"claimName": c["metadata"]["name"]},
                    }
                )
            pod["spec"]["volumes"] = volumes
            pod["metadata"].setdefault("annotations", {})[CLAIMS_ANNOTATION] = json.dumps(
                claims, sort_keys=True
            )
        pod["spec"]["hostname"] = pod_name
        if isinstance(service, str) and service:
            pod["spec"]["subdomain"] = service
        if ordered and pods:
            previous = pods[-1]["metadata"]["name"]
            annotations = pod["metadata"].setdefault("annotations", {})
            annotations[CREATED_AFTER] = f"{namespace}/{previous}"
        pods.append(pod)
    return "", pods


def _expand_job(
    ctx: _Context, obj: Mapping[str, Any], namespace: str, name: str
) -> tuple[str, list[dict[str, Any]]]:
    """The Job controller starts ``parallelism`` pods at once, no more than ``completions``
    (generateName ``<job>-``; Indexed jobs ``<job>-<index>-``, with the index annotation)."""
    spec = _mapping(obj.get("spec"), "spec")
    parallelism = _count(spec.get("parallelism"), "spec.parallelism", 1)
    completions_raw = spec.get("completions")
    completions = _count(completions_raw, "spec.completions", parallelism)
    meta, pod_spec = _template(spec)
    restart = pod_spec.get("restartPolicy")
    if restart not in (None, "Never", "OnFailure"):
        raise InvalidInput(
            f'Unsupported value: "{restart}": supported values: "OnFailure", "Never"',
            field="spec.template.spec.restartPolicy",
        )
    labels = _labels(meta, "spec.template.metadata.labels")
    if spec.get("manualSelector") is True:
        _check_selector("Job", spec, labels)
    count = min(parallelism, completions)
    if count == 0:
        which = "spec.parallelism" if parallelism == 0 else "spec.completions"
        raise InvalidInput(
            "Invalid value: 0: the Job would start no pods; a what-if needs at least one",
            field=which,
        )
    ctx.reserve(count)
    uid = object_uid("Job", namespace, name)
    owner = ControllerRef("batch/v1", "Job", name, uid)
    job_labels = {
        **labels,
        JOB_CONTROLLER_UID_LABEL: uid,
        JOB_NAME_LABEL: name,
        LEGACY_JOB_CONTROLLER_UID_LABEL: uid,
        LEGACY_JOB_NAME_LABEL: name,
    }
    indexed = spec.get("completionMode") == "Indexed"
    pods = []
    for i in range(count):
        base = f"{name}-{i}" if indexed else name
        pod_name = ctx.names.generate(namespace, base, f"{namespace}/{name}/{i}")
        pods.append(
            _pod(
                name=pod_name,
                namespace=namespace,
                template_meta=meta,
                pod_spec=pod_spec,
                labels={**job_labels, JOB_COMPLETION_INDEX: str(i)} if indexed else job_labels,
                owner=owner,
                annotations={JOB_COMPLETION_INDEX: str(i)} if indexed else None,
            )
        )
    return "", pods


def _expand_pod(
    ctx: _Context, obj: Mapping[str, Any], namespace: str, name: str
) -> tuple[str, list[dict[str, Any]]]:
    if not ctx.names.claim(f"{namespace}/{name}"):
        raise InvalidInput(f"pod {namespace}/{name} is listed twice", field="metadata.name")
    ctx.reserve(1)
    pod = copy.deepcopy(dict(obj))
    pod.setdefault("apiVersion", "v1")
    pod["metadata"] = {**_mapping(obj.get("metadata"), "metadata"), "namespace": namespace}
    return "", [pod]


def _nonzero(replicas: int, field_path: str) -> None:
    if replicas == 0:
        raise InvalidInput(
            "Invalid value: 0: the workload would create no pods; give at least 1 replica",
            field=field_path,
        )


Expander = Callable[[_Context, Mapping[str, Any], str, str], tuple[str, list[dict[str, Any]]]]

_EXPANDERS: dict[str, Expander] = {
    "Pod": _expand_pod,
    "Deployment": _expand_deployment,
    "ReplicaSet": _expand_replica_set,
    "StatefulSet": _expand_stateful_set,
    "Job": _expand_job,
}


def register_kind(kind: str, expander: Expander) -> None:
    """Adds a controller kind (workload_kinds/: one module a kind, as kube-scheduler's
    plugins register in its registry)."""
    _EXPANDERS[kind] = expander


def workload_kinds() -> tuple[str, ...]:
    """Every kind a what-if rolls out, the built-in ones first."""
    return tuple(_EXPANDERS)


def is_workload_object(obj: Any) -> bool:
    """A Pod (kind-less with containers included) or a controller a what-if rolls out."""
    if not isinstance(obj, Mapping):
        return False
    if "kind" not in obj:
        spec = obj.get("spec")
        return isinstance(spec, Mapping) and "containers" in spec
    return str(obj.get("kind")) in _EXPANDERS


def skipped_stub(obj: Mapping[str, Any]) -> dict[str, Any]:
    """What is kept of an object the what-if skips (a Service, a ConfigMap, a Secret...):
    its kind and name, never its contents: a Secret's values are never stored."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    assert isinstance(meta, Mapping)
    kept = {k: str(meta[k]) for k in ("name", "namespace") if isinstance(meta.get(k), str)}
    return {
        "apiVersion": str(obj.get("apiVersion") or ""),
        "kind": str(obj["kind"]),
        "metadata": kept,
    }


def strip_skipped(objects: Iterable[Any]) -> list[Any]:
    """A manifest's objects with each one the what-if skips reduced to :func:`skipped_stub`
    (workloads, PodDisruptionBudgets and PriorityClasses kept whole)."""
    return [skipped_stub(o) if _skipped(o) else o for o in objects]


def _skipped(obj: Any) -> bool:
    return (
        isinstance(obj, Mapping)
        and isinstance(obj.get("kind"), str)
        and obj["kind"] not in (PDB_KIND, PRIORITY_CLASS_KIND)
        and not is_workload_object(obj)
    )


def skipped_kinds(objects: Iterable[Any]) -> dict[str, int]:
    """How many objects of each kind a what-if skips, in the order the kinds first come."""
    return dict(Counter(str(o["kind"]) for o in objects if _skipped(o)))


def manifest_budgets(objects: Iterable[Any]) -> list[dict[str, Any]]:
    """The PodDisruptionBudgets among a what-if's objects, in document order."""
    return [dict(o) for o in objects if isinstance(o, Mapping) and o.get("kind") == PDB_KIND]


def counted_kinds(counts: Mapping[str, int]) -> str:
    """ "1 Service, 2 ConfigMaps and 1 Secret" (plurals as English writes them)."""
    return join_names([plural(n, kind) for kind, n in counts.items()])


def skipped_note(counts: Mapping[str, int]) -> str:
    """The note a result carries for the kinds a manifest held that a what-if skips."""
    if not counts:
        return ""
    return (
        f"Skipped {counted_kinds(counts)}: a what-if rolls out the workloads and takes "
        "the PodDisruptionBudgets and PriorityClasses beside them; other kinds do not "
        "change where pods go."
    )


def _arrive_with(obj: Mapping[str, Any], pods: list[dict[str, Any]]) -> None:
    """preemptlab.io/arrival-seconds on a workload's metadata: all its pods arrive then
    (a pod template's own value wins)."""
    meta = _mapping(obj.get("metadata"), "metadata")
    notes = _mapping(meta.get("annotations"), "metadata.annotations")
    if obj.get("kind") == "Pod" or ARRIVAL_SECONDS not in notes:
        return
    seconds_annotation_ms(notes, ARRIVAL_SECONDS)  # refused here, located at the object
    for pod in pods:
        annotations = pod["metadata"].setdefault("annotations", {})
        annotations.setdefault(ARRIVAL_SECONDS, str(notes[ARRIVAL_SECONDS]))


def expand_workload(
    objects: Iterable[Any],
    *,
    max_replicas: int = DEFAULT_MAX_REPLICAS,
    taken: Iterable[str] = (),
    nodes: Sequence[NodeInfo] = (),
) -> Workload:
    """The pending pods ``objects`` would create, in submission order.

    ``objects`` are plain dicts (run :func:`workload_objects` over parsed documents
    first); ``taken`` are "namespace/name" keys a generated name must avoid; ``nodes``
    the cluster's nodes, which a DaemonSet makes a pod for each. PodDisruptionBudgets
    go to ``budgets``, PriorityClasses are left to hypothetical.py, any other kind is
    counted in ``skipped``. Raises
    InvalidInput, located at the object, for anything the API server would refuse, and
    TooManyReplicas past ``max_replicas``.
    """
    ctx = _Context(_Names(taken), max_replicas, nodes=nodes)
    workload = Workload()
    items = list(objects)
    if not items:
        raise InvalidInput(
            "the workload holds no objects; give a Pod, Deployment, ReplicaSet, StatefulSet or Job"
        )
    held: Counter[str] = Counter()
    for index, obj in enumerate(items):
        if not isinstance(obj, Mapping):
            raise InvalidInput("must be an object", index=index)
        kind = obj.get("kind")
        if isinstance(kind, str) and kind and kind not in _EXPANDERS:
            # Chart output: the budgets join the snapshot, other kinds are noted.
            held[kind] += 1
            if kind == PDB_KIND:
                workload.budgets.append(dict(obj))
            continue
        meta = obj.get("metadata")
        name = meta.get("name") if isinstance(meta, Mapping) else None
        namespace = (meta.get("namespace") if isinstance(meta, Mapping) else None) or "default"
        expander = _EXPANDERS.get(str(kind)) if kind else None
        try:
            if expander is None:
                raise InvalidInput(
                    "the object has no kind: give a "
                    + join_names(list(_EXPANDERS), conjunction="or"),
                    field="kind",
                )
            if not isinstance(name, str) or not name:
                raise InvalidInput("Required value: a name", field="metadata.name")
            replica_set, pods = expander(ctx, obj, str(namespace), name)
            _arrive_with(obj, pods)
        except TooManyReplicas:
            raise
        except InvalidInput as e:
            raise e.located(
                index=index if len(items) > 1 else None,
                kind=str(kind) if kind else None,
                namespace=str(namespace),
                name=name if isinstance(name, str) else None,
            ) from None
        workload.pods.extend(pods)
        workload.objects.append(
            WorkloadObject(
                kind=str(kind),
                namespace=str(namespace),
                name=name,
                replica_set=replica_set,
                pod_keys=tuple(pod_key(p) for p in pods),
            )
        )
    if not workload.objects:
        raise InvalidInput(
            f"the manifest holds {counted_kinds(held)} and no Pod or workload: give a "
            + join_names(list(_EXPANDERS), conjunction="or")
            + " beside them"
        )
    workload.skipped = skipped_kinds(items)
    return workload


def admit(workload: Workload, resolver: PriorityResolver) -> None:
    """The Priority admission plugin over every pod: spec.priority, spec.preemptionPolicy
    and (from a globalDefault class) spec.priorityClassName written as the API server
    stores the pod. An unknown PriorityClass, or any field the engine cannot read,
    raises InvalidInput naming the object the pod came from."""
    owners = {k: o for o in workload.objects for k in o.pod_keys}
    for raw in workload.pods:
        try:
            pod = Pod.from_dict(raw)
            resolver.resolve(pod)
        except InvalidInput as e:
            obj = owners.get(pod_key(raw))
            if obj is None or obj.kind == "Pod":
                raise e.located(kind="Pod") from None
            e.field = f"spec.template.{e.field}" if e.field else None
            raise e.located(kind=obj.kind, namespace=obj.namespace, name=obj.name) from None
        spec = raw.setdefault("spec", {})
        spec["priority"] = pod.priority
        if pod.preemption_policy:
            spec["preemptionPolicy"] = pod.preemption_policy
        if pod.priority_class_name and not spec.get("priorityClassName"):
            spec["priorityClassName"] = pod.priority_class_name
