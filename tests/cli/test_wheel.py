"""The package as a user installs it: a wheel built from the checkout, installed into a
fresh virtualenv with no network (its dependencies come from the project's own venv),
and run from elsewhere: preemptlab --help, and kubectl preemptlab through kubectl's
plugin lookup, on the demo and on both real dumps."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from .conftest import DEMO, POD, REAL, ROOT, user_env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
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
    (wheel,) = dist.glob("preemptlab-*.whl")
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # The dependencies, already installed for the project: no index is reached.
    (Path(site) / "project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [py, "-m", "pip", "install", "--no-index", "--no-deps", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    return env_dir


def _run(installed: Path, tmp: Path, *cmd: str) -> subprocess.CompletedProcess[str]:
    env = user_env(tmp, PATH=f"{installed / 'bin'}{os.pathsep}{os.environ['PATH']}")
    # From elsewhere: nothing of the checkout on the path, only the installed package.
    return subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=300)


def test_help_and_the_plugin_on_the_demo(installed: Path, tmp_path: Path) -> None:
    r = _run(installed, tmp_path, "preemptlab", "--help")
    assert r.returncode == 0 and "whatif" in r.stdout and "snapshot" in r.stdout
    r = _run(
        installed,
        tmp_path,
        "kubectl",
        "preemptlab",
        "whatif",
        str(DEMO),
        "-f",
        str(POD),
        "--format",
        "json",
    )
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    assert answer["outcome"] == "preempts" and answer["victims"]
    r = _run(installed, tmp_path, "kubectl", "preemptlab", "whatif", str(DEMO), "-f", str(POD))
    assert r.returncode == 0 and r.stdout.startswith(
        "default/orange-0 (priority 30000, class cat-3): Preempts"
    )
    where = _run(
        installed,
        tmp_path,
        str(installed / "bin" / "python"),
        "-c",
        "import scheduling; print(scheduling.__file__)",
    )
    assert str(installed) in where.stdout  # the wheel's copy, not the checkout's


@pytest.mark.parametrize("cluster", ["ocp-aws", "ocp-vsphere"])
def test_the_plugin_on_the_real_dumps(installed: Path, tmp_path: Path, cluster: str) -> None:
    pod = tmp_path / "pod.yaml"
    pod.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: default}\n"
        "spec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: '2', memory: 4Gi}}\n"
    )
    snapshot = REAL / cluster / "snapshot.json.gz"
    r = _run(
        installed,
        tmp_path,
        "kubectl",
        "preemptlab",
        "whatif",
        str(snapshot),
        "-f",
        str(pod),
        "--format",
        "json",
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["pod"] == "default/big"
