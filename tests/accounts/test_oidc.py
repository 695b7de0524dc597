"""Sign-in with OpenID Connect against a stand-in provider: a real HTTP server on
localhost with discovery, authorize, token (an RS256 ID token), JWKS and userinfo."""

from __future__ import annotations

import importlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from django.contrib.auth.models import Group
from django.urls import clear_url_caches

import config.urls
from accounts import oidc
from accounts.models import OidcGroup, OidcIdentity

PORT = 8921
ISSUER = f"http://127.0.0.1:{PORT}"
CLIENT_ID = "preemptlab"
CLIENT_SECRET = "s3cret-of-the-client"


class Provider:
    """What the stand-in provider signs and says: the next user's claims."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.signing_key: Any = self.key
        self.claims: dict[str, Any] = {}
        self.codes: dict[str, dict[str, str]] = {}
        self.nonce_override: str | None = None

    def id_token(self, nonce: str) -> str:
        now = int(time.time())
        payload = {
            "iss": ISSUER,
            "aud": CLIENT_ID,
            "iat": now,
            "exp": now + 300,
            "nonce": self.nonce_override or nonce,
            **self.claims,
        }
        return jwt.encode(payload, self.signing_key, algorithm="RS256", headers={"kid": "k1"})


def _handler(provider: Provider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _json(self, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            url = urlparse(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/.well-known/openid-configuration":
                self._json(
                    {
                        "issuer": ISSUER,
                        "authorization_endpoint": f"{ISSUER}/auth",
                        "token_endpoint": f"{ISSUER}/token",
                        "userinfo_endpoint": f"{ISSUER}/userinfo",
                        "jwks_uri": f"{ISSUER}/keys",
                    }
                )
            elif url.path == "/auth":
                assert query["client_id"] == CLIENT_ID
                code = secrets.token_urlsafe(16)
                provider.codes[code] = {"nonce": query["nonce"]}
                back = (
                    f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}"
                )
                self.send_response(302)
                self.send_header("Location", back)
                self.end_headers()
            elif url.path == "/keys":
                jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(provider.key.public_key()))
                self._json({"keys": [{**jwk, "kid": "k1", "alg": "RS256", "use": "sig"}]})
            elif url.path == "/userinfo":
                assert self.headers["Authorization"].startswith("Bearer ")
                self._json({k: v for k, v in provider.claims.items() if k != "nonce"})
            else:
                self.send_error(404)

        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            if form.get("client_secret") != CLIENT_SECRET or form["code"] not in provider.codes:
                self.send_error(400)
                return
            grant = provider.codes.pop(form["code"])
            self._json(
                {
                    "access_token": secrets.token_urlsafe(16),
                    "token_type": "Bearer",
                    "id_token": provider.id_token(grant["nonce"]),
                }
            )

    return Handler


@pytest.fixture
def provider() -> Iterator[Provider]:
    stand_in = Provider()
    server = ThreadingHTTPServer(("127.0.0.1", PORT), _handler(stand_in))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield stand_in
    server.shutdown()
    server.server_close()


def _reload_urls() -> None:
    importlib.reload(config.urls)
    clear_url_caches()


@pytest.fixture
def oidc_on(settings: Any, provider: Provider) -> Iterator[Provider]:
    settings.OIDC_ISSUER = ISSUER
    settings.OIDC_RP_CLIENT_ID = CLIENT_ID
    settings.OIDC_RP_CLIENT_SECRET = CLIENT_SECRET
    settings.OIDC_PROVIDER_NAME = "Dex"
    settings.OIDC_ENABLED = True
    settings.AUTHENTICATION_BACKENDS = [
        "django.contrib.auth.backends.ModelBackend",
        "accounts.oidc.Backend",
    ]
    oidc._discovery.clear()
    _reload_urls()
    yield provider
    settings.OIDC_ENABLED = False
    _reload_urls()


def _sign_in(client: Any) -> Any:
    """The browser's round trip: the app, the provider's authorize endpoint, the callback."""
    start = client.get("/oidc/authenticate/?next=/snapshots/")
    assert start.status_code == 302
    assert start["Location"].startswith(f"{ISSUER}/auth?")
    to_provider = requests.get(start["Location"], allow_redirects=False, timeout=5)
    assert to_provider.status_code == 302
    back = urlparse(to_provider.headers["Location"])
    assert back.path == "/oidc/callback/"
    return client.get(back.path, dict(parse_qs(back.query)))


@pytest.mark.django_db
def test_a_sign_in_creates_the_user_with_its_team_and_a_second_one_updates_it(client, oidc_on):
    oidc_on.claims = {
        "sub": "CiQwOGE4Njg0Yi1kYjg4",
        "email": "ana@example.com",
        "preferred_username": "ana",
        "groups": ["platform", "sre"],
    }
    response = _sign_in(client)
    assert response.status_code == 302
    assert response["Location"] == "/snapshots/"
    identity = OidcIdentity.objects.get(issuer=ISSUER, subject="CiQwOGE4Njg0Yi1kYjg4")
    user = identity.user
    assert user.username == "ana"
    assert sorted(user.groups.values_list("name", flat=True)) == ["platform", "sre"]
    assert client.get("/snapshots/").status_code == 200

    # A group staff made by hand: the claim neither joins it nor leaves it.
    by_hand = Group.objects.create(name="admins")
    user.groups.add(Group.objects.create(name="reviewers"))
    client.logout()
    oidc_on.claims = {**oidc_on.claims, "groups": ["sre", "capacity", "admins"]}
    assert _sign_in(client).status_code == 302
    user.refresh_from_db()
    assert sorted(user.groups.values_list("name", flat=True)) == ["capacity", "reviewers", "sre"]
    assert not OidcGroup.objects.filter(group=by_hand).exists()
    assert OidcIdentity.objects.count() == 1


@pytest.mark.django_db
def test_users_are_matched_by_sub_not_by_email(client, oidc_on, owner):
    oidc_on.claims = {"sub": "other", "email": owner.email, "preferred_username": "owner"}
    assert _sign_in(client).status_code == 302
    identity = OidcIdentity.objects.get(subject="other")
    assert identity.user != owner
    assert identity.user.username.startswith("owner-")
    # The local account still signs in with its password.
    client.logout()
    response = client.post(
        "/accounts/login/", {"username": "owner", "password": "correct-horse-battery"}
    )
    assert response.status_code == 302


@pytest.mark.django_db
def test_a_wrong_signature_is_refused_without_a_500(client, oidc_on):
    oidc_on.claims = {"sub": "mallory", "groups": ["platform"]}
    oidc_on.signing_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    response = _sign_in(client)
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/"
    assert not OidcIdentity.objects.exists()
    assert "failed" in client.get("/accounts/login/").content.decode()


@pytest.mark.django_db
def test_a_bad_nonce_or_state_is_refused_without_a_500(client, oidc_on):
    oidc_on.claims = {"sub": "mallory"}
    oidc_on.nonce_override = "not-the-session-nonce"
    response = _sign_in(client)
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/"
    oidc_on.nonce_override = None
    client.get("/oidc/authenticate/")
    response = client.get("/oidc/callback/", {"code": "x", "state": "forged"})
    assert response.status_code == 400
    assert not OidcIdentity.objects.exists()


@pytest.mark.django_db
def test_the_login_page_offers_the_provider_beside_the_local_form(client, oidc_on):
    page = client.get("/accounts/login/").content.decode()
    assert "Sign in with Dex" in page
    assert 'id="id_password"' in page


@pytest.mark.django_db
def test_off_there_are_no_oidc_urls_and_the_login_page_is_unchanged(client, settings):
    assert settings.OIDC_ENABLED is False
    assert client.get("/oidc/authenticate/").status_code == 404
    assert client.get("/oidc/callback/").status_code == 404
    page = client.get("/accounts/login/").content.decode()
    assert "Sign in with" not in page
    assert 'id="id_password"' in page


def _refused_with(client: Any, words: str) -> None:
    response = _sign_in(client)
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    page = client.get("/accounts/login/").content.decode()
    assert "failed" in page and words in page, page
    assert not OidcIdentity.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("claims", "words"),
    [
        ({"sub": "ana", "preferred_username": "an\x00a"}, "preferred_username claim holds a NUL"),
        ({"sub": "ana\x00", "preferred_username": "ana"}, "sub claim holds a NUL"),
        ({"sub": {"a": 1}, "preferred_username": "ana"}, "sub claim is not a text"),
        ({"sub": 5, "preferred_username": "ana"}, "sub claim is not a text"),
        ({"sub": "ana", "email": ["a@example.com"]}, "email claim is not a text"),
        ({"sub": "x" * 256}, "sub claim is longer than 255 characters"),
        ({"sub": "ana", "preferred_username": "a" * 121}, "longer than 120 characters"),
    ],
)
def test_claims_that_cannot_make_a_user_are_refused_with_the_reason(
    client: Any, oidc_on: Provider, claims: dict[str, Any], words: str
) -> None:
    oidc_on.claims = claims
    _refused_with(client, words)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["\uff4f\uff57\uff4e\uff45\uff52", "OWNER", "Owner"])
def test_a_username_that_folds_to_an_existing_one_gets_a_suffix(
    client: Any, oidc_on: Provider, owner: Any, name: str
) -> None:
    oidc_on.claims = {"sub": "folded", "preferred_username": name}
    response = _sign_in(client)
    assert response.status_code == 302 and response["Location"] == "/snapshots/"
    user = OidcIdentity.objects.get(subject="folded").user
    assert user != owner and user.username.lower().startswith("owner-"), user.username
    owner.refresh_from_db()
    assert owner.username == "owner"


@pytest.mark.django_db
def test_only_group_names_matching_the_pattern_become_teams(
    client: Any, oidc_on: Provider, settings: Any
) -> None:
    oidc_on.claims = {
        "sub": "ana",
        "preferred_username": "ana",
        "groups": [{"a": 1}, 5, None, "platform", "bad\x00name", "x" * 151, "<b>sre</b>"],
    }
    assert _sign_in(client)["Location"] == "/snapshots/"
    user = OidcIdentity.objects.get(subject="ana").user
    assert list(user.groups.values_list("name", flat=True)) == ["platform"]
    assert sorted(Group.objects.values_list("name", flat=True)) == ["platform"]
    # The pattern is a setting: a narrower one leaves "platform" out at the next sign-in.
    settings.OIDC_GROUP_PATTERN = r"team-[a-z]+"
    client.logout()
    oidc_on.claims = {**oidc_on.claims, "groups": ["platform", "team-sre"]}
    assert _sign_in(client)["Location"] == "/snapshots/"
    assert list(user.groups.values_list("name", flat=True)) == ["team-sre"]
