"""Throttling: 300 wrong passwords then the right one no longer log in; an API token
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
    for _ in range(10):
        assert _login(client, "owner", "wrong").status_code == 200  # the form again
    r = _login(client, "owner", PASSWORD)
    assert r.status_code == 429
    assert int(r["Retry-After"]) > 0
    assert 'id="login-throttled"' in r.content.decode()
    assert "_auth_user_id" not in client.session
    # Another account from another address is not held up by it.
    other = Client()
    r = _login(other, "stranger", PASSWORD, address="10.0.0.2")
    assert r.status_code == 302


def test_trying_many_accounts_from_one_address_is_stopped(db: Any, owner: Any) -> None:
    client = Client()
    for i in range(50):
        assert _login(client, f"nobody-{i}", "x").status_code == 200
    assert _login(client, "owner", PASSWORD).status_code == 429
    assert _login(Client(), "owner", PASSWORD, address="10.0.0.9").status_code == 302


def test_a_success_forgets_the_accounts_earlier_failures(owner: Any) -> None:
    client = Client()
    for _ in range(9):
        _login(client, "owner", "wrong")
    assert _login(client, "owner", PASSWORD).status_code == 302
    for _ in range(9):
        assert _login(Client(), "owner", "wrong", address="10.0.0.3").status_code == 200


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
