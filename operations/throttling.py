"""Throttling: failed logins per account and per address and account, API calls per token.

Counts live in the "throttle" cache: Redis when REDIS_URL is set (shared by every web
process), this process's memory on the embedded default (one web process). A refused
request answers 429 with Retry-After, on the login page as in the API.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UsernameField
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from rest_framework.throttling import UserRateThrottle

log = logging.getLogger(__name__)


class FailOpenCache:
    """The throttle's counts, read and written so that a cache that is down (Redis
    restarting) lets the request through instead of failing it with a 500: throttling
    guards the work, it is not the work. The log says the counts were not kept."""

    def __init__(self, alias: str = "throttle") -> None:
        self.alias = alias

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return caches[self.alias].get(key, default)
        except Exception:
            log.warning("throttle counts unavailable (cache %r); request let through", self.alias)
            return default

    def set(self, key: str, value: Any, timeout: int | None = None) -> None:
        try:
            caches[self.alias].set(key, value, timeout)
        except Exception:
            log.warning("throttle counts not kept (cache %r)", self.alias)

    def delete(self, key: str) -> None:
        try:
            caches[self.alias].delete(key)
        except Exception:
            log.warning("throttle counts not cleared (cache %r)", self.alias)


class ApiRateThrottle(UserRateThrottle):
    """Per user (a token is one user's), at PREEMPTLAB_API_RATE; anonymous calls are
    refused before they count (every API call needs a login)."""

    scope = "api"

    def get_rate(self) -> str:
        return str(settings.PREEMPTLAB_API_RATE)  # read per request: a setting may change

    @property
    def cache(self) -> Any:  # type: ignore[override]
        return FailOpenCache()


def _key(kind: str, *values: str) -> str:
    # Hashed: a username or an address never appears as a cache key in clear.
    value = "\0".join(values)
    return f"login-failures:{kind}:{hashlib.sha256(value.encode()).hexdigest()[:32]}"


def login_username(raw: object) -> str:
    """The account a login form's username names, folded as the login itself folds it:
    stripped and NFKC-normalised by the form's UsernameField (full-width or
    mathematical-bold ``alice`` is ``alice``), case kept, since ModelBackend looks the
    username up exactly."""
    user_model = get_user_model()
    field = user_model._meta.get_field(user_model.USERNAME_FIELD)
    # The length AuthenticationForm gives the field: beyond it, nothing is folded.
    max_length = getattr(field, "max_length", None) or 254  # as AuthenticationForm
    return str(UsernameField(max_length=max_length).to_python(str(raw or "")))


def _network(address: str, networks: list[str]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
        return any(ip in ipaddress.ip_network(n, strict=False) for n in networks)
    except ValueError:
        return False


def client_address(request: HttpRequest) -> str:
    """The address a request came from: the connection's, unless that is one of the
    PREEMPTLAB_PROXY_ADDRESSES; then the nearest X-Forwarded-For hop that is not a proxy
    of ours (hops further left were written by the client and prove nothing)."""
    remote = str(request.META.get("REMOTE_ADDR") or "unknown")
    proxies = list(settings.PREEMPTLAB_PROXY_ADDRESSES)
    if not _network(remote, proxies):
        return remote
    hops = [h.strip() for h in str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",")]
    for hop in reversed([h for h in hops if h]):
        if not _network(hop, proxies):
            return hop
    return remote


class LoginFailures:
    """Failed logins in a sliding window: per account from anywhere (someone guessing
    one password), and per address and account (the same guessing from one place, with
    a lower limit). Beyond either, every try at that account is refused, the right
    password included, until the window has passed; no count spans accounts, so failures
    at other accounts, from the same address or a proxy shared with it, refuse nobody."""

    def __init__(self, request: HttpRequest) -> None:
        self.cache = FailOpenCache()
        self.window = int(settings.PREEMPTLAB_LOGIN_WINDOW_SECONDS)
        username = login_username(request.POST.get("username"))
        self.limits = [
            (_key("account", username), int(settings.PREEMPTLAB_LOGIN_FAILURES_PER_ACCOUNT)),
            (
                _key("address-account", client_address(request), username),
                int(settings.PREEMPTLAB_LOGIN_FAILURES_PER_ADDRESS),
            ),
        ]

    def _times(self, key: str) -> list[float]:
        now = time.time()
        return [t for t in self.cache.get(key, []) if t > now - self.window]

    def retry_after(self) -> int:
        """Seconds until a try is allowed again; 0 when it is allowed now."""
        waits = []
        for key, limit in self.limits:
            times = self._times(key)
            if len(times) >= limit:
                waits.append(int(times[-limit] + self.window - time.time()) + 1)
        return max(waits, default=0)

    def add(self) -> None:
        for key, _ in self.limits:
            self.cache.set(key, [*self._times(key), time.time()], self.window)

    def forget_account(self) -> None:
        for key, _ in self.limits:
            self.cache.delete(key)


# Both forms that take a password: the app's login page and the admin's.
LOGIN_PATHS = ("/accounts/login/", "/admin/login/")


class LoginThrottleMiddleware:
    """Counts the failed POSTs to a login form and refuses a try beyond the limits,
    before the password is even checked."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST" or request.path not in LOGIN_PATHS:
            return self.get_response(request)
        failures = LoginFailures(request)
        wait = failures.retry_after()
        if wait:
            return _too_many(request, wait)
        response = self.get_response(request)
        if request.user.is_authenticated:
            failures.forget_account()
        else:
            failures.add()
        return response


def _too_many(request: HttpRequest, wait: int) -> HttpResponse:
    minutes = max(1, round(wait / 60))
    response = TemplateResponse(
        request,
        "registration/login.html",
        {
            "form": AuthenticationForm(request),
            "throttled": f"Too many failed logins from here or for this account: try again "
            f"in {minutes} minute{'s' if minutes != 1 else ''}.",
        },
        status=429,
    )
    response["Retry-After"] = str(wait)
    return response.render()


class Busy(Exception):
    """Work the user may submit again shortly (one user's limit reached): 429 with
    Retry-After, JSON for the API, a page otherwise (BusyMiddleware)."""

    retry_after = 30

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BusyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, Busy):
            return None
        response: HttpResponse
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": exception.message}, status=429)
        else:
            page = TemplateResponse(request, "429.html", {"message": exception.message}, status=429)
            response = page.render()
        response["Retry-After"] = str(exception.retry_after)
        return response
