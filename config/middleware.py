"""Every page and API call needs a login, except the few that are public by design;
and a dependency that is down answers 503 with what to do, never 500."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.views import redirect_to_login
from django.core.signals import got_request_exception
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

from config.faults import DATABASE_UNAVAILABLE, BrokerUnavailable, is_database_fault

log = logging.getLogger(__name__)

# Prefixes that answer without a session: the login page itself, the health
# check, static files, share links (they carry their own token) and the API,
# which authenticates (session or token) and answers 401/403 on its own.
PUBLIC_PREFIXES = ("/accounts/login/", "/healthz", "/static/", "/s/", "/api/")
# The API's docs are pages people open in a browser, not API calls: a visitor
# who is not logged in goes to the login page and back, not to a bare 403.
LOGIN_PAGES_UNDER_API = ("/api/docs/",)

# Seconds a client is asked to wait before trying again.
RETRY_AFTER = 5


class LoginRequiredMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        public = request.path.startswith(PUBLIC_PREFIXES) and not request.path.startswith(
            LOGIN_PAGES_UNDER_API
        )
        if not request.user.is_authenticated and not public:
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return self.get_response(request)


def unavailable_response(request: HttpRequest, message: str) -> HttpResponse:
    """503 with ``message``: JSON for the API, otherwise a plain page that needs no database
    (rendered without the request, so no session or user is looked up)."""
    if request.path.startswith("/api/") or "application/json" in request.headers.get("Accept", ""):
        response: HttpResponse = JsonResponse({"detail": message}, status=503)
    else:
        html = render_to_string("503.html", {"message": message, "user": AnonymousUser()})
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


def _fault_message(exc: BaseException | None) -> str | None:
    if is_database_fault(exc):
        return DATABASE_UNAVAILABLE
    if isinstance(exc, BrokerUnavailable):
        return exc.message
    return None


class DependencyFaultMiddleware:
    """The database or the broker down: 503 and a sentence, never a 500.

    Outermost but one (after SecurityMiddleware). A fault in a view reaches
    process_exception. A fault in another middleware (the session or the user
    looked up before the view, the session saved after it) has already been
    turned into a 500 by Django's handler by the time it reaches us; the
    got_request_exception receiver below marks the request, and the 500 is
    replaced here.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        message = getattr(request, "_dependency_fault", None)
        if message and response.status_code >= 500:
            return unavailable_response(request, message)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        message = _fault_message(exception)
        if message is None:
            return None
        log.warning("%s %s: %s", request.method, request.path, type(exception).__name__)
        return unavailable_response(request, message)


def _mark_fault(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    message = _fault_message(sys.exc_info()[1])
    if request is not None and message:
        request._dependency_fault = message  # type: ignore[attr-defined]


got_request_exception.connect(_mark_fault, dispatch_uid="preemptlab-dependency-fault")


class ApiNotFoundMiddleware:
    """A URL under /api/ that matches no route (``/api/snapshots/-1/``) answers JSON like
    every other API error when the client asks for something else than HTML (a script:
    ``Accept: application/json`` or ``*/*``); a browser, or a client that says nothing,
    gets the product's 404 page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        accept = request.headers.get("Accept", "")
        if (
            response.status_code in (404, 405)
            and request.path.startswith("/api/")
            and accept
            and "text/html" not in accept
            and "text/html" in response.get("Content-Type", "")
        ):
            detail = "Not found." if response.status_code == 404 else "Method not allowed."
            return JsonResponse({"detail": detail}, status=response.status_code)
        return response
