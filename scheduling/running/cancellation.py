"""Deleting an analysis whose run has started: the row goes at once, the slot does not.

The run holds a worker until it stops, so it keeps counting against its owner's
unfinished work (scheduling/running/budgets.py) as a StoppingRun of who asked it. It stops within a second:
the progress writer that a workload or capacity run calls at every cycle updates the
row at most every half second, and an update that finds no row raises Cancelled,
which ends the run (the same check on every pool, the solo one included, with no
signal to the worker). Whatever the kind, the StoppingRun goes when the run ends; one
whose worker died with it stops counting once no run could still be going (the
analysis budget and a lease later).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from operations.leases import lease_seconds
from scheduling.constants import AnalysisStatus


class Cancelled(Exception):
    """The analysis being run was deleted: stop, store nothing."""


def stopping_window() -> timedelta:
    """How long a deleted run may still be going: its wall-clock budget, then a lease."""
    return timedelta(seconds=float(settings.PREEMPTLAB_ANALYSIS_SECONDS) + lease_seconds())


def stopping_count(*, user: Any) -> int:
    from scheduling.models import StoppingRun

    since = timezone.now() - stopping_window()
    return StoppingRun.objects.filter(owner=user, created__gt=since).count()


def keep_running_slots(*, analyses: QuerySet[Any]) -> None:
    """Before ``analyses`` are deleted, in the caller's transaction: a StoppingRun for
    each one running, counted against who asked it. Their rows are locked, so none
    starts meanwhile."""
    from scheduling.models import StoppingRun

    # Those no run can still be going for count no more: gone, so the table stays small.
    StoppingRun.objects.filter(created__lte=timezone.now() - stopping_window()).delete()
    running = analyses.select_for_update().filter(status=AnalysisStatus.RUNNING)
    StoppingRun.objects.bulk_create(
        StoppingRun(owner_id=by, analysis_id=pk)
        for pk, by in running.values_list("pk", "requested_by_id")
        if by is not None
    )


def analysis_cancel(*, analysis: Any) -> None:
    """Deletes the analysis (and its cycle explanations); a run already going keeps its
    owner's slot until it stops."""
    from scheduling.models import Analysis

    with transaction.atomic():
        keep_running_slots(
            analyses=Analysis.objects.filter(Q(pk=analysis.pk) | Q(parent_id=analysis.pk)),
        )
        analysis.delete()


def run_stopped(*, analysis_id: int) -> None:
    """The run of ``analysis_id`` has ended: a deleted one's slot is free."""
    from scheduling.models import StoppingRun

    StoppingRun.objects.filter(analysis_id=analysis_id).delete()
