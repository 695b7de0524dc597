"""Services enqueue their work by task name (operations.faults.publish), never by
importing the tasks module that imports them: every name they send resolves to the task
registered under it, in a process that has imported no tasks module yet."""

from __future__ import annotations

import subprocess
import sys
from unittest import mock

import pytest

from advice.services import ADVICE_RUN_TASK
from clusters.constants import SNAPSHOT_INGEST_TASK
from connected.alerts import ALERT_SEND_TASK, SNAPSHOT_FOLLOWUP_TASK
from connected.schedule import TASK_NAME as CLUSTER_SNAPSHOT_TASK
from operations.faults import BrokerUnavailable, publish, task_named
from planning.first_in_line import FIRST_IN_LINE_RUN_TASK
from scheduling.constants import ANALYSIS_RUN_TASK

ENQUEUED_BY_NAME = {
    ANALYSIS_RUN_TASK: "scheduling.tasks.analysis_run_task",
    SNAPSHOT_INGEST_TASK: "clusters.tasks.snapshot_ingest_task",
    CLUSTER_SNAPSHOT_TASK: "connected.tasks.cluster_snapshot_task",
    ALERT_SEND_TASK: "connected.history.tasks.alert_send_task",
    SNAPSHOT_FOLLOWUP_TASK: "connected.history.tasks.snapshot_followup_task",
    ADVICE_RUN_TASK: "advice.tasks.advice_run_task",
    FIRST_IN_LINE_RUN_TASK: "planning.tasks.first_in_line_run_task",
}


@pytest.mark.parametrize("name", sorted(ENQUEUED_BY_NAME))
def test_each_name_is_the_task_of_that_module(name):
    module, _, attribute = ENQUEUED_BY_NAME[name].rpartition(".")
    task = getattr(__import__(module, fromlist=[attribute]), attribute)
    assert task_named(name) is task._get_current_object()
    assert task.name == name


def test_a_fresh_process_finds_every_task_by_name():
    # The web process imports no tasks module at start: the first look-up has Celery's
    # loader import them all, as a worker does.
    names = sorted(ENQUEUED_BY_NAME)
    code = (
        "import sys, django; django.setup()\n"
        "assert 'scheduling.tasks' not in sys.modules\n"
        "from operations.faults import task_named\n"
        f"print(sorted(task_named(n).name for n in {names!r}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == repr(names)


def test_publish_sends_through_the_task_s_own_delay():
    with mock.patch("scheduling.tasks.analysis_run_task.delay") as delay:
        publish(ANALYSIS_RUN_TASK, 7)
    delay.assert_called_once_with(7)


def test_a_broker_that_cannot_be_reached_is_broker_unavailable():
    with (
        mock.patch("scheduling.tasks.analysis_run_task.delay", side_effect=ConnectionError()),
        pytest.raises(BrokerUnavailable),
    ):
        publish(ANALYSIS_RUN_TASK, 7)


def test_an_unknown_name_is_an_error_not_a_silent_send():
    with pytest.raises(KeyError):
        task_named("scheduling.no_such_task")
