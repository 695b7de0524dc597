"""Fixtures shared by every test package: a fixed cast of users, a real Celery
worker process, and a real browser.

The cast (owner, teammate, stranger, staff) makes permission tests read like a
story: the owner made the thing, the stranger must get a 404 from it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

# Playwright's sync API runs an event loop in the test thread; Django's ORM
# guard would otherwise refuse the live_server fixture's database access.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "correct-horse-battery"


@pytest.fixture(autouse=True)
def _fresh_throttle_counts(settings: Any) -> None:
    """Each test counts its own logins and API calls (users' ids repeat across tests),
    and may queue as many analyses as it likes (tests of the limit set it)."""
    settings.PREEMPTLAB_UNFINISHED_PER_USER = 10_000
    settings.CACHES = {
        **settings.CACHES,
        "throttle": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"throttle-{uuid.uuid4().hex}",
        },
    }


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    """The cast's passwords are hashed once per test: keep it cheap (login still works)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def owner(db: Any) -> Any:
    return get_user_model().objects.create_user("owner", "owner@example.com", PASSWORD)


@pytest.fixture
def stranger(db: Any) -> Any:
    return get_user_model().objects.create_user("stranger", "stranger@example.com", PASSWORD)


@pytest.fixture
def staff(db: Any) -> Any:
    return get_user_model().objects.create_user(
        "staff", "staff@example.com", PASSWORD, is_staff=True
    )


@pytest.fixture
def owner_client(client: Any, owner: Any) -> Any:
    client.force_login(owner)
    return client


@pytest.fixture
def stranger_client(client: Any, stranger: Any) -> Any:
    client.force_login(stranger)
    return client


def _database_url_for_subprocess() -> str:
    """The URL of the database the tests are using right now (the test database)."""
    s = connection.settings_dict
    if s["ENGINE"] == "django.db.backends.sqlite3":
        name = str(s["NAME"])
        if name == ":memory:" or "mode=memory" in name:
            raise RuntimeError(
                "A worker process cannot share an in-memory SQLite database: run the worker "
                "tests on PostgreSQL (make test sets DATABASE_URL) or give SQLite a TEST NAME file."
            )
        return f"sqlite:///{name}"
    user = s.get("USER") or ""
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    return f"postgres://{auth}{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"


WorkerFactory = Callable[..., subprocess.Popen[str]]


@pytest.fixture
def celery_worker_factory(transactional_db: Any, settings: Any) -> Iterator[WorkerFactory]:
    """Starts real `celery worker` processes on Redis, reading and writing the test database.

    ``start(pool="solo", concurrency=1, env={...})`` returns the worker's main process once it
    has answered a real task. Each worker listens on a queue of its own, so
    concurrent test runs sharing one Redis never take each other's tasks; the
    app sends this test's tasks to the last worker started. Every worker is
    stopped when the test ends.
    """
    from config.celery import app

    redis_url = os.environ.get("REDIS_URL") or settings.REDIS_URL
    if not redis_url:
        raise RuntimeError("The worker tests need Redis: set REDIS_URL (make test does).")
    started: list[tuple[subprocess.Popen[str], Any]] = []
    previous = (app.conf.broker_url, app.conf.result_backend, app.conf.task_default_queue)

    def start(
        *,
        pool: str = "solo",
        concurrency: int = 1,
        env: dict[str, str] | None = None,
        queue: str | None = None,
        consume: tuple[str, ...] = ("default", "reads", "alerts"),
    ) -> subprocess.Popen[str]:
        # ``queue``: the queues of a worker started before (a reader beside it, say);
        # ``consume``: which of its default, reads and alerts queues this one takes.
        queue = queue or f"test-{uuid.uuid4().hex[:12]}"
        queues = {"default": queue, "reads": f"{queue}-reads", "alerts": f"{queue}-alerts"}
        extra_env = env or {}
        env = {
            **os.environ,
            **extra_env,
            "DATABASE_URL": _database_url_for_subprocess(),
            "REDIS_URL": redis_url,
            "CELERY_QUEUE": queue,
            # Cluster reads and alerts on this worker's own queues too (config/queues.py).
            "PREEMPTLAB_CLUSTER_READS_QUEUE": f"{queue}-reads",
            "PREEMPTLAB_ALERTS_QUEUE": f"{queue}-alerts",
            "DEBUG": "1",
            "PYTHONUNBUFFERED": "1",
        }
        env.pop("TEST_DB_NAME", None)
        name = queue if len(consume) == 3 else f"{queue}-{'-'.join(consume)}"
        log = open(ROOT / "var" / f"worker-{name}.log", "w")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                f"--pool={pool}",
                f"--concurrency={concurrency}",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-Q",
                ",".join(queues[c] for c in consume),
                "-n",
                f"{name}@%h",
                "--loglevel=INFO",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        started.append((proc, log))
        app.conf.broker_url = redis_url
        app.conf.result_backend = redis_url
        app.conf.task_default_queue = queue
        settings.PREEMPTLAB_CLUSTER_READS_QUEUE = f"{queue}-reads"
        settings.PREEMPTLAB_ALERTS_QUEUE = f"{queue}-alerts"
        # Ready when it answers a real task, not merely when the process exists.
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"celery worker exited: {Path(log.name).read_text()}")
            try:
                ping_queue = queues[consume[0]]
                if app.send_task("preemptlab.ping", queue=ping_queue).get(timeout=5) == "pong":
                    return proc
            except Exception:
                if time.monotonic() > deadline:
                    raise

    try:
        yield start
    finally:
        for proc, _ in started:
            if proc.poll() is None:
                proc.terminate()
        for proc, log in started:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=20)
            log.close()
        app.conf.broker_url, app.conf.result_backend, app.conf.task_default_queue = previous


@pytest.fixture
def celery_worker_process(celery_worker_factory: WorkerFactory) -> subprocess.Popen[str]:
    """One real worker with the solo pool (tasks run in the worker's main process)."""
    return celery_worker_factory()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    p = context.new_page()
    p.set_default_timeout(15_000)
    yield p
    context.close()


def browser_login(page: Any, live_server: Any, username: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
