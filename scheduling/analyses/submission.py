"""What a what-if submits, read and checked before anything is stored: the pod of a
manifest, the short form or a clone; a workload expanded and admitted as its controllers
and the API server would; the what-if's own PriorityClasses; a capacity run's size and
limit. Each refusal is a PodRejected naming the input field at fault.
"""

from __future__ import annotations

import copy
import logging
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from django.conf import settings

from clusters import models as cluster_models
from clusters.ingest.bounds import check_columns
from clusters.ingest.scrub import scrub_object
from clusters.kube_names import metadata_problem
from clusters.models import Snapshot
from clusters.selectors import snapshot_objects
from operations.input_limits import annotations_too_long, submission_too_large, unstorable_value
from scheduling.engine import (
    Cluster,
    InvalidInput,
    NodeInfo,
    Pod,
    analyze,
    load_cluster,
    read_documents,
)
from scheduling.engine.budgets import with_budgets
from scheduling.engine.capacity import MAX_LIMIT, Size, check_limit, replica_set_of, room_pod
from scheduling.engine.hypothetical import (
    priority_class_object,
    split_priority_classes,
    with_priority_classes,
)
from scheduling.engine.workload import (
    TooManyReplicas,
    Workload,
    admit,
    expand_workload,
    strip_skipped,
    workload_objects,
)

logger = logging.getLogger(__name__)


class PodRejected(Exception):
    """The submitted pod cannot be analyzed; ``field`` names the input it came from."""

    def __init__(
        self, message: str, *, field: str = "pod", engine_field: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        # The path inside the pod the engine objected to ("spec.priorityClassName").
        self.engine_field = engine_field


class SnapshotNotReady(PodRejected):
    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(
            f"Snapshot {snapshot.name!r} is {snapshot.status}: only a ready snapshot can be "
            "analyzed.",
            field="snapshot",
        )


NOT_AN_OBJECT = (
    "The manifest is not a Kubernetes object (it has no kind): paste a Pod, with apiVersion: "
    "v1 and kind: Pod (Start from an example shows one)."
)


def submission_max_bytes() -> int:
    """The most one what-if may submit (PREEMPTLAB_SUBMISSION_MAX_BYTES)."""
    return int(settings.PREEMPTLAB_SUBMISSION_MAX_BYTES)


def submission_size_check(size: int, *, field: str, what: str = "The submission") -> None:
    """PodRejected under ``field`` when a what-if of ``size`` bytes is beyond the limit:
    the API's body, a manifest, the command line's pod file."""
    problem = submission_too_large(size, submission_max_bytes(), what)
    if problem is not None:
        raise PodRejected(problem, field=field)


def _object_named(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    name = str(meta.get("name") or "")[:80]
    namespace = meta.get("namespace")
    named = f"{namespace}/{name}" if namespace and name else name
    return f"{obj.get('kind') or 'object'} {named}".strip()


def annotations_check(objects: Iterable[Any], *, field: str) -> None:
    """PodRejected under ``field``, naming the object, for annotations beyond what the
    API server stores (256 KiB an object, its pod template's apart)."""
    for obj in objects:
        problem = annotations_too_long(obj) if isinstance(obj, dict) else None
        if problem is not None:
            raise PodRejected(f"{_object_named(obj)}: {problem}", field=field)


def expanded_size_check(pods: list[dict[str, Any]], *, field: str) -> None:
    """PodRejected under ``field`` when a workload's pods, as they would be stored, pass
    PREEMPTLAB_WORKLOAD_MAX_BYTES: a template's 250 KiB annotation is 250 MB in 1,000
    replicas. Counted pod by pod, stopping at the limit, so no more is encoded."""
    limit = int(settings.PREEMPTLAB_WORKLOAD_MAX_BYTES)
    total = 0
    for count, pod in enumerate(pods, 1):
        total += len(orjson.dumps(pod))
        if total > limit:
            raise PodRejected(
                f"The workload's {len(pods):,} pods would be stored in more than {limit:,} "
                f"bytes ({count:,} of them already are; the PREEMPTLAB_WORKLOAD_MAX_BYTES "
                "setting): each replica carries its pod "
                "template, annotations included. Leave the large annotations out of the "
                "template, or simulate fewer replicas.",
                field=field,
            )


def _requests_refusal(pods: Iterable[dict[str, Any]]) -> InvalidInput | None:
    """The pods' requests as the scheduler keeps them (millicores, bytes), held to the
    columns an uploaded pod is held to: a 5,001-digit cpu is refused here as there."""
    parsed = [Pod.from_dict(p) for p in pods]
    columns: dict[str, list[Any]] = {
        "namespace": [p.namespace for p in parsed],
        "name": [p.name for p in parsed],
        "cpu_request": [p.requests.get("cpu", 0) for p in parsed],
        "memory_request": [p.requests.get("memory", 0) for p in parsed],
    }
    try:
        check_columns(cluster_models.Pod, columns)
    except InvalidInput as e:
        return e
    return None


def requests_check(pods: Iterable[dict[str, Any]], *, field: str) -> None:
    """PodRejected under ``field``, naming the pod and the request, for a request beyond
    what an uploaded pod may hold."""
    refusal = _requests_refusal(pods)
    if refusal is not None:
        raise PodRejected(str(refusal), field=field, engine_field=refusal.field)


def manifest_objects(*, text: str | bytes, source: str = "manifest") -> list[Any]:
    """The objects of a YAML or JSON manifest (several documents, ``List`` items spliced
    in); PodRejected (field "manifest") when it cannot be read or holds nothing."""
    data = text.encode() if isinstance(text, str) else text
    if not data.strip():
        raise PodRejected("Paste or upload a Pod or workload manifest.", field="manifest")
    submission_size_check(len(data), field="manifest", what="The manifest")
    try:
        objects = workload_objects(read_documents(data, source, max_bytes=submission_max_bytes()))
    except InvalidInput as e:
        raise PodRejected(str(e), field="manifest") from None
    problem = unstorable_value(objects, "manifest")
    if problem is not None:
        raise PodRejected(f"{problem}; Kubernetes never writes such a value.", field="manifest")
    if len(objects) == 1 and not (isinstance(objects[0], dict) and objects[0].get("kind")):
        raise PodRejected(NOT_AN_OBJECT, field="manifest")
    return objects


def is_single_pod(objects: list[Any]) -> bool:
    """One Pod is a single-pod what-if (the full explanation); anything else a workload.
    ``objects`` without the what-if's PriorityClasses (:func:`whatif_split`)."""
    return len(objects) == 1 and isinstance(objects[0], dict) and objects[0].get("kind") == "Pod"


def pod_from_manifest(*, text: str | bytes, source: str = "manifest") -> dict[str, Any]:
    """The one Pod of a YAML or JSON manifest; PodRejected (field "manifest") otherwise."""
    objects = manifest_objects(text=text, source=source)
    if len(objects) != 1:
        raise PodRejected(
            f"The manifest holds {len(objects)} objects; it must hold exactly one Pod.",
            field="manifest",
        )
    obj = objects[0]
    if not isinstance(obj, dict) or obj.get("kind") != "Pod":
        kind = obj.get("kind") if isinstance(obj, dict) else type(obj).__name__
        raise PodRejected(
            (f"The manifest holds a {kind}; it must be a Pod." if kind else NOT_AN_OBJECT),
            field="manifest",
        )
    return obj


def whatif_split(objects: list[Any]) -> tuple[list[Any], list[Any]]:
    """(the PriorityClass objects, the pod or workload objects) of a what-if's documents:
    classes given beside a pod or a workload are in effect for that what-if only."""
    # Chart output carries Services, ConfigMaps, Secrets...: only their kind and name are
    # kept (the run notes them), so a Secret's values are never stored.
    return split_priority_classes(strip_skipped(objects))


def _daemon_set_nodes(snapshot: Snapshot, objects: list[Any]) -> list[NodeInfo]:
    """The snapshot's nodes, when a DaemonSet needs them (a pod per node); else none."""
    if not any(isinstance(o, dict) and o.get("kind") == "DaemonSet" for o in objects):
        return []
    nodes = [o for o in snapshot_objects(snapshot=snapshot) if o.get("kind") == "Node"]
    return list(load_cluster(nodes).node_infos)


def priority_classes_check(
    *, snapshot: Snapshot, classes: Any, field: str = "priority_classes"
) -> list[dict[str, Any]]:
    """The what-if's PriorityClass objects, checked against the snapshot's classes as the
    API server would check them; PodRejected under ``field`` naming the object and its
    field otherwise."""
    if not isinstance(classes, list) or not all(isinstance(c, dict) for c in classes):
        raise PodRejected("Must be a list of PriorityClass objects.", field=field)
    problem = unstorable_value(classes, field)
    if problem is not None:
        raise PodRejected(f"{problem}; Kubernetes never writes such a value.", field=field)
    annotations_check(classes, field=field)
    try:
        with_priority_classes(_snapshot_classes(snapshot), classes)
    except InvalidInput as e:
        raise PodRejected(str(e), field=field, engine_field=e.field) from None
    return classes


@dataclass
class PodSpecInput:
    """What the short form asks for; every request a quantity string as Kubernetes writes it."""

    name: str
    namespace: str = "default"
    priority_class_name: str = ""
    priority: int | None = None
    preemption_policy: str = ""
    requests: dict[str, str] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)


def pod_from_form(*, spec: PodSpecInput) -> dict[str, Any]:
    """A pending Pod with one container carrying the requests."""
    container: dict[str, Any] = {"name": "main", "image": "registry.k8s.io/pause:3.10"}
    requests = {k: v for k, v in spec.requests.items() if v}
    if requests:
        container["resources"] = {"requests": requests}
    pod_spec: dict[str, Any] = {"containers": [container]}
    if spec.priority_class_name:
        pod_spec["priorityClassName"] = spec.priority_class_name
    elif spec.priority is not None:
        pod_spec["priority"] = spec.priority
    if spec.preemption_policy:
        pod_spec["preemptionPolicy"] = spec.preemption_policy
    if spec.node_selector:
        pod_spec["nodeSelector"] = dict(spec.node_selector)
    if spec.tolerations:
        pod_spec["tolerations"] = list(spec.tolerations)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": spec.name, "namespace": spec.namespace or "default"},
        "spec": pod_spec,
        "status": {"phase": "Pending"},
    }


CLONE_SUFFIX = "-whatif"

_CLONE_DROPPED_METADATA = (
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "generation",
    "selfLink",
)


def pod_clone(*, pod: dict[str, Any], priority_class_name: str) -> dict[str, Any]:
    """A pending copy of ``pod`` with another PriorityClass, as admission would see it.

    The copy is a new pod (its name gets a ``-whatif`` suffix, its uid goes) so
    the original stays where it runs and can itself be a victim. nodeName,
    status, the resolved priority and preemption policy are dropped so the new
    class sets them again.
    """
    clone = copy.deepcopy(pod)
    meta = clone.setdefault("metadata", {})
    for key in _CLONE_DROPPED_METADATA:
        meta.pop(key, None)
    meta["name"] = f"{meta.get('name', 'pod')}{CLONE_SUFFIX}"
    meta.setdefault("namespace", "default")
    spec = clone.setdefault("spec", {})
    for key in ("nodeName", "priority", "preemptionPolicy"):
        spec.pop(key, None)
    spec["priorityClassName"] = priority_class_name
    clone["status"] = {"phase": "Pending"}
    clone.setdefault("apiVersion", "v1")
    clone["kind"] = "Pod"
    return clone


def priority_class_row_object(pc: Any) -> dict[str, Any]:
    """A snapshot's PriorityClass browse row as the object kubectl would apply."""
    return priority_class_object(
        pc.name,
        pc.value,
        preemption_policy=pc.preemption_policy or "",
        global_default=pc.global_default,
    )


def _priority_class_objects(*, snapshot: Snapshot) -> list[dict[str, Any]]:
    return [priority_class_row_object(pc) for pc in snapshot.priority_classes.filter(builtin=False)]


def _snapshot_classes(snapshot: Snapshot) -> Cluster:
    """A cluster of the snapshot's PriorityClasses alone: admission without the nodes."""
    return load_cluster(_priority_class_objects(snapshot=snapshot))


def pod_validate(
    *, snapshot: Snapshot, pod: Any, priority_classes: list[dict[str, Any]] | None = None
) -> str:
    """Checks the pod as the engine will read it; returns its "namespace/name".

    Runs the engine on a cluster of the snapshot's PriorityClasses and no nodes:
    cheap, and it raises the engine's own InvalidInput for a malformed field or
    an unknown class. Anything else the engine might object to surfaces when
    the analysis runs.
    """
    if not isinstance(pod, dict):
        raise PodRejected("The pod must be a JSON object (a Pod manifest).")
    if pod.get("kind", "Pod") != "Pod":
        raise PodRejected(f"The object is a {pod.get('kind')}; it must be a Pod.")
    meta = pod.get("metadata")
    if not isinstance(meta, dict) or not meta.get("name"):
        raise PodRejected("metadata.name: is required")
    problem = unstorable_value(pod)
    if problem is not None:
        raise PodRejected(problem)
    annotations_check([pod], field="pod")
    named = metadata_problem(pod)
    if named is not None:
        raise PodRejected(f"{named[0]}: {named[1]}")
    try:
        analyze(_snapshot_classes(snapshot), pod, priority_classes=priority_classes or [])
        requests_check([pod], field="pod")
    except InvalidInput as e:
        raise PodRejected(str(e), engine_field=e.field) from None
    except PodRejected:
        raise
    except Exception:  # the real run reports it with the full cluster
        logger.exception("pre-check of a submitted pod failed")
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


def workload_max_replicas() -> int:
    return int(settings.PREEMPTLAB_WORKLOAD_MAX_REPLICAS)


def workload_expand(
    *,
    snapshot: Snapshot,
    objects: Any,
    field: str = "objects",
    taken: Iterable[str] = (),
    priority_classes: list[dict[str, Any]] | None = None,
) -> Workload:
    """The admitted pending pods of a workload, as the controllers and the API server
    would create them; PodRejected under ``field`` for anything they would refuse.
    ``taken``: names ("ns/name") a generated pod name must avoid; ``priority_classes``:
    the what-if's own classes, admitted against."""
    if not isinstance(objects, list):
        raise PodRejected("Must be a list of objects (Pods, Deployments, ...).", field=field)
    problem = unstorable_value(objects, field)
    if problem is not None:
        raise PodRejected(f"{problem}; Kubernetes never writes such a value.", field=field)
    annotations_check(objects, field=field)
    for i, obj in enumerate(objects):
        named = metadata_problem(obj) if isinstance(obj, dict) else None
        if named is not None:
            raise PodRejected(f"{field}[{i}] {named[0]}: {named[1]}", field=field)
    try:
        workload = expand_workload(
            objects,
            max_replicas=workload_max_replicas(),
            taken=taken,
            nodes=_daemon_set_nodes(snapshot, objects),
        )
        classes = with_priority_classes(_snapshot_classes(snapshot), priority_classes or [])
        with_budgets(classes, workload.budgets)  # each budget read as the run reads it
        expanded_size_check(workload.pods, field=field)
        admit(workload, classes.resolver)
        requests_check(workload.pods, field=field)
    except TooManyReplicas as e:
        raise PodRejected(
            f"{e}. The limit keeps one what-if within what a worker answers in seconds; "
            "raise it with the PREEMPTLAB_WORKLOAD_MAX_REPLICAS setting (an environment "
            "variable of the web and worker processes), or simulate fewer replicas.",
            field=field,
        ) from None
    except InvalidInput as e:
        raise PodRejected(str(e), field=field, engine_field=e.field) from None
    return workload


def capacity_limit_check(limit: Any, *, field: str = "limit") -> int:
    """The number of replicas a capacity what-if simulates: 1 to MAX_LIMIT."""
    try:
        return check_limit(limit)
    except InvalidInput:
        raise PodRejected(
            f"Give a whole number of replicas from 1 to {MAX_LIMIT:,}: each is at least one "
            "scheduling cycle, and the answer must come within one analysis' time.",
            field=field,
        ) from None


# The longest quantity a capacity size may be written in: kubectl writes "15500m",
# "512Mi"; the size is shown in the analysis' title (a column of 507 characters).
MAX_QUANTITY_CHARS = 64


def capacity_size_check(*, cpu: Any, memory: Any, field: str = "size") -> Size:
    """The size of the every-class table's pod, read as Kubernetes reads quantities."""
    if not isinstance(cpu, str) or not isinstance(memory, str):
        raise PodRejected(
            'Give the size as quantity strings: {"cpu": "2", "memory": "4Gi"}.', field=field
        )
    for resource, raw in (("cpu", cpu), ("memory", memory)):
        if len(raw.strip()) > MAX_QUANTITY_CHARS:
            raise PodRejected(
                f"{resource}: a quantity of {len(raw.strip()):,} characters; write it in at "
                f'most {MAX_QUANTITY_CHARS}, as Kubernetes does ("2", "500m", "4Gi").',
                field=field,
                engine_field=resource,
            )
    try:
        size = Size(cpu.strip(), memory.strip()).check()
    except InvalidInput as e:
        raise PodRejected(str(e), field=field, engine_field=e.field) from None
    refusal = _requests_refusal([room_pod(size, "size")])
    if refusal is not None:
        resource = (refusal.field or "cpu").rsplit(".", 1)[-1]
        raise PodRejected(f"{resource}: {refusal.message}", field=field, engine_field=resource)
    return size


SCALABLE_OWNER_KINDS = ("ReplicaSet",)


def scale_up_objects(*, pod: dict[str, Any], owner: str, replicas: int) -> list[dict[str, Any]]:
    """ "Scale this ReplicaSet (a Deployment's current one) up by N": the owner as a
    ReplicaSet of N more replicas whose template is the stored pod's manifest (what the
    controller stamped it from), without what the API server and kubelet added to it."""
    kind, _, name = owner.partition("/")
    if kind not in SCALABLE_OWNER_KINDS or not name:
        raise PodRejected(
            f"The pod's owner is {owner or 'none'}; only a ReplicaSet's pods (a Deployment's "
            "run through one) can be scaled up here.",
            field="replicas",
        )
    meta = pod.get("metadata") or {}
    labels = dict(meta.get("labels") or {})
    if not labels:
        raise PodRejected(
            "The pod carries no labels, so no ReplicaSet selector could select its copies.",
            field="replicas",
        )
    # The stored pod was admitted: its class sets priority and policy again.
    return [
        replica_set_of(
            pod,
            replicas,
            name=name,
            drop=("nodeName", "priority", "preemptionPolicy"),
        )
    ]


def submission_scrub(pod: dict[str, Any]) -> dict[str, int]:
    """Removes from a submitted pod or workload, in place, what a snapshot never keeps
    (env values, envFrom, the last-applied annotation, managedFields); the report of
    what was removed, counted on what the user wrote (not on the expanded pods)."""
    report: Counter[str] = Counter()
    if isinstance(pod.get("objects"), list):
        # A Secret or ConfigMap among a workload's objects is dropped whole.
        pod["objects"] = [
            obj for obj in pod["objects"] if not isinstance(obj, dict) or scrub_object(obj, report)
        ]
        for obj in pod.get("pods") or []:
            if isinstance(obj, dict):
                scrub_object(obj, Counter())
    else:
        scrub_object(pod, report)
    return dict(sorted(report.items()))
