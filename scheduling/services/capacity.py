"""How many fit: replicas of one pod placed until the cluster is full, or one size in
every user class (room_pod_key); submitted (analysis_create_capacity), computed
(capacity_compute) and stored (capacity_store)."""

from __future__ import annotations

import time
from typing import Any

import orjson

from clusters.models import Snapshot
from scheduling.analyses.submission import (
    PodRejected,
    SnapshotNotReady,
    capacity_limit_check,
    pod_validate,
    priority_classes_check,
)
from scheduling.constants import AnalysisKind, AnalysisSource, Outcome
from scheduling.engine import Cluster, InvalidInput
from scheduling.engine.capacity import Capacity, RoomByClass, Size, capacity, capacity_by_class
from scheduling.models import Analysis, capacity_to_json
from scheduling.presenters.capacity import capacity_sentence, room_sentence
from scheduling.running.budgets import AnalysisBudget, OutOfTime, result_too_large
from scheduling.scheduler_config import SchedulerChoice
from scheduling.services.common import (
    Progress,
    analysis_done,
    analysis_fail,
    analysis_queue,
    engine_profile,
)


def analysis_create_capacity(
    *,
    snapshot: Snapshot,
    limit: Any,
    pod: Any = None,
    size: Size | None = None,
    source: str = AnalysisSource.MANIFEST,
    field: str = "pod",
    priority_classes: list[dict[str, Any]] | None = None,
    classes_field: str | None = None,
    scheduler: SchedulerChoice | None = None,
    requested_by: Any = None,
) -> Analysis:
    """A queued "how many fit?": ``limit`` replicas of ``pod`` (a Pod template), or with
    ``size`` one pod of that size in every user PriorityClass, run through kube-scheduler's
    loop by a worker. Bad input is refused (PodRejected) before anything is stored."""
    if not snapshot.is_ready:
        raise SnapshotNotReady(snapshot)
    limit = capacity_limit_check(limit)
    classes = priority_classes_check(
        snapshot=snapshot, classes=priority_classes or [], field=classes_field or field
    )
    stored: dict[str, Any] = {"limit": limit}
    if size is not None:
        stored |= {"objects": [], "size": size.to_dict()}
        pod_key = room_pod_key(size)
    else:
        try:
            pod_key = pod_validate(snapshot=snapshot, pod=pod, priority_classes=classes)
        except PodRejected as e:
            raise PodRejected(e.message, field=field, engine_field=e.engine_field) from None
        template = dict(pod)
        template.setdefault("apiVersion", "v1")
        template.setdefault("kind", "Pod")
        stored["objects"] = [template]
    return analysis_queue(
        snapshot=snapshot,
        kind=AnalysisKind.CAPACITY,
        pod=stored,
        pod_key=pod_key,
        source=source,
        priority_classes=classes,
        scheduler=scheduler,
        requested_by=requested_by,
    )


def room_pod_key(size: Size) -> str:
    """The lists' name of a room-per-tier table (one size in every user class)."""
    return f"every class, {size.cpu} CPU / {size.memory}"


def capacity_compute(
    *,
    cluster: Cluster,
    submitted: dict[str, Any],
    priority_classes: list[dict[str, Any]],
    on_cycle: Any,
    scheduler_config: dict[str, Any] | None = None,
) -> Capacity | RoomByClass:
    """The answer of a capacity what-if as stored by analysis_create_capacity."""
    if "size" in submitted:
        size = submitted["size"]
        return capacity_by_class(
            cluster,
            size["cpu"],
            size["memory"],
            limit=submitted["limit"],
            on_cycle=on_cycle,
            priority_classes=priority_classes,
            **engine_profile(scheduler_config),
        )
    return capacity(
        cluster,
        submitted["objects"][0],
        limit=submitted["limit"],
        on_cycle=on_cycle,
        priority_classes=priority_classes,
        **engine_profile(scheduler_config),
    )


def capacity_outcome(answer: Capacity | RoomByClass) -> str:
    """The lists' one word: every replica placed without a victim (fits), some placed by
    preempting (preempts), none placed (unschedulable). The table has no one word."""
    if isinstance(answer, RoomByClass):
        return ""
    if answer.placed == 0:
        return Outcome.UNSCHEDULABLE
    return Outcome.PREEMPTS if answer.victims else Outcome.FITS


def capacity_store(
    analysis: Analysis, cluster: Cluster, *, cached: bool, t0: float, t1: float
) -> Analysis:
    budget = AnalysisBudget.from_settings()
    try:
        answer = capacity_compute(
            cluster=cluster,
            submitted=analysis.pod,
            priority_classes=analysis.priority_classes,
            on_cycle=budget.watch(Progress(analysis.pk)),
            scheduler_config=analysis.scheduler.effective,
        )
    except InvalidInput as e:
        return analysis_fail(analysis_id=analysis.pk, error=f"The pod is invalid: {e}")
    except OutOfTime as e:
        return analysis_fail(analysis_id=analysis.pk, error=e.message)
    t2 = time.perf_counter()
    stored = capacity_to_json(answer)
    too_large = result_too_large(len(orjson.dumps(stored)), budget)
    if too_large:
        return analysis_fail(analysis_id=analysis.pk, error=too_large)
    sentence = (
        room_sentence(answer) if isinstance(answer, RoomByClass) else capacity_sentence(answer)
    )
    return analysis_done(
        analysis,
        load_seconds=0.0 if cached else t1 - t0,
        engine_seconds=t2 - t1,
        outcome=capacity_outcome(answer),
        summary=sentence[:500],
        simulation=stored,
        **({"progress_cycle": answer.cycles} if isinstance(answer, Capacity) else {}),
    )
