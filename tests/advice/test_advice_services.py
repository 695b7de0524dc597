"""The advice's life cycle as the worker runs it: deleted with its analysis (a running
search stops), queued again when its worker shuts down, searched again for a newer
engine or after a failure; one row per analysis."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from advice import services
from advice.models import Advice
from scheduling.models import Analysis
from scheduling.running.cancellation import Cancelled
from tests.planning.conftest import demo_pod, run_pod

pytestmark = pytest.mark.django_db


@pytest.fixture
def preempting(no_broker: Any, demo_snapshot: Any) -> Analysis:
    return run_pod(demo_snapshot, demo_pod("orange", "cat-3"))


def test_a_search_stops_when_its_analysis_is_deleted(
    preempting: Analysis, no_advice_broker: Any
) -> None:
    row = services.advice_request(analysis=preempting)
    progress = services._Progress(row.pk)
    progress(1)  # the row is there: the runs made are written
    assert Advice.objects.get(pk=row.pk).runs_done == 1
    preempting.delete()
    assert not Advice.objects.filter(pk=row.pk).exists()
    progress.last = 0.0
    with pytest.raises(Cancelled):
        progress(2)


def test_a_worker_shutting_down_queues_the_advice_again(
    preempting: Analysis, no_advice_broker: Any
) -> None:
    row = services.advice_request(analysis=preempting)
    no_advice_broker.reset_mock()
    with mock.patch("advice.services.worker_stopping", return_value=True):
        stopped = services.advice_run(advice_id=row.pk, task_id="stopping-worker")
    assert stopped.status == "queued" and stopped.lease_task_id == ""
    assert stopped.answer is None and stopped.attempts == 1
    no_advice_broker.assert_called_once_with(row.pk)


def test_failed_or_outdated_advice_is_searched_again_and_done_advice_is_kept(
    preempting: Analysis, no_advice_broker: Any
) -> None:
    row = services.advice_request(analysis=preempting)
    services.advice_run(advice_id=row.pk)
    done = services.advice_request(analysis=preempting)
    assert done.status == "done" and done.attempts == 1  # read back, not searched again
    Advice.objects.filter(pk=row.pk).update(engine_version="an older engine")
    again = services.advice_request(analysis=preempting)
    assert again.status == "queued"
    services.advice_fail(advice_id=row.pk, error="boom")
    assert services.advice_request(analysis=preempting).status == "queued"
    assert Advice.objects.filter(analysis=preempting).count() == 1


def test_an_invalid_question_fails_in_words(preempting: Analysis, no_advice_broker: Any) -> None:
    row = services.advice_request(analysis=preempting)
    pod = dict(preempting.pod)
    pod["spec"] = {**pod["spec"], "priorityClassName": "no-such-class"}
    Analysis.objects.filter(pk=preempting.pk).update(pod=pod)
    failed = services.advice_run(advice_id=row.pk)
    assert failed.status == "failed"
    assert failed.error.startswith("The what-if is invalid: ") and "no-such-class" in failed.error


def test_an_unexpected_failure_is_recorded_as_the_advices_not_the_analysis(
    preempting: Analysis, no_advice_broker: Any
) -> None:
    from advice.tasks import advice_run_task

    row = services.advice_request(analysis=preempting)
    with mock.patch("advice.services.advise", side_effect=RuntimeError("boom")):
        outcome = advice_run_task.apply(args=[row.pk])
    assert outcome.failed()
    failed = Advice.objects.get(pk=row.pk)
    assert failed.status == "failed"
    assert failed.error.startswith("The advice stopped unexpectedly (reference ")
    assert "boom" not in failed.error
    assert Analysis.objects.get(pk=preempting.pk).status == "done"  # the answer stays
