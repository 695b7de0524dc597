"""/healthz: is the database reachable, is the broker reachable.

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


def healthz(request: HttpRequest) -> JsonResponse:
    db_ok, db_detail = _database_ok()
    broker_ok, broker_detail = _broker_ok()
    healthy = db_ok and broker_ok
    down = [name for name, ok in (("database", db_ok), ("broker", broker_ok)) if not ok]
    body = {
        "status": "ok" if healthy else "unavailable",
        "down": down,
        "database": {"ok": db_ok, "detail": db_detail},
        "broker": {"ok": broker_ok, "detail": broker_detail},
    }
    response = JsonResponse(body, status=200 if healthy else 503)
    response["Cache-Control"] = "no-store"
    return response
