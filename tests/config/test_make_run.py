"""`make run` (scripts/run.sh) on a fresh var/ directory: no debug page anywhere,
a secret key kept under var/, the demo login printed once."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

from tests.config.served import ROOT, served_env, served_get


def test_it_serves_without_debug_pages(served: tuple[Path, Path]) -> None:
    status, _, body = served_get("/s/revoked-or-made-up-token/")
    assert status == 404
    assert 'id="not-found"' in body
    assert "URLconf" not in body and "DEBUG = True" not in body
    # Under /api/ a client that asks for nothing in particular (a script) gets JSON.
    status, _, body = served_get("/api/no-such-endpoint/")
    assert status == 404 and body == '{"detail": "Not found."}'


def test_its_api_docs_ask_for_a_login(served: tuple[Path, Path]) -> None:
    status, location, _ = served_get("/api/docs/")
    assert status == 302
    assert location == "/accounts/login/?next=/api/docs/"


def test_it_keeps_a_private_secret_key_under_var(served: tuple[Path, Path]) -> None:
    var_dir, _ = served
    key = var_dir / "secret_key"
    assert len(key.read_text().strip()) >= 50
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_nothing_under_var_is_readable_by_others(served: tuple[Path, Path]) -> None:
    """The SQLite file holds password hashes, sessions and API tokens."""
    var_dir, _ = served
    assert stat.S_IMODE(var_dir.stat().st_mode) == 0o700
    database = var_dir / "preemptlab.sqlite3"
    assert database.is_file()
    loose = [
        str(p.relative_to(var_dir))
        for p in [var_dir / "preemptlab.sqlite3", *var_dir.rglob("*")]
        if p.exists() and p.name != "run.log" and stat.S_IMODE(p.stat().st_mode) & 0o077
    ]
    assert loose == []


def test_it_prints_the_demo_login_once(served: tuple[Path, Path]) -> None:
    var_dir, log = served
    assert log.read_text().count("Log in as 'demo' with password") == 1
    again = subprocess.run(
        [".venv/bin/python", "manage.py", "ensure_demo_user"],
        cwd=ROOT,
        env=served_env(var_dir),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "password '" not in again.stdout
    assert "changepassword demo" in again.stdout


def test_make_run_installs_only_what_running_needs_and_make_test_adds_checkov() -> None:
    """`make run` builds the app's venv alone; checkov's (it scans the manifests in the
    tests) only `make test` builds. Asked with -n -B: every recipe printed, none run."""

    def recipes(target: str) -> str:
        return subprocess.run(
            ["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout

    run = recipes("run")
    assert "requirements.lock" in run and "scripts/run.sh" in run
    assert ".venv-checkov" not in run and "requirements-checkov" not in run
    assert "requirements-checkov.lock" in recipes("test")
