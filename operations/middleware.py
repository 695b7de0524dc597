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

from operations.faults import DATABASE_UNAVAILABLE, BrokerUnavailable, is_database_fault
from operations.incidents import record_incident
from operations.input_limits import body_too_large

log = logging.getLogger(__name__)

# Prefixes that answer without a session: the login page itself and the OpenID Connect
# sign-in's start and callback (404 when it is off), the health and readiness checks,
# static files, share links (they carry their own token) and the API, which
# authenticates (session or token) and answers 401/403 on its own, as /metrics does
# (a bearer token).
PUBLIC_PREFIXES = (
    "/accounts/login/",
    "/healthz",
    "/readyz",
    "/oidc/",
    "/static/",
    "/s/",
    "/api/",
    "/favicon.ico",
    "/metrics",
)
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
    elif request is not None:
        # A defect: the 500 page and the API's JSON show this reference, the log the rest.
        reference = record_incident("%s %s", request.method, request.path)
        request._incident = reference  # type: ignore[attr-defined]


def incident_of(request: HttpRequest) -> str:
    return str(getattr(request, "_incident", "") or "")


got_request_exception.connect(_mark_fault, dispatch_uid="preemptlab-dependency-fault")


class ApiJsonErrorsMiddleware:
    """Every error under /api/ answers JSON, ``{"detail": ...}``, like DRF's own: a URL
    that matches no route (``/api/snapshots/-1/``), a method the route lacks, a body
    Django refuses before DRF sees it (400), a defect (500, with the reference the log
    has). Unless the client asks for HTML (a browser): it gets the product's page. The
    API's docs are pages, left alone."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code >= 400
            and request.path.startswith("/api/")
            and not request.path.startswith(LOGIN_PAGES_UNDER_API)
            and "text/html" not in request.headers.get("Accept", "")
            and "text/html" in response.get("Content-Type", "")
        ):
            body: dict[str, str] = {"detail": _API_ERRORS.get(response.status_code, "")}
            if not body["detail"]:
                body["detail"] = f"The request failed ({response.status_code})."
            reference = incident_of(request)
            if reference:
                body["reference"] = reference
            json_response = JsonResponse(body, status=response.status_code)
            for header in ("Retry-After", "Allow"):
                if header in response:
                    json_response[header] = response[header]
            return json_response
        return response


_API_ERRORS = {
    400: "The request could not be read (malformed or too large).",
    403: "Forbidden (a session request needs its CSRF token; a script uses a token).",
    404: "Not found.",
    405: "Method not allowed.",
    500: "Something went wrong on our side; nothing you sent was half-stored. Give the "
    "reference to whoever runs preemptlab.",
}


# Every page loads only its own scripts, styles and images: no inline script, no
# eval (htmx is used without hx-on or js: values), nothing from elsewhere.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
# A share link is a bearer token in the address: its pages are never indexed, never
# cached, and never sent on as a Referer to a site they link to.
SHARE_PREFIX = "/s/"
SHARE_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
    "Cache-Control": "no-store",
}


class SecurityHeadersMiddleware:
    """The Content-Security-Policy of every response, and the share pages' headers on
    the share page and every subpage under it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        if request.path.startswith(SHARE_PREFIX):
            for header, value in SHARE_HEADERS.items():
                response[header] = value
        return response


class SubmissionBodyMiddleware:
    """A what-if's request body beyond PREEMPTLAB_SUBMISSION_MAX_BYTES is refused (400)
    before the CSRF check or DRF read it: Django's DATA_UPLOAD_MAX_MEMORY_SIZE is one
    number for every route, and the snapshot upload must keep taking large bodies.
    The views that take a what-if carry operations.input_limits.submission_body."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        view_class = getattr(view_func, "view_class", None)
        marked = getattr(view_func, "submission_body", False) or getattr(
            view_class, "submission_body", False
        )
        if not marked or request.method != "POST":
            return None
        message = body_too_large(request)
        if message is None:
            return None
        if request.path.startswith("/api/"):
            return JsonResponse({"non_field_errors": [message]}, status=400)
        html = render_to_string("400.html", {"message": message, "user": AnonymousUser()})
        return HttpResponse(html, status=400)
