"""What every kind of analysis shares: a row queued with its message (analysis_queue,
analysis_enqueue, the task sent by name), the snapshot's parsed cluster (snapshot_load),
the row claimed, finished or failed, the run's progress, and what a finished or failed
row can do (retry, delete, its manifest). Imports no kind's module: they import it."""

from __future__ import annotations

import copy
import logging
import time
from collections import Counter
from typing import Any

from django.db import transaction
from django.utils import timezone

from clusters.ingest.scrub import scrub_object
from clusters.models import Snapshot
from clusters.parsed import parsed_cluster_fetch, parsed_cluster_store
from clusters.selectors import snapshot_objects
from operations.faults import BrokerUnavailable, publish
from operations.leases import lease_release_fields
from scheduling.analyses.submission import submission_scrub
from scheduling.constants import ANALYSIS_RUN_TASK, AnalysisStatus
from scheduling.engine import ENGINE_VERSION, Cluster, load_cluster
from scheduling.models import Analysis
from scheduling.running import cluster_cache
from scheduling.running.budgets import unfinished_slot
from scheduling.running.cancellation import Cancelled, analysis_cancel
from scheduling.scheduler_config import SchedulerChoice, choice_for

logger = logging.getLogger(__name__)


def analysis_queue(
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
    publish(ANALYSIS_RUN_TASK, analysis_id)


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


def engine_profile(config: dict[str, Any] | None) -> dict[str, Any]:
    """The engine's keyword for a scheduler configuration: none for the default profile,
    so a default run is exactly the run without one."""
    return {} if config is None else {"scheduler_config": config}


def analysis_done(
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


class Progress:
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
    its owner's unfinished work until it has (scheduling/running/cancellation.py)."""
    analysis_cancel(analysis=analysis)


def analysis_manifest(*, analysis: Analysis) -> str:
    """What was submitted, as the YAML to paste into the what-if form again (the what-if's
    own PriorityClasses first)."""
    import yaml

    if analysis.is_take_nodes_away:  # the question, not a manifest
        return yaml.safe_dump(analysis.pod, sort_keys=False)
    objects = list(analysis.priority_classes or [])
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
