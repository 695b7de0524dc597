"""The preemptlab command run as a user runs it: a subprocess, no DEBUG, no secret key,
no database, kubectl's cache in a temporary directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
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


# The package as a user installs it: a wheel built from a copy of the checkout, and
# fresh virtualenvs with no network (the dependencies come from the project's own venv
# through a .pth file, so pip finds them satisfied and reaches no index).
@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    # Built from a copy: setuptools leaves build/ and *.egg-info beside the sources.
    src = tmp / "src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "var", "build", "*.egg-info", "tests", "bench"
        ),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(dist),
            str(src),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = dist.glob("preemptlab-*.whl")
    return built


def fresh_venv(env_dir: Path) -> Path:
    """A new virtualenv whose pip finds every dependency already installed."""
    venv.EnvBuilder(with_pip=True).create(env_dir)
    site = subprocess.run(
        [
            env_dir / "bin" / "python",
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env_dir


@pytest.fixture(scope="session")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    env_dir = fresh_venv(tmp_path_factory.mktemp("installed") / "venv")
    subprocess.run(
        [
            env_dir / "bin" / "python",
            "-m",
            "pip",
            "install",
            "--no-index",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    return env_dir
