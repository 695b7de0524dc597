"""The Celery app: settings come from Django's (CELERY_* names), tasks are autodiscovered."""

import os
import signal

from celery import Celery
from celery.signals import (
    celeryd_after_setup,
    worker_process_init,
    worker_ready,
    worker_shutdown,
    worker_shutting_down,
)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
if os.environ.get("LOG_FORMAT") == "json":
    from operations.logs import json_logging_early

    json_logging_early()

app = Celery("preemptlab")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="preemptlab.ping")
def ping() -> str:
    """A round trip through the broker and the result backend, for health checks and tests."""
    return "pong"


@celeryd_after_setup.connect
def _no_banner_in_json(sender: object = None, instance: object = None, **kwargs: object) -> None:
    """LOG_FORMAT=json: the start-up banner is printed, not logged; leave it out, as
    --quiet does, so every line the worker writes is one JSON object."""
    if os.environ.get("LOG_FORMAT") == "json" and instance is not None:
        instance.quiet = True  # type: ignore[attr-defined]


@worker_ready.connect
def _start_reconciler(**kwargs: object) -> None:
    """Each worker checks the database against the broker (operations/reconciler.py)."""
    from operations.reconciler import reconciler_start

    reconciler_start()


@worker_ready.connect
def _start_heartbeat(sender: object = None, **kwargs: object) -> None:
    """Each worker says it is alive, for /readyz (operations/heartbeat.py)."""
    from operations.heartbeat import heartbeat_start

    heartbeat_start(str(getattr(sender, "hostname", "") or ""))


@worker_shutdown.connect
def _stop_reconciler(**kwargs: object) -> None:
    from operations.heartbeat import heartbeat_stop
    from operations.reconciler import reconciler_stop

    reconciler_stop()
    heartbeat_stop()


# SIGTERM: the running analysis stops at its next budget check (scheduling/running/budgets.py) and
# goes back to the queue, so a shutdown takes seconds, not the rest of the analysis.
# The worker's main process hears it first (solo and threads pools run the analysis
# there); it tells its prefork children with SIGUSR2, which Celery leaves unused in them,
# since a SIGTERM sent to the main process alone never reaches them.
_TELL_CHILDREN = signal.SIGUSR2


def _stop_analyses(signum: int = 0, frame: object = None) -> None:
    from scheduling.running.budgets import worker_stop

    worker_stop()


@worker_shutting_down.connect
def _stop_on_shutdown(**kwargs: object) -> None:
    from billiard.process import active_children

    _stop_analyses()
    for child in active_children():
        if child.pid:
            os.kill(child.pid, _TELL_CHILDREN)


@worker_process_init.connect
def _stop_in_children(**kwargs: object) -> None:
    """A prefork child: stop its analysis on SIGUSR2 from the main process, or on a SIGTERM
    sent to the whole process group (a second SIGTERM ends the child as before)."""

    def on_sigterm(signum: int, frame: object) -> None:
        _stop_analyses()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)

    signal.signal(_TELL_CHILDREN, _stop_analyses)
    signal.signal(signal.SIGTERM, on_sigterm)
