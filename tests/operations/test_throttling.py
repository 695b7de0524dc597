"""Throttling: wrong passwords then the right one no longer log in, whatever the spelling
of the username, without one address locking out the accounts it did not try; an API token
beyond its rate gets 429 with Retry-After; counts are shared through Redis."""

from __future__ import annotations

import os
import uuid
from typing import Any

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _login(client: Client, username: str, password: str, address: str = "10.0.0.1") -> Any:
    return client.post(
        "/accounts/login/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )


def test_guessing_one_accounts_password_is_stopped_even_at_the_right_one(
    owner: Any, stranger: Any
) -> None:
    client = Client()
    for i in range(10):  # from several addresses: one address alone is stopped sooner
        assert _login(client, "owner", "wrong", f"10.0.0.{10 + i}").status_code == 200
    r = _login(client, "owner", PASSWORD)
    assert r.status_code == 429
    assert int(r["Retry-After"]) > 0
    assert 'id="login-throttled"' in r.content.decode()
    assert "_auth_user_id" not in client.session
    # Another account from another address is not held up by it.
    other = Client()
    r = _login(other, "stranger", PASSWORD, address="10.0.0.2")
    assert r.status_code == 302


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) for c in text)


def _bold(text: str) -> str:  # MATHEMATICAL BOLD SMALL letters
    return "".join(chr(ord(c) - ord("a") + 0x1D41A) for c in text)


@pytest.mark.parametrize("spelling", [_fullwidth("owner"), _bold("o") + "wner", " owner "])
def test_another_spelling_of_a_locked_account_is_locked_too(owner: Any, spelling: str) -> None:
    # The login folds the username (NFKC, stripped): so does the count.
    for i in range(10):
        assert _login(Client(), "owner", "wrong", address=f"10.0.1.{i}").status_code == 200
    assert _login(Client(), spelling, PASSWORD, address="10.0.1.2").status_code == 429


def test_failures_under_several_spellings_count_for_the_one_account(owner: Any) -> None:
    for i, spelling in enumerate(
        [
            "owner",
            _fullwidth("owner"),
            _bold("owner"),
            _fullwidth("o") + "wner",
            _bold("o") + "wner",
        ]
        * 2
    ):
        assert _login(Client(), spelling, "wrong", address=f"10.0.2.{i}").status_code == 200
    assert _login(Client(), "owner", PASSWORD, address="10.0.2.99").status_code == 429


def test_one_address_cannot_lock_an_account_for_everyone_else(owner: Any) -> None:
    for _ in range(5):
        assert _login(Client(), "owner", "wrong", address="10.0.3.1").status_code == 200
    assert _login(Client(), "owner", PASSWORD, address="10.0.3.1").status_code == 429
    assert _login(Client(), "owner", PASSWORD, address="10.0.3.2").status_code == 302


def test_many_accounts_tried_from_one_address_lock_out_no_one_else(owner: Any) -> None:
    for i in range(60):
        assert _login(Client(), f"nobody-{i}", "x").status_code == 200
    assert _login(Client(), "owner", PASSWORD).status_code == 302


PROXY = "172.18.0.5"


def test_behind_the_proxy_each_client_is_counted_at_its_own_address(
    owner: Any, stranger: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_PROXY_ADDRESSES = [PROXY]

    def via_proxy(username: str, password: str, forwarded_for: str) -> int:
        r = Client().post(
            "/accounts/login/",
            {"username": username, "password": password},
            REMOTE_ADDR=PROXY,
            HTTP_X_FORWARDED_FOR=forwarded_for,
        )
        return int(r.status_code)

    # Many clients behind the one proxy try many accounts: nobody else is refused.
    for i in range(60):
        assert via_proxy(f"nobody-{i}", "x", f"198.51.100.{i}") == 200
    # One client guessing owner's password is stopped, whatever it writes on the left
    # of the header (the proxy appends the address it saw on the right).
    for i in range(5):
        assert via_proxy("owner", "wrong", f"203.0.113.{i}, 192.0.2.7") == 200
    assert via_proxy("owner", PASSWORD, "203.0.113.77, 192.0.2.7") == 429
    # Another client behind the same proxy still logs in as owner, and as stranger.
    assert via_proxy("owner", PASSWORD, "192.0.2.8") == 302
    assert via_proxy("stranger", PASSWORD, "192.0.2.7") == 302


def test_forwarded_for_from_anyone_but_the_proxy_is_not_believed(owner: Any, settings: Any) -> None:
    settings.PREEMPTLAB_PROXY_ADDRESSES = [PROXY]
    for i in range(5):
        r = Client().post(
            "/accounts/login/",
            {"username": "owner", "password": "wrong"},
            REMOTE_ADDR="10.0.4.1",
            HTTP_X_FORWARDED_FOR=f"198.51.100.{i}",
        )
        assert r.status_code == 200
    assert _login(Client(), "owner", PASSWORD, address="10.0.4.1").status_code == 429


def test_a_success_forgets_the_accounts_earlier_failures(owner: Any) -> None:
    client = Client()
    for i in range(9):
        _login(client, "owner", "wrong", address=f"10.0.5.{i % 4}")
    assert _login(client, "owner", PASSWORD, address="10.0.5.0").status_code == 302
    for i in range(9):
        assert _login(Client(), "owner", "wrong", address=f"10.0.6.{i}").status_code == 200


def test_the_admins_own_login_form_is_behind_the_throttled_one(staff: Any) -> None:
    r = Client().post("/admin/login/", {"username": "staff", "password": PASSWORD})
    assert r.status_code == 302 and r["Location"].startswith("/accounts/login/")


def test_an_api_token_beyond_its_rate_gets_429_with_retry_after(owner: Any, settings: Any) -> None:
    settings.PREEMPTLAB_API_RATE = "5/min"
    token = Token.objects.create(user=owner)
    client = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert [client.get("/api/snapshots/").status_code for _ in range(5)] == [200] * 5
    r = client.get("/api/snapshots/")
    assert r.status_code == 429
    assert int(r["Retry-After"]) > 0 and "detail" in r.json()


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (the PostgreSQL pass)")
def test_counts_are_shared_through_redis_by_every_web_process(owner: Any, settings: Any) -> None:
    prefix = f"test-throttle-{uuid.uuid4().hex}"
    settings.CACHES = {
        **settings.CACHES,
        "throttle": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": prefix,
        },
    }
    settings.PREEMPTLAB_API_RATE = "3/min"
    token = Token.objects.create(user=owner)
    client = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert [client.get("/api/snapshots/").status_code for _ in range(4)] == [200] * 3 + [429]
    # What another process would read: the count is in Redis, not in this process.
    import redis

    keys = redis.Redis.from_url(os.environ["REDIS_URL"]).keys(f"{prefix}*")
    assert keys
    redis.Redis.from_url(os.environ["REDIS_URL"]).delete(*keys)


def test_a_cache_that_is_down_lets_requests_through_instead_of_failing_them(
    owner: Any, settings: Any
) -> None:
    """Redis restarting must not turn every API call and login into a 500: nothing
    listens on port 1, and the calls still answer."""
    settings.CACHES = {
        **settings.CACHES,
        "throttle": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        },
    }
    token = Token.objects.create(user=owner)
    api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get("/api/snapshots/").status_code == 200
    assert _login(Client(), "owner", "wrong").status_code == 200
    assert _login(Client(), "owner", PASSWORD).status_code == 302
