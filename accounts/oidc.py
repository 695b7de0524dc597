"""Sign-in with OpenID Connect (mozilla-django-oidc), on when OIDC_ISSUER and
OIDC_CLIENT_ID are set (config/settings.py).

- Endpoints: the explicit settings, else the issuer's discovery document, fetched
  once per process at the first sign-in (OIDC_TIMEOUT seconds at most).
- Who: a user is found by the (issuer, `sub`) pair (accounts.models.OidcIdentity),
  never by email address; a new one gets the provider's preferred_username (or the
  email's local part), suffixed when a local account already holds it.
- Teams: the groups claim (OIDC_GROUPS_CLAIM) is the user's teams. Each named group
  is created if missing and marked as the provider's (OidcGroup); the user's
  memberships of the provider's groups are set to exactly the claim's. Groups made
  by hand are never joined, left or taken over by a claim (a claim naming one is
  logged and skipped): what staff grant stays theirs to grant.
- Claims are checked before anything is stored (``checked_claims``): `sub`, `email`
  and `preferred_username` strings without NUL and within their columns; the
  username is folded (NFKC, as Django stores it; case ignored) before it is compared
  with existing ones; groups are strings matching OIDC_GROUP_PATTERN, others are
  left out (counted in the log, never written there).
- A token that fails verification (signature, nonce, audience, issuer), claims that
  are refused, or a provider that cannot be reached send the browser back to the
  login page with the reason; a callback whose state is unknown answers 400.
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any

import jwt
import requests
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import import_from_settings
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from accounts.models import OidcGroup, OidcIdentity

log = logging.getLogger(__name__)

# Our setting -> the discovery document's field.
_DISCOVERED = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}
_discovery: dict[str, dict[str, Any]] = {}


class ProviderUnavailable(Exception):
    """The issuer's discovery document could not be read."""


def discovery(issuer: str) -> dict[str, Any]:
    """<issuer>/.well-known/openid-configuration, once per process and issuer."""
    if issuer not in _discovery:
        url = f"{issuer}/.well-known/openid-configuration"
        try:
            response = requests.get(url, timeout=settings.OIDC_TIMEOUT)
            response.raise_for_status()
            document = response.json()
        except (requests.RequestException, ValueError) as exc:
            raise ProviderUnavailable(f"{url}: {exc}") from exc
        if document.get("issuer", "").rstrip("/") != issuer:
            raise ProviderUnavailable(f"{url} names another issuer: {document.get('issuer')!r}")
        _discovery[issuer] = document
    return _discovery[issuer]


def oidc_setting(attr: str, *args: Any) -> Any:
    """mozilla-django-oidc's settings, the endpoints filled from discovery when unset."""
    if attr == "OIDC_TIMEOUT":
        return settings.OIDC_TIMEOUT
    value = import_from_settings(attr, *args)
    if attr in _DISCOVERED and not value and settings.OIDC_ISSUER:
        value = discovery(settings.OIDC_ISSUER).get(_DISCOVERED[attr], "")
    return value


class ClaimsRefused(SuspiciousOperation):
    """The provider's claims cannot make a user here: why, shown on the login page."""


# The most each claim may hold: `sub` as OpenID Connect Core bounds it (255 ASCII
# characters), the email as the user's column, the username leaving room for a suffix.
_BOUNDS = {"sub": 255, "email": 254, "preferred_username": 120}


def checked_claims(claims: dict[str, Any]) -> dict[str, Any]:
    """``claims`` with `sub`, `email` and `preferred_username` checked: strings, no NUL,
    within their bounds (`sub` required); ClaimsRefused saying which otherwise."""
    for name, most in _BOUNDS.items():
        value = claims.get(name)
        if value is None or (value == "" and name != "sub"):
            continue
        if not isinstance(value, str) or not value:
            raise ClaimsRefused(f"The provider's {name} claim is not a text.")
        if "\x00" in value:
            raise ClaimsRefused(f"The provider's {name} claim holds a NUL character.")
        if len(value) > most:
            raise ClaimsRefused(f"The provider's {name} claim is longer than {most} characters.")
    if not claims.get("sub"):
        raise ClaimsRefused("The provider's ID token has no sub claim.")
    return claims


def _username(claims: dict[str, Any]) -> str:
    """The provider's name for the user, folded as Django folds it when stored (NFKC),
    suffixed when an account holds it already, case aside ("Ana" and "ana" collide)."""
    User = get_user_model()
    email = claims.get("email") or ""
    wanted = str(claims.get("preferred_username") or email.split("@")[0])
    wanted = User.normalize_username(wanted)[:120].strip() or "user"
    if not User.objects.filter(username__iexact=wanted).exists():
        return wanted
    digest = hashlib.sha256(f"{settings.OIDC_ISSUER}|{claims['sub']}".encode()).hexdigest()
    return f"{wanted}-{digest[:8]}"


def _claimed_groups(claims: dict[str, Any]) -> list[str]:
    """The claim's team names: strings matching OIDC_GROUP_PATTERN (and Group's 150
    characters); anything else is left out and counted in the log, not quoted."""
    value = claims.get(settings.OIDC_GROUPS_CLAIM) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        value = []
    pattern = re.compile(settings.OIDC_GROUP_PATTERN)
    kept = {
        name
        for name in value
        if isinstance(name, str) and len(name) <= 150 and pattern.fullmatch(name)
    }
    if len(kept) < len(value):
        log.warning(
            "oidc: %d of the %d groups claimed are not team names (OIDC_GROUP_PATTERN); left out",
            len(value) - len(kept),
            len(value),
        )
    return sorted(kept)


def sync_teams(user: Any, claims: dict[str, Any]) -> None:
    """The user's memberships of the provider's groups become exactly the claim's."""
    wanted: list[Group] = []
    for name in _claimed_groups(claims):
        group, created = Group.objects.get_or_create(name=name)
        if created:
            OidcGroup.objects.create(group=group)
        elif not OidcGroup.objects.filter(group=group).exists():
            log.warning("oidc: group %r was made by hand; the claim does not manage it", name)
            continue
        wanted.append(group)
    managed = set(user.groups.filter(oidc__isnull=False))
    user.groups.remove(*(managed - set(wanted)))
    user.groups.add(*(set(wanted) - managed))


class Backend(OIDCAuthenticationBackend):  # type: ignore[misc]  # the library is untyped
    get_settings = staticmethod(oidc_setting)

    def authenticate(self, request: Any, **kwargs: Any) -> Any:
        try:
            return super().authenticate(request, **kwargs)
        except (SuspiciousOperation, requests.RequestException, ProviderUnavailable) as exc:
            log.warning("oidc: sign-in refused: %s", exc)
            return None

    def get_or_create_user(self, access_token: str, id_token: str, payload: Any) -> Any:
        try:
            return super().get_or_create_user(access_token, id_token, payload)
        except ClaimsRefused as exc:
            # Shown on the login page by CallbackView: its words are ours, not the claim's.
            self.request.oidc_refusal = str(exc)
            raise

    def verify_token(self, token: str, **kwargs: Any) -> Any:
        try:
            payload = super().verify_token(token, **kwargs)
        except jwt.exceptions.InvalidSubjectError:
            # PyJWT checks `sub` is a string; the refusal is told as the other claims' are.
            self.request.oidc_refusal = "The provider's sub claim is not a text."
            raise ClaimsRefused(self.request.oidc_refusal) from None
        except jwt.PyJWTError as exc:
            raise SuspiciousOperation(f"The ID token could not be verified ({exc}).") from None
        audience = payload.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if self.OIDC_RP_CLIENT_ID not in audiences:
            raise SuspiciousOperation("The ID token is meant for another client.")
        issuer = settings.OIDC_ISSUER
        if issuer and str(payload.get("iss", "")).rstrip("/") != issuer:
            raise SuspiciousOperation("The ID token comes from another issuer.")
        if not payload.get("sub"):
            raise SuspiciousOperation("The ID token has no sub claim.")
        return payload

    def get_userinfo(self, access_token: str, id_token: str, payload: dict[str, Any]) -> Any:
        """The ID token's claims, completed by the userinfo endpoint when there is one
        (whose `sub` must be the token's)."""
        claims = dict(payload)
        if self.OIDC_OP_USER_ENDPOINT:
            userinfo = super().get_userinfo(access_token, id_token, payload)
            if userinfo.get("sub") != payload["sub"]:
                raise SuspiciousOperation("The userinfo answer is about someone else.")
            claims |= userinfo
        return checked_claims(claims)

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        return bool(checked_claims(claims).get("sub"))

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        return self.UserModel.objects.filter(
            oidc_identity__issuer=settings.OIDC_ISSUER, oidc_identity__subject=claims["sub"]
        )

    @transaction.atomic
    def create_user(self, claims: dict[str, Any]) -> Any:
        user = self.UserModel.objects.create_user(
            _username(claims), email=str(claims.get("email", ""))
        )
        OidcIdentity.objects.create(user=user, issuer=settings.OIDC_ISSUER, subject=claims["sub"])
        return self.update_user(user, claims)

    @transaction.atomic
    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:
        email = str(claims.get("email", ""))
        if email and user.email != email:
            user.email = email
            user.save(update_fields=["email"])
        sync_teams(user, claims)
        return user


class SignInView(OIDCAuthenticationRequestView):  # type: ignore[misc]  # the library is untyped
    """/oidc/authenticate/: to the provider; back to the login page if it cannot be reached."""

    get_settings = staticmethod(oidc_setting)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.unavailable = False
        try:
            super().__init__(*args, **kwargs)
        except ProviderUnavailable as exc:
            log.warning("oidc: provider unavailable: %s", exc)
            self.unavailable = True

    def get(self, request: HttpRequest) -> HttpResponse:
        if self.unavailable:
            messages.error(request, f"{settings.OIDC_PROVIDER_NAME} could not be reached.")
            return HttpResponseRedirect(reverse("login"))
        response: HttpResponse = super().get(request)
        return response


class CallbackView(OIDCAuthenticationCallbackView):  # type: ignore[misc]  # the library is untyped
    """/oidc/callback/: a refused sign-in goes back to the login page, saying so."""

    def login_failure(self) -> HttpResponse:
        why = getattr(self.request, "oidc_refusal", "")
        messages.error(
            self.request,
            f"Sign-in with {settings.OIDC_PROVIDER_NAME} failed."
            + (f" {why} Ask the provider's administrator to correct it." if why else ""),
        )
        response: HttpResponse = super().login_failure()
        return response
