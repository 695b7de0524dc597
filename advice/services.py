"""Advice as stored work: asked by the web process, searched by a worker, kept.

``advice_request`` refuses an analysis advice cannot answer (NotAdvisable: a capacity
what-if, a cycle's explanation, an analysis without an answer), finds the advice stored
for it, or queues it under the user's limit of unfinished work; a Celery task
(advice/tasks.py) runs ``advice_run``, which claims the row as an analysis is claimed
(a lease the worker renews; the reconciler queues the row again when a worker dies),
asks the engine's ``advise`` with the analysis' own question, cluster, classes and
scheduler configuration, and stores the answer. The whole advice gets one analysis'
time (PREEMPTLAB_ANALYSIS_SECONDS): the engine stops its search there and says so.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from advice.models import Advice
from operations.faults import BrokerUnavailable, publish
from operations.leases import lease_heartbeat, lease_release_fields
from scheduling.analyses.submission import workload_max_replicas
from scheduling.constants import AnalysisStatus
from scheduling.engine import ENGINE_VERSION, Cluster, EngineConfig, InvalidInput
from scheduling.engine.advice import PodQuestion, Question, WorkloadQuestion, advise
from scheduling.engine.budgets import with_budgets
from scheduling.engine.workload import manifest_budgets
from scheduling.models import Analysis
from scheduling.running.budgets import WorkerStopping, unfinished_slot, worker_stopping
from scheduling.running.cancellation import Cancelled
from scheduling.services import snapshot_load

log = logging.getLogger(__name__)

# The Celery task that searches an advice: enqueued by this name (operations.faults.publish),
# advice.tasks registers under it.
ADVICE_RUN_TASK = "advice.advice_run"

# The columns that say how far the advice is (all but the answer).
_STATE = [
    "status",
    "error",
    "attempts",
    "runs_done",
    "started_at",
    "finished_at",
    "engine_version",
    "stopped_early",
]


class NotAdvisable(Exception):
    """Advice cannot answer this analysis (409): the words say why."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def advisable_check(analysis: Analysis) -> None:
    """NotAdvisable unless ``analysis`` is a pod or workload what-if with its answer."""
    if analysis.is_capacity:
        raise NotAdvisable(
            "Advice answers a pod or workload what-if; a “how many fit?” answer evicts "
            "nothing of its own to avoid. Ask a what-if with the replicas you mean to run."
        )
    if analysis.is_take_nodes_away:
        raise NotAdvisable(
            "Advice answers a pod or workload what-if; the page of nodes taken away says "
            "which change applies (add nodes like them, protect the pods preempted, fewer "
            "replicas, drain fewer at once): ask that change as a what-if of its own."
        )
    if analysis.parent_id is not None:
        raise NotAdvisable(
            "This explains one cycle of a workload run: ask for advice on the run itself."
        )
    if analysis.is_active:
        raise NotAdvisable(
            f"The analysis is still {analysis.status}: advice starts from its answer. "
            "Ask again once it is done."
        )
    if analysis.is_failed:
        raise NotAdvisable("The analysis failed, so there is no answer to avoid.")


def advice_get(*, analysis: Analysis) -> Advice | None:
    """The advice stored for the analysis (without its answer column), or None."""
    return Advice.objects.defer("answer").filter(analysis=analysis).first()


def advice_request(*, analysis: Analysis, requested_by: Any = None) -> Advice:
    """The analysis' advice: stored (done, or queued or running), or queued now. A failed
    one, or one of another engine version, is queued again.

    NotAdvisable (409) for an analysis advice cannot answer; TooManyUnfinished (429)
    when new work would exceed the user's unfinished work; BrokerUnavailable (503) when
    the message cannot be sent (nothing is stored then). ``requested_by``: who asks (None:
    the snapshot's owner); new work counts against their unfinished work."""
    advisable_check(analysis)
    asker = requested_by or analysis.snapshot.owner
    stored = advice_get(analysis=analysis)
    if stored is not None:
        outdated = stored.is_done and stored.engine_version != ENGINE_VERSION
        if outdated or stored.is_failed:
            return _requeue(stored, user=asker)
        return stored
    try:
        with unfinished_slot(user=asker), transaction.atomic():
            advice = Advice.objects.create(
                analysis=analysis,
                status=AnalysisStatus.QUEUED,
                enqueued_at=timezone.now(),
                requested_by=asker,
            )
    except IntegrityError:
        # Another request asked in the same instant: one row, one search.
        return Advice.objects.defer("answer").get(analysis=analysis)
    try:
        advice_publish(advice.pk)
    except BrokerUnavailable:
        Advice.objects.filter(pk=advice.pk).delete()
        raise
    # An eager Celery (CELERY_TASK_ALWAYS_EAGER) has searched it already: say so at once.
    advice.refresh_from_db(fields=_STATE)
    return advice


def _requeue(advice: Advice, *, user: Any) -> Advice:
    """A failed (or outdated) advice queued again, now ``user``'s to count; the reconciler
    sends the message if the broker cannot take it now."""
    with unfinished_slot(user=user):
        Advice.objects.filter(pk=advice.pk, status=advice.status).update(
            requested_by=user,
            status=AnalysisStatus.QUEUED,
            error="",
            started_at=None,
            finished_at=None,
            runs_done=0,
            stopped_early=False,
            enqueued_at=timezone.now(),
            **lease_release_fields(),
        )
    try:
        advice_publish(advice.pk)
    except BrokerUnavailable:
        log.warning("advice %s stays queued for the reconciler", advice.pk)
    advice.refresh_from_db(fields=_STATE)
    return advice


def advice_publish(advice_id: int) -> None:
    """Sends the message that searches the advice (the reconciler sends it again if lost)."""
    publish(ADVICE_RUN_TASK, advice_id)


def advice_claim(*, advice_id: int, task_id: str) -> tuple[Advice, bool]:
    """Locks the row and takes its lease; (the advice, whether this task should run it).
    Finished rows and rows another live task holds are left alone (analysis_claim's rule)."""
    with transaction.atomic():
        advice = (
            Advice.objects.select_for_update()
            .select_related("analysis", "analysis__snapshot")
            .defer("answer")
            .get(pk=advice_id)
        )
        if advice.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED):
            return advice, False
        if advice.status == AnalysisStatus.RUNNING and advice.lease_taken_by_other(task_id):
            return advice, False
        advice.status = AnalysisStatus.RUNNING
        advice.started_at = timezone.now()
        advice.attempts += 1
        advice.runs_done = 0
        fields = advice.lease_take(task_id)
        advice.save(update_fields=["status", "started_at", "attempts", "runs_done", *fields])
    return advice, True


class _Progress:
    """on_run: writes the engine runs made to the row (at most every half second), and
    stops the search when the row is gone (its analysis deleted) or the worker stops."""

    def __init__(self, advice_id: int) -> None:
        self.advice_id = advice_id
        self.last = 0.0

    def __call__(self, runs: int) -> None:
        if worker_stopping():
            raise WorkerStopping(runs)
        now = time.monotonic()
        if now - self.last < 0.5:
            return
        self.last = now
        if not Advice.objects.filter(pk=self.advice_id).update(runs_done=runs):
            raise Cancelled


def question_of(analysis: Analysis, cluster: Cluster) -> Question:
    """The engine's question for a pod or workload analysis, as it was submitted."""
    if not analysis.is_workload:
        return PodQuestion(pod=analysis.pod, config=EngineConfig(**analysis.preemption_args))
    submitted = analysis.pod
    own = {
        f"{(p.get('metadata') or {}).get('namespace') or 'default'}/"
        f"{(p.get('metadata') or {}).get('name')}"
        for p in submitted["pods"]
    }
    # Generated names avoid the cluster's pods again, as they did when it was submitted
    # (a scale-up's new replicas avoid their owner's); the workload's own names stay.
    taken = tuple(sorted(p.key for p in cluster.pods if p.key not in own))
    return WorkloadQuestion(
        objects=submitted["objects"],
        recreate_victims=analysis.recreate_victims,
        timeline=analysis.timeline,
        taken=taken,
        max_replicas=workload_max_replicas(),
    )


def advice_run(*, advice_id: int, task_id: str = "") -> Advice:
    """Searches the advice and stores it. Idempotent, as analysis_run is: a finished
    advice is left as it is, a running one another live task holds too."""
    task_id = task_id or f"direct-{uuid.uuid4().hex}"
    advice, claimed = advice_claim(advice_id=advice_id, task_id=task_id)
    if not claimed:
        return advice
    try:
        with lease_heartbeat(Advice, advice.pk, task_id):
            return _advice_compute(advice)
    except Cancelled:
        log.info("advice %s was deleted (with its analysis) while it ran; stopped", advice_id)
        return advice
    except WorkerStopping:
        return _requeue_stopped(advice_id=advice.pk, task_id=task_id)


def _advice_compute(advice: Advice) -> Advice:
    analysis = Analysis.objects.select_related("snapshot").get(pk=advice.analysis_id)
    t0 = time.perf_counter()
    cluster, cached = snapshot_load(snapshot=analysis.snapshot)
    t1 = time.perf_counter()
    try:
        # A whole manifest's budgets are part of the question, as they were of its run.
        if analysis.is_workload:
            cluster, _ = with_budgets(cluster, manifest_budgets(analysis.pod["objects"]))
        found = advise(
            cluster,
            question_of(analysis, cluster),
            priority_classes=analysis.priority_classes or (),
            scheduler_config=analysis.scheduler.effective,
            budget_seconds=float(settings.PREEMPTLAB_ANALYSIS_SECONDS),
            on_run=_Progress(advice.pk),
        )
    except InvalidInput as e:
        return advice_fail(advice_id=advice.pk, error=f"The what-if is invalid: {e}")
    Advice.objects.filter(pk=advice.pk).exclude(status=AnalysisStatus.DONE).update(
        status=AnalysisStatus.DONE,
        error="",
        answer=found.to_dict(),
        runs_done=found.runs,
        stopped_early=found.stopped_early,
        finished_at=timezone.now(),
        load_seconds=round(0.0 if cached else t1 - t0, 4),
        engine_seconds=round(time.perf_counter() - t1, 4),
        engine_version=ENGINE_VERSION,
        **lease_release_fields(),
    )
    return Advice.objects.defer("answer").get(pk=advice.pk)


def _requeue_stopped(*, advice_id: int, task_id: str) -> Advice:
    """The worker running it is shutting down: queued again for the next worker."""
    Advice.objects.filter(
        pk=advice_id, status=AnalysisStatus.RUNNING, lease_task_id=task_id[:64]
    ).update(
        status=AnalysisStatus.QUEUED,
        started_at=None,
        enqueued_at=timezone.now(),
        **lease_release_fields(),
    )
    try:
        advice_publish(advice_id)
    except BrokerUnavailable:
        log.warning("advice %s stays queued for the reconciler", advice_id)
    return Advice.objects.defer("answer").get(pk=advice_id)


def advice_fail(*, advice_id: int, error: str) -> Advice:
    """Records how the advice failed (a finished one keeps its answer)."""
    Advice.objects.filter(pk=advice_id).exclude(status=AnalysisStatus.DONE).update(
        status=AnalysisStatus.FAILED,
        error=error[:4000],
        finished_at=timezone.now(),
        engine_version=ENGINE_VERSION,
        **lease_release_fields(),
    )
    return Advice.objects.defer("answer").get(pk=advice_id)
