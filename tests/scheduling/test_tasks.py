"""The Celery task: takes an id, calls the service, and records unexpected failures."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis
from scheduling.tasks import analysis_run_task

pytestmark = pytest.mark.django_db


def test_it_runs_the_analysis(demo_snapshot: Any, cat3_pod: dict[str, Any]) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    outcome = analysis_run_task.apply(args=[analysis.pk])
    assert outcome.result == "done"
    analysis.refresh_from_db()
    assert analysis.status == AnalysisStatus.DONE and analysis.result["outcome"] == "preempts"


def test_it_records_an_unexpected_failure(demo_snapshot: Any, cat3_pod: dict[str, Any]) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    with mock.patch("scheduling.services.pod.analyze", side_effect=RuntimeError("boom")):
        outcome = analysis_run_task.apply(args=[analysis.pk])
    assert outcome.failed()
    analysis.refresh_from_db()
    assert analysis.status == AnalysisStatus.FAILED
    # The page shows a reference, never the exception's own text (the log has it).
    reference = (outcome.task_id or "")[:8]
    assert f"reference {reference}" in analysis.error
    assert "boom" not in analysis.error and "RuntimeError" not in analysis.error
    assert analysis.finished_at is not None


def test_it_says_when_the_time_limit_stopped_it(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    with mock.patch("scheduling.services.pod.analyze", side_effect=SoftTimeLimitExceeded()):
        analysis_run_task.apply(args=[analysis.pk])
    analysis.refresh_from_db()
    assert analysis.status == AnalysisStatus.FAILED
    assert "time limit" in analysis.error


def test_a_redelivered_task_does_not_run_a_finished_analysis_again(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    analysis_run_task.apply(args=[analysis.pk])
    with mock.patch("scheduling.services.pod.analyze") as engine:
        assert analysis_run_task.apply(args=[analysis.pk]).result == "done"
    assert engine.call_count == 0
    assert Analysis.objects.get(pk=analysis.pk).attempts == 1


def test_it_shrugs_at_a_deleted_analysis(db: Any) -> None:
    assert analysis_run_task.apply(args=[987654]).result == "gone"


def test_a_ranking_task_records_its_unexpected_failure_the_same_way(demo_snapshot: Any) -> None:
    from planning.models import FirstInLineRanking
    from planning.tasks import first_in_line_run_task

    ranking = FirstInLineRanking.objects.create(
        snapshot=demo_snapshot,
        cpu_millis=1000,
        memory_bytes=2**31,
        limit=50,
        status=AnalysisStatus.QUEUED,
    )
    with mock.patch("planning.first_in_line.first_in_line", side_effect=RuntimeError("boom")):
        outcome = first_in_line_run_task.apply(args=[ranking.pk])
    assert outcome.failed()
    ranking.refresh_from_db()
    assert ranking.status == AnalysisStatus.FAILED
    assert f"reference {(outcome.task_id or '')[:8]}" in ranking.error
    assert "boom" not in ranking.error
