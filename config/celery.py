"""The Celery app: settings come from Django's (CELERY_* names), tasks are autodiscovered."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("preemptlab")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="preemptlab.ping")
def ping() -> str:
    """A round trip through the broker and the result backend, for health checks and tests."""
    return "pong"
