"""Writes: submit a what-if, run it, record how it ended, share it.

The HTML views, the API and the Celery task all call these. The engine decides;
scheduling/submission.py reads and checks the input (a manifest, a form, a cloned
pod, a workload); this module queues it, runs it and stores the output.
"""

from __future__ import annotations

import copy
import logging
import time
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

import orjson
from django.db import transaction
from django.utils import timezone

from clusters.ingest.scrub import scrub_object
from clusters.models import Snapshot
from clusters.parsed import parsed_cluster_fetch, parsed_cluster_store
from clusters.selectors import snapshot_objects
from operations.faults import BrokerUnavailable, publish
from operations.leases import lease_heartbeat, lease_release_fields
from scheduling import cluster_cache
from scheduling.budgets import (
    AnalysisBudget,
    OutOfTime,
    WorkerStopping,
    result_too_large,
    unfinished_slot,
)
from scheduling.cancellation import Cancelled, analysis_cancel, run_stopped
from scheduling.constants import (
    AnalysisKind,
    AnalysisSource,
    AnalysisStatus,
    Outcome,
)
from scheduling.engine import (
    ENGINE_VERSION,
    Cluster,
    EngineConfig,
    InvalidInput,
    analyze,
    load_cluster,
    simulate,
)
from scheduling.engine.budgets import manifest_record, with_budgets
from scheduling.engine.capacity import (
    Capacity,
    RoomByClass,
    Size,
    capacity,
    capacity_by_class,
)
from scheduling.engine.profile import DEFAULT_SCHEDULER_NAME
from scheduling.engine.simulate import default_cycle_limit
from scheduling.engine.workload import (
    Workload,
    WorkloadObject,
    manifest_budgets,
    skipped_kinds,
)
from scheduling.models import Analysis, ShareLink, capacity_to_json
from scheduling.presenters.capacity import capacity_sentence, room_sentence
from scheduling.presenters.workload import workload_sentence
from scheduling.profile_difference import difference_sentence
from scheduling.scheduler_config import SchedulerChoice, SchedulerSource, choice_for
from scheduling.submission import (
    PodRejected,
    SnapshotNotReady,
    capacity_limit_check,
    is_single_pod,
    manifest_objects,
    pod_validate,
    priority_classes_check,
    submission_scrub,
    whatif_split,
    workload_expand,
)
from scheduling.workloads import WorkloadRun

logger = logging.getLogger(__name__)


# --- workloads (scheduling/submission.py reads and checks what is submitted) --------


def analysis_create_workload(
    *,
    snapshot: Snapshot,
    objects: Any,
    recreate_victims: bool = False,
    timeline: bool = False,
    source: str = AnalysisSource.MANIFEST,
    field: str = "objects",
    taken: Iterable[str] = (),
    priority_classes: list[dict[str, Any]] | None = None,
    classes_field: str | None = None,
    scheduler: SchedulerChoice | None = None,
    requested_by: Any = None,
) -> Analysis:
    """A queued workload what-if: the objects expanded and admitted now (bad input is
    refused before anything is stored), simulated by a worker. ``priority_classes``: the
    what-if's own PriorityClass objects (refused under ``classes_field``, else ``field``)."""
    if not snapshot.is_ready:
        raise SnapshotNotReady(snapshot)
    classes = priority_classes_check(
        snapshot=snapshot, classes=priority_classes or [], field=classes_field or field
    )
    workload = workload_expand(
        snapshot=snapshot, objects=objects, field=field, taken=taken, priority_classes=classes
    )
    return _analysis_queue(
        snapshot=snapshot,
        kind=AnalysisKind.WORKLOAD,
        pod={
            "objects": objects,
            "pods": workload.pods,
            "made": [asdict(o) for o in workload.objects],
            # Counted now: the scrub drops a Secret whole before the row is stored. Pairs
            # in document order (PostgreSQL's jsonb keeps no key order).
            "skipped": [[kind, n] for kind, n in workload.skipped.items()],
        },
        pod_key=workload.describe()[:507],
        recreate_victims=recreate_victims,
        timeline=timeline,
        source=source,
        priority_classes=classes,
        scheduler=scheduler,
        requested_by=requested_by,
    )


# --- how many fit (kind capacity) ---------------------------------------------------


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
    return _analysis_queue(
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


def workload_simulate(
    *,
    cluster: Cluster,
    made: list[dict[str, Any]],
    pods: list[dict[str, Any]],
    recreate_victims: bool,
    timeline: bool = False,
    on_cycle: Any = None,
    cycle_limit: int | None = None,
    priority_classes: list[dict[str, Any]] | None = None,
    scheduler_config: dict[str, Any] | None = None,
    objects: list[Any] | None = None,
    skipped: dict[str, int] | None = None,
) -> WorkloadRun:
    """Runs the scheduling loop over the workload's pods (as expanded and admitted when
    submitted) and keeps what the page needs. ``objects``, as stored: the budgets
    among them join the snapshot for this run; ``skipped``: the kinds the manifest held
    that the run skips, counted when submitted (else counted in ``objects``), noted."""
    workload = Workload(
        pods=pods,
        objects=[WorkloadObject(**{**o, "pod_keys": tuple(o["pod_keys"])}) for o in made],
    )
    cluster, budgets = with_budgets(cluster, manifest_budgets(objects or []))
    sim = simulate(
        cluster,
        pods,
        recreate_victims=recreate_victims,
        on_cycle=on_cycle,
        cycle_limit=cycle_limit,
        timeline=timeline,
        priority_classes=priority_classes or [],
        **engine_profile(scheduler_config),
    )
    run = WorkloadRun.from_simulation(sim, workload)
    record = manifest_record(
        budgets, skipped if skipped is not None else skipped_kinds(objects or [])
    )
    if record is not None:
        run.contract["manifest"] = record
    return run


def workload_outcome(run: WorkloadRun) -> str:
    """The lists' one-word outcome of a run (WorkloadRun.outcome, as the row stores it):
    all-run, some-run or none-run."""
    return run.outcome.value


def workload_summary(run: WorkloadRun) -> str:
    """The lists' and the API's words for a workload's answer: the page's sentence, and
    whether the victims' owners recreated them (two such runs must not look alike)."""
    sentence = workload_sentence(run)
    return f"{sentence}; victims recreated (the cascade)" if run.recreate_victims else sentence


class _Progress:
    """on_cycle: writes the cycle reached to the row, at most every half second."""

    def __init__(self, analysis_id: int) -> None:
        self.analysis_id = analysis_id
        self.last = 0.0

    def __call__(self, cycle: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.5:
            return
        self.last = now
        if not Analysis.objects.filter(pk=self.analysis_id).update(progress_cycle=cycle):
            raise Cancelled  # the row was deleted: the run stops here


def cycle_explanation_create(*, parent: Analysis, cycle: int, requested_by: Any = None) -> Analysis:
    """The single-pod explanation of one cycle of a workload run (made once, then reused)."""
    existing = parent.cycle_explanations.filter(cycle=cycle).first()
    if existing is not None:
        return existing
    run = parent.run
    if run is None or not any(y.cycle == cycle for y in run.cycles):
        raise PodRejected(f"The run has no cycle {cycle}.", field="cycle")
    popped = next(y.pod for y in run.cycles if y.cycle == cycle)
    return _analysis_queue(
        snapshot=parent.snapshot,
        parent=parent,
        cycle=cycle,
        pod={"cycle": cycle, "pod": popped},
        pod_key=popped,
        source=parent.source,
        scheduler=parent.scheduler,
        requested_by=requested_by,
    )


# --- running it ------------------------------------------------------------------


def analysis_create(
    *,
    snapshot: Snapshot,
    pod: Any,
    source: str = AnalysisSource.MANIFEST,
    preemption_args: dict[str, int] | None = None,
    priority_classes: list[dict[str, Any]] | None = None,
    field: str = "priority_classes",
    scheduler: SchedulerChoice | None = None,
    requested_by: Any = None,
) -> Analysis:
    """A queued analysis of ``pod`` on ``snapshot``, its task sent once the row is committed.
    ``priority_classes``: the what-if's own PriorityClass objects (refused under ``field``).

    BrokerUnavailable when the task cannot be sent: the row is then deleted again,
    so a refused POST stores nothing (the caller answers 503 and the client retries).
    """
    if not snapshot.is_ready:
        raise SnapshotNotReady(snapshot)
    classes = priority_classes_check(snapshot=snapshot, classes=priority_classes or [], field=field)
    pod_key = pod_validate(snapshot=snapshot, pod=pod, priority_classes=classes)
    pod = dict(pod)
    pod.setdefault("apiVersion", "v1")
    pod.setdefault("kind", "Pod")
    return _analysis_queue(
        snapshot=snapshot,
        pod=pod,
        pod_key=pod_key,
        source=source,
        preemption_args=dict(preemption_args or {}),
        priority_classes=classes,
        scheduler=scheduler,
        requested_by=requested_by,
    )


def _analysis_queue(
    *, scheduler: SchedulerChoice | None = None, requested_by: Any = None, **fields: Any
) -> Analysis:
    """A queued analysis row and its message; the row is deleted again when the broker
    cannot take the message (BrokerUnavailable), so a refused request stores nothing.
    The submission is scrubbed first: no secret it carried is stored or shown.
    ``scheduler``: the what-if's own configuration; None takes the snapshot's (copied,
    so a later change to the snapshot leaves this analysis as it ran). ``requested_by``:
    who asks (the signed-in user; None: the snapshot's owner); it counts against their
    unfinished work, not against the snapshot's owner's."""
    fields["requested_by"] = requested_by or fields["snapshot"].owner
    chosen = choice_for(fields["snapshot"], scheduler)
    fields |= {
        "scheduler_config": copy.deepcopy(chosen.config),
        "scheduler_source": chosen.source,
        "scheduler_preset": chosen.preset,
    }
    fields["pod"] = copy.deepcopy(fields["pod"])  # the caller's objects stay as given
    scrubbed = submission_scrub(fields["pod"])
    if fields.get("priority_classes"):
        fields["priority_classes"] = copy.deepcopy(fields["priority_classes"])
        report: Counter[str] = Counter(scrubbed)
        for obj in fields["priority_classes"]:
            scrub_object(obj, report)
        scrubbed = dict(sorted(report.items()))
    with unfinished_slot(user=fields["requested_by"]):
        analysis = Analysis.objects.create(
            status=AnalysisStatus.QUEUED, enqueued_at=timezone.now(), scrubbed=scrubbed, **fields
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


def _cluster_of(snapshot: Snapshot) -> Cluster:
    """The stored parsed form when it is of this engine, else parsed from the objects
    (and stored for the next worker)."""
    stored = parsed_cluster_fetch(snapshot=snapshot)
    if stored is not None:
        return stored
    cluster = load_cluster(snapshot_objects(snapshot=snapshot))
    parsed_cluster_store(snapshot=snapshot, cluster=cluster)
    return cluster


def snapshot_load(*, snapshot: Snapshot) -> tuple[Cluster, bool]:
    """The parsed cluster of the snapshot from this process's cache, or loaded into it."""
    cluster, cached = cluster_cache.cluster_cache_get(
        key=cluster_cache.cluster_cache_key(snapshot=snapshot),
        load=lambda: _cluster_of(snapshot),
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
    a heartbeat keeps its lease, so the reconciler leaves it alone. Deleted while it
    runs, it stops (scheduling/cancellation.py) and its owner's slot is freed then.
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


def analysis_requeue_stopped(*, analysis_id: int, task_id: str) -> Analysis:
    """The worker running it is shutting down: the analysis goes back to the queue with a
    new message, for the next worker to run from the start (the broker being down, the
    reconciler sends that message later)."""
    Analysis.objects.filter(
        pk=analysis_id, status=AnalysisStatus.RUNNING, lease_task_id=task_id[:64]
    ).update(
        status=AnalysisStatus.QUEUED,
        started_at=None,
        enqueued_at=timezone.now(),
        **lease_release_fields(),
    )
    logger.info("analysis %s queued again: its worker is shutting down", analysis_id)
    try:
        analysis_publish(analysis_id)
    except BrokerUnavailable:
        logger.warning("analysis %s stays queued for the reconciler", analysis_id)
    return Analysis.objects.get(pk=analysis_id)


def _workload_compute(
    analysis: Analysis, cluster: Cluster, budget: AnalysisBudget, *, default_profile: bool = False
) -> WorkloadRun:
    """The run under the analysis' configuration, or kube-scheduler's default profile."""
    run_of = analysis.parent if analysis.parent_id is not None else analysis
    assert run_of is not None
    return workload_simulate(
        cluster=cluster,
        made=run_of.pod["made"],
        pods=run_of.pod["pods"],
        recreate_victims=run_of.recreate_victims,
        timeline=run_of.timeline,
        on_cycle=budget.watch(
            _Progress(analysis.pk) if run_of is analysis and not default_profile else None
        ),
        cycle_limit=budget.cycle_limit(default_cycle_limit(len(run_of.pod["pods"]))),
        priority_classes=run_of.priority_classes,
        scheduler_config=None if default_profile else analysis.scheduler.effective,
        objects=run_of.pod.get("objects"),
        skipped=dict(run_of.pod["skipped"]) if "skipped" in run_of.pod else None,
    )


def _cycle_explain(analysis: Analysis, cluster: Cluster) -> Any:
    """The parent run played again (it is deterministic) up to the cycle, and that
    cycle's pod analyzed on the cluster as it stood then."""
    parent = analysis.parent
    assert parent is not None and analysis.cycle is not None
    cluster, _ = with_budgets(cluster, manifest_budgets(parent.pod.get("objects") or []))
    sim = simulate(
        cluster,
        parent.pod["pods"],
        recreate_victims=parent.recreate_victims,
        timeline=parent.timeline,
        cycle_limit=analysis.cycle,
        on_cycle=AnalysisBudget.from_settings().watch(),
        priority_classes=parent.priority_classes,
        **engine_profile(parent.scheduler.effective),
    )
    return sim.explain(analysis.cycle).explanation


def _analysis_compute(analysis: Analysis) -> Analysis:
    t0 = time.perf_counter()
    cluster, cached = snapshot_load(snapshot=analysis.snapshot)
    t1 = time.perf_counter()
    if analysis.kind == AnalysisKind.WORKLOAD:
        return _workload_store(analysis, cluster, cached=cached, t0=t0, t1=t1)
    if analysis.kind == AnalysisKind.CAPACITY:
        return _capacity_store(analysis, cluster, cached=cached, t0=t0, t1=t1)
    if analysis.kind == AnalysisKind.TAKE_NODES_AWAY:
        from scheduling.take_nodes_away import take_nodes_away_store

        return take_nodes_away_store(analysis, cluster, cached=cached, t0=t0, t1=t1)
    try:
        if analysis.parent_id is not None:
            explanation = _cycle_explain(analysis, cluster)
        else:
            explanation = _pod_explain(analysis, cluster, analysis.scheduler.effective)
    except InvalidInput as e:
        return analysis_fail(analysis_id=analysis.pk, error=f"The pod is invalid: {e}")
    except OutOfTime as e:
        return analysis_fail(analysis_id=analysis.pk, error=e.message)
    t2 = time.perf_counter()
    stored = explanation.to_json()
    too_large = result_too_large(len(orjson.dumps(stored)), AnalysisBudget.from_settings())
    if too_large:
        return analysis_fail(analysis_id=analysis.pk, error=too_large)
    difference = ""
    if analysis.parent_id is None and not analysis.scheduler.is_default:
        default = _pod_explain(analysis, cluster, None)
        spec = analysis.pod.get("spec") or {}
        difference = difference_sentence(
            analysis.scheduler,
            explanation,
            default,
            scheduler_name=spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME,
        )
    return _analysis_done(
        analysis,
        load_seconds=0.0 if cached else t1 - t0,
        engine_seconds=t2 - t1,
        outcome=explanation.outcome.value,
        explanation=stored,
        scheduler_difference=difference[:500],
    )


def engine_profile(config: dict[str, Any] | None) -> dict[str, Any]:
    """The engine's keyword for a scheduler configuration: none for the default profile,
    so a default run is exactly the run without one."""
    return {} if config is None else {"scheduler_config": config}


def _pod_explain(analysis: Analysis, cluster: Cluster, config: dict[str, Any] | None) -> Any:
    return analyze(
        cluster,
        analysis.pod,
        EngineConfig(**analysis.preemption_args),
        priority_classes=analysis.priority_classes,
        **engine_profile(config),
    ).explanation


def _analysis_done(
    analysis: Analysis, *, load_seconds: float, engine_seconds: float, **result: Any
) -> Analysis:
    """Stores the result fields of a finished analysis (unless another run stored its own)."""
    Analysis.objects.filter(pk=analysis.pk).exclude(status=AnalysisStatus.DONE).update(
        status=AnalysisStatus.DONE,
        error="",
        finished_at=timezone.now(),
        load_seconds=round(load_seconds, 4),
        engine_seconds=round(engine_seconds, 4),
        engine_version=ENGINE_VERSION,
        **result,
        **lease_release_fields(),
    )
    analysis.refresh_from_db()
    return analysis


def _workload_store(
    analysis: Analysis, cluster: Cluster, *, cached: bool, t0: float, t1: float
) -> Analysis:
    budget = AnalysisBudget.from_settings()
    try:
        run = _workload_compute(analysis, cluster, budget)
    except InvalidInput as e:
        return analysis_fail(analysis_id=analysis.pk, error=f"The workload is invalid: {e}")
    except OutOfTime as e:
        return analysis_fail(analysis_id=analysis.pk, error=e.message)
    t2 = time.perf_counter()
    stored = run.to_json()
    too_large = result_too_large(len(orjson.dumps(stored)), budget)
    if too_large:
        return analysis_fail(analysis_id=analysis.pk, error=too_large)
    difference = ""
    if analysis.parent_id is None and not analysis.scheduler.is_default:
        with_default = _workload_compute(analysis, cluster, budget, default_profile=True)
        difference = difference_sentence(analysis.scheduler, run, with_default)
    return _analysis_done(
        analysis,
        load_seconds=0.0 if cached else t1 - t0,
        engine_seconds=t2 - t1,
        outcome=workload_outcome(run),
        summary=workload_summary(run)[:500],
        simulation=stored,
        progress_cycle=len(run.cycles),
        scheduler_difference=difference[:500],
    )


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


def _capacity_store(
    analysis: Analysis, cluster: Cluster, *, cached: bool, t0: float, t1: float
) -> Analysis:
    budget = AnalysisBudget.from_settings()
    try:
        answer = capacity_compute(
            cluster=cluster,
            submitted=analysis.pod,
            priority_classes=analysis.priority_classes,
            on_cycle=budget.watch(_Progress(analysis.pk)),
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
    return _analysis_done(
        analysis,
        load_seconds=0.0 if cached else t1 - t0,
        engine_seconds=t2 - t1,
        outcome=capacity_outcome(answer),
        summary=sentence[:500],
        simulation=stored,
        **({"progress_cycle": answer.cycles} if isinstance(answer, Capacity) else {}),
    )


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


def analysis_delete(*, analysis: Analysis) -> None:
    """Deletes the analysis with its share links (they answer 404 from then on) and its
    cycle explanations. A run already going stops within a second, and counts against
    its owner's unfinished work until it has (scheduling/cancellation.py)."""
    analysis_cancel(analysis=analysis)


def analysis_rerun(*, analysis: Analysis, snapshot: Snapshot, requested_by: Any = None) -> Analysis:
    """The same what-if (the same pod, or the same workload objects and cascade choice)
    queued on ``snapshot``: PodRejected when that snapshot cannot take it (a class it
    lacks). The what-if's own scheduler configuration goes with it; one it took from its
    snapshot does not (the other snapshot's own applies)."""
    own = analysis.scheduler if analysis.scheduler_source == SchedulerSource.ANALYSIS else None
    if analysis.is_take_nodes_away:
        from scheduling.take_nodes_away import analysis_rerun_take_nodes_away

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


def analysis_manifest(*, analysis: Analysis) -> str:
    """What was submitted, as the YAML to paste into the what-if form again (the what-if's
    own PriorityClasses first)."""
    import yaml

    objects = list(analysis.priority_classes or [])
    if analysis.is_take_nodes_away:
        return yaml.safe_dump(analysis.pod, sort_keys=False)
    if analysis.is_workload or analysis.is_capacity:
        objects += analysis.pod["objects"]
    else:
        objects.append(analysis.pod)
    return yaml.safe_dump_all(objects, sort_keys=False)


def analysis_retry(*, analysis: Analysis, requested_by: Any = None) -> Analysis:
    """Queues a failed analysis again (after a fix to the engine or a lost worker).

    The row is queued first: if the broker is down (BrokerUnavailable), the
    reconciler sends its message once the broker is back. ``requested_by``: who asks
    again (None: who asked first); it counts against them from then on.
    """
    asker = requested_by or analysis.requested_by or analysis.snapshot.owner
    with unfinished_slot(user=asker):
        Analysis.objects.filter(pk=analysis.pk).update(
            requested_by=asker,
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


def share_link_create(*, analysis: Analysis, created_by: Any = None) -> ShareLink:
    """A new link; ``created_by`` (None: the snapshot's owner) may revoke it later."""
    return ShareLink.objects.create(
        analysis=analysis, created_by=created_by or analysis.snapshot.owner
    )


def share_link_revoke(*, share_link: ShareLink) -> ShareLink:
    if share_link.revoked_at is None:
        share_link.revoked_at = timezone.now()
        share_link.save(update_fields=["revoked_at"])
    return share_link
