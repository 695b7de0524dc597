"""The preemptlab command run as a user runs it: a subprocess, no DEBUG, no secret key,
no database, kubectl's cache in a temporary directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "docs" / "demo-snapshot.json"
POD = ROOT / "docs" / "pod-cat3.yaml"
REAL = ROOT / "tests" / "fixtures" / "realworld"


def user_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        HOME=str(tmp), KUBECACHEDIR=str(tmp / "kube-cache"), PREEMPTLAB_VAR_DIR=str(tmp / "var")
    )
    env.update(extra)
    return env


@pytest.fixture
def run_cli(tmp_path: Path) -> Any:
    def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "preemptlab", *args],
            cwd=ROOT,
            env=user_env(tmp_path),
            input=stdin,
            capture_output=True,
            timeout=300,
            check=False,
        )

    return run
