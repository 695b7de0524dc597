"""Structured logs (LOG_FORMAT=json): every line one JSON object.

{"time", "level", "logger", "message"}, then what is known cheaply: the request's
id, method, path and status (inside a request, and on gunicorn's access lines),
the Celery task's name and id (inside a task), and the exception's traceback as
"exception". Only these fields are written: a record's other attributes (Django's
request object, gunicorn's header atoms) never are, so no Authorization header,
cookie or query string (an OpenID Connect callback's code) reaches the log.

No Django import at module level: gunicorn.conf.py uses it in gunicorn's master.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

_request: ContextVar[dict[str, str] | None] = ContextVar("log_request", default=None)
# A share link's token is the link's whole secret (/s/<token>/...): never in a log line.
_SHARE_TOKEN = re.compile(r"/s/[^/\s?#\"']+")
REDACTED = "/s/<redacted>"


def redact_share_tokens(text: str) -> str:
    """``text`` with every share link's token replaced: /s/<redacted>/..."""
    return _SHARE_TOKEN.sub(REDACTED, text) if "/s/" in text else text


class RedactShareTokens(logging.Filter):
    """Rewrites a record's message (and its request path) without share tokens: on
    django.request's and django.server's loggers and on every handler of the app's."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, dict):  # gunicorn's access atoms, and %(name)s formats
            record.args = {
                k: redact_share_tokens(v) if isinstance(v, str) else v
                for k, v in record.args.items()
            }
        else:
            message = record.getMessage()
            redacted = redact_share_tokens(message)
            if redacted != message:
                record.msg, record.args = redacted, None
        path = getattr(record, "path", None)
        if isinstance(path, str):
            record.path = redact_share_tokens(path)
        return True


def gunicorn_logger_class() -> type:
    """gunicorn's Logger whose access atoms (request line, path, referer, ...) hold no
    share token, in its text lines and in its JSON ones (the atoms are the record's
    args). Built on demand: gunicorn is not imported by the app."""
    from gunicorn.glogging import Logger

    class RedactingLogger(Logger):  # type: ignore[misc]  # gunicorn is untyped
        def atoms(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return {
                k: redact_share_tokens(v) if isinstance(v, str) else v
                for k, v in super().atoms(*args, **kwargs).items()
            }

    return RedactingLogger


# A request id a client or proxy sent is kept when it looks like one (no log injection).
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class RequestContextMiddleware:
    """Gives every log line of a request its id (X-Request-ID, or a new one), method and
    path, and answers with the id in X-Request-ID."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response
        connect_signals()

    def __call__(self, request: Any) -> Any:
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        # Cleared when the response is closed (request_finished), not on the way out of
        # here: Django logs a 4xx or 5xx answer after the middleware returns it.
        _request.set(
            {"id": request_id, "method": request.method, "path": redact_share_tokens(request.path)}
        )
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response


def _request_finished(**_: Any) -> None:
    _request.set(None)


def connect_signals() -> None:
    from django.core.signals import request_finished

    request_finished.connect(_request_finished, dispatch_uid="operations.logs.request_finished")


def _current_task() -> Any:
    try:
        from celery import current_task
    except ImportError:  # pragma: no cover - celery is a dependency
        return None
    task = current_task
    return task if task and getattr(task.request, "id", None) else None


class ContextFilter(logging.Filter):
    """Adds the request's and the task's fields to a record (read by JsonFormatter)."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = _request.get()
        if request is not None:
            record.request_id = request["id"]
            record.method = request["method"]
            record.path = request["path"]
        task = _current_task()
        if task is not None:
            record.task_name = task.name
            record.task_id = task.request.id
        return True


_FIELDS = ("request_id", "method", "path", "status", "task_name", "task_id")


def _gunicorn_access(record: logging.LogRecord, entry: dict[str, Any]) -> None:
    """gunicorn's access line: its atoms are the record's args; keep method, path (no query
    string), status and duration, never the headers, and say it in words."""
    atoms = record.args if isinstance(record.args, dict) else {}
    entry["method"] = str(atoms.get("m", ""))
    entry["path"] = str(atoms.get("U", ""))
    entry["status"] = int(atoms.get("s", 0) or 0)
    entry["duration_ms"] = round(int(atoms.get("D", 0) or 0) / 1000, 1)
    request_id = atoms.get("{x-request-id}o")
    if request_id and request_id != "-":
        entry["request_id"] = str(request_id)
    entry["message"] = f"{entry['method']} {entry['path']} {entry['status']}"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
        }
        if record.name == "gunicorn.access":
            _gunicorn_access(record, entry)
        else:
            entry["message"] = record.getMessage()
            for field in _FIELDS:
                value = getattr(record, field, None)
                if value is not None:
                    entry[field] = value
            # django.request's 4xx/5xx lines and runserver's lines carry the status.
            status = getattr(record, "status_code", None)
            if isinstance(status, int):
                entry["status"] = status
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def json_logging_early() -> None:
    """A worker warns (as root, say) before Django configures logging: from the start,
    warnings are log records and the root logger writes JSON lines. Django's LOGGING
    replaces this handler with its own once it is set up."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    handler.addFilter(ContextFilter())
    logging.root.handlers = [handler]
    logging.captureWarnings(True)


def gunicorn_logconfig() -> dict[str, Any]:
    """gunicorn's logconfig_dict under LOG_FORMAT=json: its error and access loggers
    write JSON lines to stderr, as the app's own loggers do."""
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "json",
        "filters": ["context", "redact"],
        "stream": "ext://sys.stderr",
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": ContextFilter}, "redact": {"()": RedactShareTokens}},
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"json": handler},
        "root": {"level": "INFO", "handlers": ["json"]},
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": [], "propagate": True},
            "gunicorn.access": {"level": "INFO", "handlers": [], "propagate": True},
        },
    }
