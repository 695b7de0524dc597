"""Writes: submit a what-if, run it, record how it ended, share it.

The HTML views, the API and the Celery task all call these. The engine decides;
this module only adapts its input (a manifest, a form, a cloned pod) and stores
its output.
"""

from __future__ import annotations

import copy
import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from clusters.models import Snapshot
from clusters.selectors import snapshot_objects
from config.faults import BrokerUnavailable, publish
from config.input_limits import MAX_NAME, MAX_NAMESPACE, unstorable_value
from config.leases import lease_heartbeat, lease_release_fields
from scheduling import cluster_cache
from scheduling.constants import MAX_MANIFEST_BYTES, AnalysisSource, AnalysisStatus
from scheduling.engine import (
    ENGINE_VERSION,
    Cluster,
    InvalidInput,
    analyze,
    load_cluster,
    read_documents,
)
from scheduling.models import Analysis, ShareLink

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


# --- building the pod -------------------------------------------------------------


def pod_from_manifest(*, text: str | bytes, source: str = "manifest") -> dict[str, Any]:
    """The one Pod of a YAML or JSON manifest; PodRejected (field "manifest") otherwise."""
    data = text.encode() if isinstance(text, str) else text
    if not data.strip():
        raise PodRejected("Paste or upload a Pod manifest.", field="manifest")
    if len(data) > MAX_MANIFEST_BYTES:
        raise PodRejected(
            f"The manifest is {len(data):,} bytes; at most {MAX_MANIFEST_BYTES:,} are accepted.",
            field="manifest",
        )
    try:
        documents = read_documents(data, source)
    except InvalidInput as e:
        raise PodRejected(str(e), field="manifest") from None
    objects: list[Any] = []
    for doc in documents:
        if doc is None:
            continue
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List"):
            objects.extend(doc.get("items") or [])
        else:
            objects.append(doc)
    if len(objects) != 1:
        raise PodRejected(
            f"The manifest holds {len(objects)} objects; it must hold exactly one Pod.",
            field="manifest",
        )
    obj = objects[0]
    if not isinstance(obj, dict) or obj.get("kind") != "Pod":
        kind = obj.get("kind") if isinstance(obj, dict) else type(obj).__name__
        raise PodRejected(
            (
                f"The manifest holds a {kind}; it must be a Pod."
                if kind
                else "The manifest is not a Kubernetes object (it has no kind): paste a Pod, "
                "with apiVersion: v1 and kind: Pod (Start from an example shows one)."
            ),
            field="manifest",
        )
    return obj


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


def _priority_class_objects(*, snapshot: Snapshot) -> list[dict[str, Any]]:
    out = []
    for pc in snapshot.priority_classes.filter(builtin=False):
        obj: dict[str, Any] = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": pc.name},
            "value": pc.value,
            "globalDefault": pc.global_default,
        }
        if pc.preemption_policy:
            obj["preemptionPolicy"] = pc.preemption_policy
        out.append(obj)
    return out


def pod_validate(*, snapshot: Snapshot, pod: Any) -> str:
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
    for key, limit in (("name", MAX_NAME), ("namespace", MAX_NAMESPACE)):
        value = meta.get(key)
        if isinstance(value, str) and len(value) > limit:
            raise PodRejected(
                f"metadata.{key}: is {len(value):,} characters; Kubernetes allows at most {limit}"
            )
    try:
        analyze(load_cluster(_priority_class_objects(snapshot=snapshot)), pod)
    except InvalidInput as e:
        raise PodRejected(str(e), engine_field=e.field) from None
    except Exception:  # the real run reports it with the full cluster
        logger.exception("pre-check of a submitted pod failed")
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


# --- running it ------------------------------------------------------------------


def analysis_create(
    *, snapshot: Snapshot, pod: Any, source: str = AnalysisSource.MANIFEST
) -> Analysis:
    """A queued analysis of ``pod`` on ``snapshot``, its task sent once the row is committed.

    BrokerUnavailable when the task cannot be sent: the row is then deleted again,
    so a refused POST stores nothing (the caller answers 503 and the client retries).
    """
    if not snapshot.is_ready:
        raise SnapshotNotReady(snapshot)
    pod_key = pod_validate(snapshot=snapshot, pod=pod)
    pod = dict(pod)
    pod.setdefault("apiVersion", "v1")
    pod.setdefault("kind", "Pod")
    analysis = Analysis.objects.create(
        snapshot=snapshot,
        pod=pod,
        pod_key=pod_key,
        source=source,
        status=AnalysisStatus.QUEUED,
        enqueued_at=timezone.now(),
    )
    try:
        analysis_enqueue(analysis=analysis)
    except BrokerUnavailable:
        Analysis.objects.filter(pk=analysis.pk).delete()
        raise
    return analysis


def analysis_publish(analysis_id: int) -> None:
    """Sends the message that runs the analysis (the reconciler sends it again if lost)."""
    # Imported here: scheduling.tasks imports this module to call the services.
    from scheduling.tasks import analysis_run_task

    publish(analysis_run_task, analysis_id)


def analysis_enqueue(*, analysis: Analysis) -> None:
    """Sends the task now, or once the surrounding transaction commits.

    Outside a transaction a broker failure raises BrokerUnavailable to the caller.
    Inside one it can only be logged: the committed row stays queued and the
    reconciler sends the message when the broker is back.
    """
    analysis_id = analysis.pk
    if not transaction.get_connection().in_atomic_block:
        analysis_publish(analysis_id)
        return

    def send() -> None:
        try:
            analysis_publish(analysis_id)
        except BrokerUnavailable:
            logger.warning("analysis %s stays queued for the reconciler", analysis_id)

    transaction.on_commit(send)


def snapshot_load(*, snapshot: Snapshot) -> tuple[Cluster, bool]:
    """The parsed cluster of the snapshot from this process's cache, or loaded into it."""
    cluster, cached = cluster_cache.cluster_cache_get(
        key=cluster_cache.cluster_cache_key(snapshot=snapshot),
        load=lambda: load_cluster(snapshot_objects(snapshot=snapshot)),
    )
    assert isinstance(cluster, Cluster)
    return cluster, cached


def analysis_claim(*, analysis_id: int, task_id: str) -> tuple[Analysis, bool]:
    """Locks the row and takes its lease; (the analysis, whether this task should run it).

    Finished analyses are left as they are, and so are running ones whose lease
    another live task holds (a duplicate message). A queued one is taken, and so
    is a running one whose lease expired or whose message this is (the broker
    handed back the message of a worker that died).
    """
    with transaction.atomic():
        analysis = (
            Analysis.objects.select_for_update().select_related("snapshot").get(pk=analysis_id)
        )
        if analysis.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED):
            return analysis, False
        if analysis.status == AnalysisStatus.RUNNING and analysis.lease_taken_by_other(task_id):
            return analysis, False
        analysis.status = AnalysisStatus.RUNNING
        analysis.started_at = timezone.now()
        analysis.attempts += 1
        fields = analysis.lease_take(task_id)
        analysis.save(update_fields=["status", "started_at", "attempts", *fields])
    return analysis, True


def analysis_run(*, analysis_id: int, task_id: str = "") -> Analysis:
    """Runs the analysis and stores its result. Idempotent.

    A finished analysis is left as it is, and so is one another live task holds;
    a queued one runs; a running one whose worker died runs again. While it runs
    a heartbeat keeps its lease, so the reconciler leaves it alone.
    """
    task_id = task_id or f"direct-{uuid.uuid4().hex}"
    analysis, claimed = analysis_claim(analysis_id=analysis_id, task_id=task_id)
    if not claimed:
        return analysis
    with lease_heartbeat(Analysis, analysis.pk, task_id):
        return _analysis_compute(analysis)


def _analysis_compute(analysis: Analysis) -> Analysis:
    t0 = time.perf_counter()
    cluster, cached = snapshot_load(snapshot=analysis.snapshot)
    t1 = time.perf_counter()
    try:
        explanation = analyze(cluster, analysis.pod).explanation
    except InvalidInput as e:
        return analysis_fail(analysis_id=analysis.pk, error=f"The pod is invalid: {e}")
    t2 = time.perf_counter()
    Analysis.objects.filter(pk=analysis.pk).exclude(status=AnalysisStatus.DONE).update(
        status=AnalysisStatus.DONE,
        error="",
        outcome=explanation.outcome.value,
        explanation=explanation.to_json(),
        finished_at=timezone.now(),
        load_seconds=0.0 if cached else round(t1 - t0, 4),
        engine_seconds=round(t2 - t1, 4),
        engine_version=ENGINE_VERSION,
        **lease_release_fields(),
    )
    analysis.refresh_from_db()
    return analysis


def analysis_fail(*, analysis_id: int, error: str) -> Analysis:
    """Records how the analysis failed (a finished analysis keeps its result)."""
    Analysis.objects.filter(pk=analysis_id).exclude(status=AnalysisStatus.DONE).update(
        status=AnalysisStatus.FAILED,
        error=error[:4000],
        finished_at=timezone.now(),
        engine_version=ENGINE_VERSION,
        **lease_release_fields(),
    )
    return Analysis.objects.get(pk=analysis_id)


def analysis_retry(*, analysis: Analysis) -> Analysis:
    """Queues a failed analysis again (after a fix to the engine or a lost worker).

    The row is queued first: if the broker is down (BrokerUnavailable), the
    reconciler sends its message once the broker is back.
    """
    Analysis.objects.filter(pk=analysis.pk).update(
        status=AnalysisStatus.QUEUED,
        error="",
        started_at=None,
        finished_at=None,
        created=timezone.now(),
        enqueued_at=timezone.now(),
        **lease_release_fields(),
    )
    analysis.refresh_from_db()
    analysis_enqueue(analysis=analysis)
    return analysis


# --- sharing ---------------------------------------------------------------------


def share_link_create(*, analysis: Analysis) -> ShareLink:
    return ShareLink.objects.create(analysis=analysis)


def share_link_revoke(*, share_link: ShareLink) -> ShareLink:
    if share_link.revoked_at is None:
        share_link.revoked_at = timezone.now()
        share_link.save(update_fields=["revoked_at"])
    return share_link
