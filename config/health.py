"""/healthz: is the database reachable, is the broker reachable."""

from django.db import connection
from django.http import HttpRequest, JsonResponse

from config.celery import app as celery_app


def _database_ok() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True, connection.vendor
    except Exception as exc:  # any failure means "not reachable"; say which
        return False, f"{type(exc).__name__}: {exc}"


def _broker_ok() -> tuple[bool, str]:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            return True, conn.transport_cls if isinstance(conn.transport_cls, str) else "ok"
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"


def healthz(request: HttpRequest) -> JsonResponse:
    db_ok, db_detail = _database_ok()
    broker_ok, broker_detail = _broker_ok()
    healthy = db_ok and broker_ok
    body = {
        "status": "ok" if healthy else "unavailable",
        "database": {"ok": db_ok, "detail": db_detail},
        "broker": {"ok": broker_ok, "detail": broker_detail},
    }
    return JsonResponse(body, status=200 if healthy else 503)
