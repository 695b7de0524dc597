"""A worker says it is alive: a thread in its main process writes a row every
PREEMPTLAB_HEARTBEAT_SECONDS, which /metrics (preemptlab_workers_seen) and
/readyz?verbose read (a worker seen within PREEMPTLAB_WORKER_SEEN_SECONDS), and touches
the file PREEMPTLAB_HEARTBEAT_FILE, which the worker's own liveness probe reads
(operations/alive.py): a probe that asks neither the database nor the broker, so that
an outage of either never restarts every worker.

In the database rather than the broker: it works the same on Redis and on the
embedded filesystem broker (which answers no `celery inspect ping`, having no
broadcast), costs /readyz one indexed query instead of a broadcast and a wait,
and every web replica reads the same answer. The thread does not run tasks, so a
worker busy with a long analysis still beats.
"""

from __future__ import annotations

import logging
import socket
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from operations.models import WorkerHeartbeat

log = logging.getLogger(__name__)


def beat(worker: str) -> None:
    WorkerHeartbeat.objects.update_or_create(worker=worker, defaults={"seen_at": timezone.now()})
    # Rows of workers long gone: the table stays as small as the fleet.
    WorkerHeartbeat.objects.filter(seen_at__lt=timezone.now() - timedelta(days=1)).delete()


def worker_seen() -> bool:
    """Has any worker beaten within PREEMPTLAB_WORKER_SEEN_SECONDS?"""
    since = timezone.now() - timedelta(seconds=settings.PREEMPTLAB_WORKER_SEEN_SECONDS)
    return WorkerHeartbeat.objects.filter(seen_at__gte=since).exists()


def touch(path: str) -> None:
    """The probe's file, its time now ("": none kept)."""
    if not path:
        return
    try:
        Path(path).touch()
    except OSError:  # a read-only or missing folder: the probe then fails and says so
        log.warning("heartbeat: could not touch %s", path, exc_info=True)


class HeartbeatThread(threading.Thread):
    def __init__(self, worker: str, interval: float) -> None:
        super().__init__(name="heartbeat", daemon=True)
        self.worker = worker
        self.interval = interval
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            touch(settings.PREEMPTLAB_HEARTBEAT_FILE)
            try:
                close_old_connections()
                beat(self.worker)
            except Exception:  # the database is down: /readyz says so on its own
                log.warning("heartbeat: could not write; trying again shortly", exc_info=True)
                connection.close()
            self.stopping.wait(self.interval)
        connection.close()


_thread: HeartbeatThread | None = None


def heartbeat_start(hostname: str = "", **_: Any) -> None:
    """celery.signals.worker_ready: start beating (once per worker process)."""
    global _thread
    if _thread is not None:
        return
    _thread = HeartbeatThread(
        hostname or socket.gethostname(), float(settings.PREEMPTLAB_HEARTBEAT_SECONDS)
    )
    _thread.start()


def heartbeat_stop(**_: Any) -> None:
    """celery.signals.worker_shutdown: a stopped worker is no longer seen a minute later."""
    global _thread
    if _thread is not None:
        _thread.stopping.set()
        _thread = None
