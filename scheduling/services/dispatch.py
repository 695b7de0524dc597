"""What depends on the kind of analysis, in one place: a manifest that is one pod or a
workload (analysis_create_from_manifest), the same what-if on another snapshot
(analysis_rerun), and a queued row run by the module of its kind (analysis_run, which
the Celery task calls). A new kind adds its line here and a module of its own."""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from clusters.models import Snapshot
from operations.leases import lease_heartbeat
from scheduling.analyses.submission import is_single_pod, manifest_objects, whatif_split
from scheduling.constants import AnalysisKind, AnalysisSource
from scheduling.engine.capacity import Size
from scheduling.models import Analysis
from scheduling.running.budgets import WorkerStopping
from scheduling.running.cancellation import Cancelled, run_stopped
from scheduling.scheduler_config import SchedulerChoice, SchedulerSource
from scheduling.services.capacity import analysis_create_capacity, capacity_store
from scheduling.services.common import analysis_claim, analysis_requeue_stopped, snapshot_load
from scheduling.services.pod import analysis_create, pod_store
from scheduling.services.take_nodes_away import (
    analysis_rerun_take_nodes_away,
    take_nodes_away_store,
)
from scheduling.services.workload import analysis_create_workload, workload_store

logger = logging.getLogger(__name__)


def analysis_create_from_manifest(
    *,
    snapshot: Snapshot,
    text: str | bytes,
    recreate_victims: bool = False,
    timeline: bool = False,
    source: str = AnalysisSource.MANIFEST,
    scheduler: SchedulerChoice | None = None,
    requested_by: Any = None,
) -> Analysis:
    """One Pod: a single-pod what-if; a controller, a List or several documents: a workload.
    PriorityClass documents beside them are the what-if's own classes."""
    classes, objects = whatif_split(manifest_objects(text=text))
    if is_single_pod(objects) and not recreate_victims:
        return analysis_create(
            snapshot=snapshot,
            pod=objects[0],
            source=source,
            priority_classes=classes,
            field="manifest",
            scheduler=scheduler,
            requested_by=requested_by,
        )
    return analysis_create_workload(
        snapshot=snapshot,
        objects=objects,
        recreate_victims=recreate_victims,
        timeline=timeline,
        source=source,
        field="manifest",
        priority_classes=classes,
        scheduler=scheduler,
        requested_by=requested_by,
    )


def analysis_rerun(*, analysis: Analysis, snapshot: Snapshot, requested_by: Any = None) -> Analysis:
    """The same what-if (the same pod, or the same workload objects and cascade choice)
    queued on ``snapshot``: PodRejected when that snapshot cannot take it (a class it
    lacks). The what-if's own scheduler configuration goes with it; one it took from its
    snapshot does not (the other snapshot's own applies)."""
    own = analysis.scheduler if analysis.scheduler_source == SchedulerSource.ANALYSIS else None
    if analysis.is_take_nodes_away:
        return analysis_rerun_take_nodes_away(
            analysis=analysis, snapshot=snapshot, own=own, requested_by=requested_by
        )
    if analysis.is_capacity:
        size = analysis.pod.get("size")
        return analysis_create_capacity(
            snapshot=snapshot,
            limit=analysis.pod["limit"],
            pod=None if size else analysis.pod["objects"][0],
            size=Size(**size) if size else None,
            source=analysis.source,
            priority_classes=analysis.priority_classes,
            scheduler=own,
            requested_by=requested_by,
        )
    if analysis.is_workload:
        return analysis_create_workload(
            snapshot=snapshot,
            objects=analysis.pod["objects"],
            recreate_victims=analysis.recreate_victims,
            timeline=analysis.timeline,
            source=analysis.source,
            priority_classes=analysis.priority_classes,
            scheduler=own,
            requested_by=requested_by,
        )
    return analysis_create(
        snapshot=snapshot,
        pod=analysis.pod,
        source=analysis.source,
        preemption_args=analysis.preemption_args,
        priority_classes=analysis.priority_classes,
        scheduler=own,
        requested_by=requested_by,
    )


def analysis_run(*, analysis_id: int, task_id: str = "") -> Analysis:
    """Runs the analysis and stores its result. Idempotent.

    A finished analysis is left as it is, and so is one another live task holds;
    a queued one runs; a running one whose worker died runs again. While it runs
    a heartbeat keeps its lease, so the reconciler leaves it alone. Deleted while it
    runs, it stops (scheduling/running/cancellation.py) and its owner's slot is freed then.
    """
    task_id = task_id or f"direct-{uuid.uuid4().hex}"
    analysis, claimed = analysis_claim(analysis_id=analysis_id, task_id=task_id)
    if not claimed:
        return analysis
    try:
        with lease_heartbeat(Analysis, analysis.pk, task_id):
            return _analysis_compute(analysis)
    except Cancelled:
        logger.info("analysis %s was deleted while it ran; stopped", analysis_id)
        return analysis
    except WorkerStopping:
        return analysis_requeue_stopped(analysis_id=analysis.pk, task_id=task_id)
    finally:
        run_stopped(analysis_id=analysis_id)


def _analysis_compute(analysis: Analysis) -> Analysis:
    t0 = time.perf_counter()
    cluster, cached = snapshot_load(snapshot=analysis.snapshot)
    t1 = time.perf_counter()
    if analysis.kind == AnalysisKind.WORKLOAD:
        return workload_store(analysis, cluster, cached=cached, t0=t0, t1=t1)
    if analysis.kind == AnalysisKind.CAPACITY:
        return capacity_store(analysis, cluster, cached=cached, t0=t0, t1=t1)
    if analysis.kind == AnalysisKind.TAKE_NODES_AWAY:
        return take_nodes_away_store(analysis, cluster, cached=cached, t0=t0, t1=t1)
    return pod_store(analysis, cluster, cached=cached, t0=t0, t1=t1)
