"""/healthz (liveness): is the database reachable, is the broker reachable.
/readyz (readiness): those two, and a worker seen within the last minute.

It answers anyone, so it says which dependency is down and nothing more: the
exception (hosts, ports, user names) goes to the log, not to the caller.
"""

from __future__ import annotations

import logging

from django.db import connection
from django.http import HttpRequest, JsonResponse

from config.celery import app as celery_app

log = logging.getLogger(__name__)


def _database_ok() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True, "reachable"
    except Exception as exc:  # any failure means "not reachable"
        log.warning("healthz: database unreachable: %s", exc)
        connection.close()
        return False, "unreachable"


def _broker_ok() -> tuple[bool, str]:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return True, "reachable"
    except Exception as exc:
        log.warning("healthz: broker unreachable: %s", exc)
        return False, "unreachable"


def _worker_ok() -> tuple[bool, str]:
    from operations.heartbeat import worker_seen

    try:
        return (True, "seen") if worker_seen() else (False, "not seen")
    except Exception as exc:
        log.warning("readyz: worker heartbeats unreadable: %s", exc)
        connection.close()
        return False, "unknown"


def _answer(checks: dict[str, tuple[bool, str]]) -> JsonResponse:
    healthy = all(ok for ok, _ in checks.values())
    body: dict[str, object] = {
        "status": "ok" if healthy else "unavailable",
        "down": [name for name, (ok, _) in checks.items() if not ok],
    }
    body |= {name: {"ok": ok, "detail": detail} for name, (ok, detail) in checks.items()}
    response = JsonResponse(body, status=200 if healthy else 503)
    response["Cache-Control"] = "no-store"
    return response


def readyz(request: HttpRequest) -> JsonResponse:
    """Ready for traffic: the database and the broker answer, and a worker beat within
    PREEMPTLAB_WORKER_SEEN_SECONDS (a what-if would otherwise wait for nobody)."""
    return _answer({"database": _database_ok(), "broker": _broker_ok(), "worker": _worker_ok()})


def healthz(request: HttpRequest) -> JsonResponse:
    return _answer({"database": _database_ok(), "broker": _broker_ok()})
