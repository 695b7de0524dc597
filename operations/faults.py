"""Faults of the services the app depends on: the database and the broker.

One place that says which exceptions mean "a dependency is down" (as opposed to
a bug), so the pages, the API and the tasks answer them alike: 503 and retry.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

log = logging.getLogger(__name__)

# What Django raises when the database cannot be reached or the connection broke.
DATABASE_FAULTS: tuple[type[Exception], ...] = (OperationalError, InterfaceError)

DATABASE_UNAVAILABLE = "The database is unavailable; retry shortly."
BROKER_UNAVAILABLE = (
    "The task queue (Redis) is unavailable, so the work was not queued and nothing was "
    "stored; retry shortly."
)


def is_database_fault(exc: BaseException | None) -> bool:
    return isinstance(exc, DATABASE_FAULTS)


def database_retry_countdown(retries: int) -> int:
    """Seconds before a task that lost the database tries again: 2, 4, 8, 16, then 30."""
    return int(min(2 ** (retries + 1), 30))


def database_retry(task: Any, exc: Exception) -> Exception:
    """The Retry a bound task raises after losing the database: its connection is dropped
    (a new one is made next time) and it runs again after a growing pause, at most
    PREEMPTLAB_DATABASE_RETRIES times. Beyond that its lease lapses and the reconciler
    queues it again once the database is back."""
    connection.close()
    retry: Exception = task.retry(
        exc=exc,
        countdown=database_retry_countdown(task.request.retries),
        max_retries=settings.PREEMPTLAB_DATABASE_RETRIES,
    )
    return retry


class BrokerUnavailable(Exception):
    """A message could not be handed to the broker."""

    def __init__(self, message: str = BROKER_UNAVAILABLE) -> None:
        super().__init__(message)
        self.message = message


_IMPORTING = threading.Lock()


def task_named(name: str) -> Any:
    """The registered Celery task called ``name``. Services enqueue by name so that a
    service never imports its app's tasks module (which imports the service to run it):
    the web process has not imported every tasks module, so the first look-up has
    Celery's loader import them (the autodiscovery a worker does when it starts)."""
    app = current_app
    if name not in app.tasks:
        # One thread imports; the others (a threaded web worker's first requests) wait
        # for it rather than find the modules half imported.
        with _IMPORTING:
            if name not in app.tasks:
                app.loader.import_default_modules()
    return app.tasks[name]


def publish(task_name: str, *args: Any) -> None:
    """Sends the task called ``task_name`` with ``args`` to the broker (through the task's
    own ``delay``: eager mode and a test's patched ``delay`` apply); BrokerUnavailable
    when it cannot be reached."""
    task = task_named(task_name)
    try:
        task.delay(*args)
    except Exception as exc:  # kombu and redis raise several kinds; all mean "not sent"
        log.warning("could not send %s%r to the broker: %s", task_name, args, type(exc).__name__)
        raise BrokerUnavailable() from exc
