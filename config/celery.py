"""The Celery app: settings come from Django's (CELERY_* names), tasks are autodiscovered."""

import os

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("preemptlab")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="preemptlab.ping")
def ping() -> str:
    """A round trip through the broker and the result backend, for health checks and tests."""
    return "pong"


@worker_ready.connect
def _start_reconciler(**kwargs: object) -> None:
    """Each worker checks the database against the broker (config/reconciler.py)."""
    from config.reconciler import reconciler_start

    reconciler_start()


@worker_shutdown.connect
def _stop_reconciler(**kwargs: object) -> None:
    from config.reconciler import reconciler_stop

    reconciler_stop()
