"""The package as a user installs it: a wheel built from the checkout, installed into a
fresh virtualenv with no network (its dependencies come from the project's own venv),
and run from elsewhere: preemptlab --help, and kubectl preemptlab through kubectl's
plugin lookup, on the demo and on both real dumps."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest

from .conftest import DEMO, POD, REAL, ROOT, user_env


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


def test_the_command_names_itself_as_invoked_and_tells_its_version(
    installed: Path, tmp_path: Path
) -> None:
    """kubectl runs the plugin as kubectl-preemptlab: its usage says what the user typed;
    --version prints the installed distribution's version; the help of the installed
    command speaks of no manage.py."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    r = _run(installed, tmp_path, "kubectl", "preemptlab", "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: kubectl preemptlab ")
    r = _run(installed, tmp_path, "kubectl-preemptlab", "whatif", "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: kubectl preemptlab whatif ")
    assert "manage.py" not in r.stdout
    r = _run(installed, tmp_path, "preemptlab", "--help")
    assert r.stdout.startswith("usage: preemptlab ")
    for cmd in (("preemptlab",), ("kubectl", "preemptlab")):
        r = _run(installed, tmp_path, *cmd, "--version")
        assert r.returncode == 0, r.stderr
        assert r.stdout == f"{' '.join(cmd)} {version}\n"
    for sub in ("whatif", "plan"):
        r = _run(installed, tmp_path, "preemptlab", sub, "--help")
        assert r.returncode == 0 and "manage.py" not in r.stdout


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


def test_the_scheduler_presets_ship_in_the_wheel(installed: Path, tmp_path: Path) -> None:
    # The presets are YAML files beside the engine's profile code: a wheel without them
    # would fail only when someone picks a preset.
    script = (
        "import scheduling.engine as e; "
        "print(' '.join(p.name + ':' + str(len(e.preset_config(p.name).profiles)) "
        "for p in e.presets()))"
    )
    got = _run(installed, tmp_path, str(installed / "bin" / "python"), "-c", script)
    assert got.returncode == 0, got.stderr
    assert got.stdout.split() == [
        "default:1",
        "openshift-low-node-utilization:1",
        "openshift-high-node-utilization:1",
        "openshift-no-scoring:1",
        "most-allocated:1",
        "gardener-bin-packing:2",
    ]


def test_the_wheel_holds_every_app_of_the_project() -> None:
    """An app in INSTALLED_APPS that the wheel leaves out stops every installed command at
    django.setup() (ModuleNotFoundError); the wheel's package list names each one."""
    from fnmatch import fnmatch

    from django.conf import settings

    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"
    ]["find"]["include"]
    ours = {
        app.split(".")[0]
        for app in settings.INSTALLED_APPS
        if (ROOT / app.split(".")[0] / "__init__.py").exists()
    }
    assert ours, "the project's own apps"
    left_out = sorted(app for app in ours if not any(fnmatch(app, p) for p in include))
    assert not left_out, f"add to [tool.setuptools.packages.find] include: {left_out}"
