"""Probes by what they mean, so that one part down never takes the others with it.

/healthz (liveness): this process serves requests. It asks nothing of the database or
the broker: an outage of either would otherwise restart every web pod at once, and a
restart mends neither.
/readyz (readiness): this pod can answer requests, which needs its database. The broker
and the workers are reported, never decisive: with the workers down the pages, the API
and /metrics (where the alert about the workers is scraped) keep serving.
/readyz?verbose: every part with its state, and which of them decides.

It answers anyone, so it says which part is down and nothing more: the exception
(hosts, ports, user names) goes to the log, not to the caller.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import connection
from django.http import HttpRequest, JsonResponse

from config.celery import app as celery_app

log = logging.getLogger(__name__)

Check = tuple[bool, str]


def _database_ok() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True, "reachable"
    except Exception as exc:  # any failure means "not reachable"
        log.warning("readyz: database unreachable: %s", exc)
        connection.close()
        return False, "unreachable"


def _broker_ok() -> Check:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return True, "reachable"
    except Exception as exc:
        log.warning("readyz: broker unreachable: %s", exc)
        return False, "unreachable"


def _worker_ok() -> Check:
    from operations.heartbeat import worker_seen

    try:
        return (True, "seen") if worker_seen() else (False, "not seen")
    except Exception as exc:
        log.warning("readyz: worker heartbeats unreadable: %s", exc)
        connection.close()
        return False, "unknown"


# What a web pod's readiness needs (decides the status), and what it only reports.
DECIDING: dict[str, Callable[[], Check]] = {"database": _database_ok}
REPORTED: dict[str, Callable[[], Check]] = {"broker": _broker_ok, "worker": _worker_ok}


def _answer(deciding: dict[str, Check], reported: dict[str, Check]) -> JsonResponse:
    ready = all(ok for ok, _ in deciding.values())
    checks = {**deciding, **reported}
    body: dict[str, object] = {
        "status": "ok" if ready else "unavailable",
        "down": [name for name, (ok, _) in checks.items() if not ok],
    }
    body |= {
        name: {"ok": ok, "detail": detail, "decides": name in deciding}
        for name, (ok, detail) in checks.items()
    }
    response = JsonResponse(body, status=200 if ready else 503)
    response["Cache-Control"] = "no-store"
    return response


def readyz(request: HttpRequest) -> JsonResponse:
    """Ready for traffic: the database answers. With ``?verbose`` the broker and the
    workers (a worker beat within PREEMPTLAB_WORKER_SEEN_SECONDS) are asked and shown
    too, beside it; they never turn the answer into 503."""
    deciding = {name: check() for name, check in DECIDING.items()}
    verbose = "verbose" in request.GET
    reported = {name: check() for name, check in REPORTED.items()} if verbose else {}
    return _answer(deciding, reported)


def healthz(request: HttpRequest) -> JsonResponse:
    """Alive: this process answers. Nothing else is asked."""
    response = JsonResponse({"status": "ok"})
    response["Cache-Control"] = "no-store"
    return response
