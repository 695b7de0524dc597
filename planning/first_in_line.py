"""First in line as stored work: asked by the web process, ranked by a worker, kept.

The web process never ranks (one run of probe pods per priority level takes seconds on a
large cluster and would hold a web worker meanwhile). ``first_in_line_request`` finds the
ranking stored for (snapshot, probe size, limit), or queues it under the user's limit of
unfinished work; a Celery task (planning/tasks.py) runs ``first_in_line_run``, which
claims the row as an analysis is claimed (a lease the worker renews; the reconciler
queues the row again when a worker dies) and stores the answer. The answer is kept for
that question until the snapshot is deleted, so asking again reads it back.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from clusters.models import Snapshot
from operations.faults import BrokerUnavailable, publish
from operations.leases import lease_heartbeat, lease_release_fields
from operations.recent import Recent
from planning.models import FirstInLineRanking
from planning.services import SnapshotNotReady
from scheduling.constants import AnalysisStatus
from scheduling.engine import ENGINE_VERSION, InvalidInput
from scheduling.engine.plan.first_in_line import FirstInLine, first_in_line
from scheduling.running.budgets import unfinished_slot
from scheduling.scheduler_config import snapshot_choice
from scheduling.services import snapshot_load

log = logging.getLogger(__name__)

# The Celery task that ranks a snapshot: enqueued by this name (operations.faults.publish),
# planning.tasks registers under it.
FIRST_IN_LINE_RUN_TASK = "planning.first_in_line_run"

# Stored rankings this process read back lately, by (row, when it finished): a page of
# the table, the next page and the API ask for the same one again and again.
_lines: Recent[tuple[int, str], FirstInLine] = Recent(8)


# The columns that say how far a ranking is (all but the answer).
_STATE = ["status", "error", "attempts", "runs_done", "runs_total", "finished_at", "engine_version"]


def first_in_line_request(
    *,
    snapshot: Snapshot,
    cpu_millis: int,
    memory_bytes: int,
    limit: int,
    retry: bool = False,
    requested_by: Any = None,
    by_the_cluster: bool = False,
) -> FirstInLineRanking:
    """The ranking of a ready snapshot for this probe size and limit: stored (done, or
    queued or running), or queued now. Its ``answer`` column is left in the database
    (``ranking_line`` reads it). ``retry``: a failed one is queued again.

    TooManyUnfinished (429) when a new ranking would exceed the user's unfinished work;
    BrokerUnavailable (503) when the message cannot be sent (nothing is stored then).
    ``requested_by``: who asks (None: the snapshot's owner); ``by_the_cluster``: a
    connected cluster's read queues it, and it counts against no user."""
    asker = None if by_the_cluster else (requested_by or snapshot.owner)
    if not snapshot.is_ready:
        raise SnapshotNotReady(snapshot)
    key = {
        "snapshot": snapshot,
        "cpu_millis": cpu_millis,
        "memory_bytes": memory_bytes,
        "limit": limit,
    }
    stored = FirstInLineRanking.objects.defer("answer").filter(**key).first()
    if stored is not None:
        # An answer of another engine version may differ: ranked again, as on a first ask.
        outdated = stored.is_done and stored.engine_version != ENGINE_VERSION
        if outdated or (retry and stored.is_failed):
            return _requeue(stored, user=asker)
        return stored
    try:
        # Counted and written in one step, so parallel requests never pass the limit.
        with unfinished_slot(user=asker), transaction.atomic():
            ranking = FirstInLineRanking.objects.create(
                **key, status=AnalysisStatus.QUEUED, enqueued_at=timezone.now(), requested_by=asker
            )
    except IntegrityError:
        # Another request asked the same question in the same instant: one row, one run.
        return FirstInLineRanking.objects.defer("answer").get(**key)
    try:
        first_in_line_publish(ranking.pk)
    except BrokerUnavailable:
        FirstInLineRanking.objects.filter(pk=ranking.pk).delete()
        raise
    # An eager Celery (CELERY_TASK_ALWAYS_EAGER) has ranked it already: say so at once.
    ranking.refresh_from_db(fields=_STATE)
    return ranking


def _requeue(ranking: FirstInLineRanking, *, user: Any) -> FirstInLineRanking:
    """A failed (or outdated) ranking queued again, now ``user``'s to count (None: no
    user's); the reconciler sends the message if the broker cannot take it now."""
    with unfinished_slot(user=user):
        FirstInLineRanking.objects.filter(pk=ranking.pk, status=ranking.status).update(
            requested_by=user,
            status=AnalysisStatus.QUEUED,
            error="",
            started_at=None,
            finished_at=None,
            runs_done=0,
            enqueued_at=timezone.now(),
            **lease_release_fields(),
        )
    try:
        first_in_line_publish(ranking.pk)
    except BrokerUnavailable:
        log.warning("first-in-line ranking %s stays queued for the reconciler", ranking.pk)
    ranking.refresh_from_db(fields=_STATE)
    return ranking


def ranking_line(ranking: FirstInLineRanking) -> FirstInLine | None:
    """The stored answer of a done ranking, read back once per process; None until done."""
    if not ranking.is_done or ranking.finished_at is None:
        return None

    def load() -> FirstInLine:
        answer = FirstInLineRanking.objects.values_list("answer", flat=True).get(pk=ranking.pk)
        assert isinstance(answer, dict)  # a done ranking always stored one
        return FirstInLine.from_dict(answer)

    return _lines.get((ranking.pk, ranking.finished_at.isoformat()), load)[0]


def first_in_line_publish(ranking_id: int) -> None:
    """Sends the message that ranks the row (the reconciler sends it again if lost)."""
    publish(FIRST_IN_LINE_RUN_TASK, ranking_id)


def first_in_line_claim(*, ranking_id: int, task_id: str) -> tuple[FirstInLineRanking, bool]:
    """Locks the row and takes its lease; (the ranking, whether this task should run it).
    Finished rows and rows another live task holds are left alone (analysis_claim's rule)."""
    with transaction.atomic():
        ranking = (
            FirstInLineRanking.objects.select_for_update()
            .select_related("snapshot")
            .defer("answer")
            .get(pk=ranking_id)
        )
        if ranking.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED):
            return ranking, False
        if ranking.status == AnalysisStatus.RUNNING and ranking.lease_taken_by_other(task_id):
            return ranking, False
        ranking.status = AnalysisStatus.RUNNING
        ranking.started_at = timezone.now()
        ranking.attempts += 1
        fields = ranking.lease_take(task_id)
        ranking.save(update_fields=["status", "started_at", "attempts", *fields])
    return ranking, True


class _Progress:
    """on_run: writes the runs done to the row, for the page's "level 2 of 4"."""

    def __init__(self, ranking_id: int) -> None:
        self.ranking_id = ranking_id

    def __call__(self, done: int, total: int) -> None:
        FirstInLineRanking.objects.filter(pk=self.ranking_id).update(
            runs_done=done, runs_total=total
        )


def first_in_line_run(*, ranking_id: int, task_id: str = "") -> FirstInLineRanking:
    """Ranks the apps and stores the answer. Idempotent, as analysis_run is."""
    task_id = task_id or f"direct-{uuid.uuid4().hex}"
    ranking, claimed = first_in_line_claim(ranking_id=ranking_id, task_id=task_id)
    if not claimed:
        return ranking
    with lease_heartbeat(FirstInLineRanking, ranking.pk, task_id):
        cluster, _ = snapshot_load(snapshot=ranking.snapshot)
        started = time.perf_counter()
        try:
            line = first_in_line(
                cluster,
                cpu_millis=ranking.cpu_millis,
                memory_bytes=ranking.memory_bytes,
                limit=ranking.limit,
                on_run=_Progress(ranking.pk),
                scheduler_config=snapshot_choice(ranking.snapshot).effective,
            )
        except InvalidInput as e:
            return first_in_line_fail(ranking_id=ranking.pk, error=f"The probe is invalid: {e}")
        FirstInLineRanking.objects.filter(pk=ranking.pk).exclude(status=AnalysisStatus.DONE).update(
            status=AnalysisStatus.DONE,
            error="",
            answer=line.to_dict(),
            finished_at=timezone.now(),
            engine_seconds=round(time.perf_counter() - started, 4),
            engine_version=ENGINE_VERSION,
            **lease_release_fields(),
        )
    return FirstInLineRanking.objects.defer("answer").get(pk=ranking.pk)


def first_in_line_fail(*, ranking_id: int, error: str) -> FirstInLineRanking:
    """Records how the ranking failed (a finished one keeps its answer)."""
    FirstInLineRanking.objects.filter(pk=ranking_id).exclude(status=AnalysisStatus.DONE).update(
        status=AnalysisStatus.FAILED,
        error=error[:4000],
        finished_at=timezone.now(),
        engine_version=ENGINE_VERSION,
        **lease_release_fields(),
    )
    return FirstInLineRanking.objects.defer("answer").get(pk=ranking_id)
