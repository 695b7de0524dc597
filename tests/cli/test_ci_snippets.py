"""The README's CI jobs, run step by step as a runner would: in a repository holding
the wheel, a gzipped snapshot and the change's manifest, with pip of a fresh
virtualenv (no index reached: the dependencies are already there), the real kubectl,
and a kubeconfig secret pointing at a fake API server serving the demo cluster.
The `uses:` steps (checkout, setup-python, setup-kubectl) and GitLab's
before_script (installing kubectl) are what this machine already has."""

from __future__ import annotations

import base64
import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import DEMO, POD, ROOT, fresh_venv, user_env
from .fake_apiserver import FakeAPIServer

README = (ROOT / "README.md").read_text()


def readme_block(name: str) -> str:
    m = re.search(rf"<!-- readme-test: {name} -->\n```\w*\n(.*?)```", README, re.S)
    assert m, name
    return m.group(1)


@pytest.fixture
def repo(tmp_path: Path, wheel: Path) -> Path:
    """A user's repository as the snippets expect it, and a fresh venv first on PATH."""
    work = tmp_path / "repo"
    (work / "tools").mkdir(parents=True)
    (work / "snapshots").mkdir()
    (work / "deploy").mkdir()
    shutil.copy(wheel, work / "tools" / wheel.name)
    (work / "snapshots" / "prod.json.gz").write_bytes(gzip.compress(DEMO.read_bytes()))
    shutil.copy(POD, work / "deploy" / "web.yaml")
    fresh_venv(tmp_path / "runner-python")
    return work


def _env(repo: Path, **extra: str) -> dict[str, str]:
    python_bin = repo.parent / "runner-python" / "bin"
    return user_env(repo.parent, PATH=f"{python_bin}{os.pathsep}{os.environ['PATH']}", **extra)


def _step(script: str, repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_readme_names_the_wheel_this_checkout_builds(wheel: Path) -> None:
    assert f"./tools/{wheel.name}" in readme_block("github")
    assert f"./tools/{wheel.name}" in readme_block("gitlab")


def test_the_github_jobs_pass_and_write_their_summaries(repo: Path, tmp_path: Path) -> None:
    jobs = yaml.safe_load(readme_block("github"))["jobs"]
    with FakeAPIServer(yaml.safe_load(DEMO.read_text())["items"]).running(tmp_path) as kc:
        secret = base64.b64encode(kc.read_bytes()).decode()
        for name, job in jobs.items():
            summary = tmp_path / f"{name}.md"
            for step in job["steps"]:
                if "run" not in step:
                    continue
                env = _env(
                    repo,
                    GITHUB_STEP_SUMMARY=str(summary),
                    RUNNER_TEMP=str(tmp_path),
                    **{k: secret for k in (step.get("env") or {})},
                )
                run = _step(step["run"], repo, env)
                assert run.returncode == 0, (name, step["run"], run.stdout, run.stderr)
            assert "**Preempts 1 pod on node-5.**" in summary.read_text(), name


def _gitlab(
    job: dict[str, Any], repo: Path, env: dict[str, str]
) -> list[subprocess.CompletedProcess[str]]:
    return [_step(line, repo, env) for line in job["script"]]


def test_the_gitlab_jobs_pass_and_keep_their_reports(repo: Path, tmp_path: Path) -> None:
    jobs = yaml.safe_load(readme_block("gitlab"))
    with FakeAPIServer(yaml.safe_load(DEMO.read_text())["items"]).running(tmp_path) as kc:
        for name, job in jobs.items():
            report = repo / job["artifacts"]["paths"][0]
            report.unlink(missing_ok=True)
            runs = _gitlab(job, repo, _env(repo, PREEMPTLAB_KUBECONFIG=str(kc)))
            assert all(r.returncode == 0 for r in runs), (name, [r.stderr for r in runs])
            assert "**Preempts 1 pod on node-5.**" in report.read_text(), name


@pytest.mark.parametrize("gate", ["--fail-on-preempt", "--fail-on-victim-priority-above 5000"])
def test_a_tripped_gate_fails_the_job(repo: Path, gate: str) -> None:
    job = yaml.safe_load(readme_block("gitlab"))["preemption-gate"]
    env = _env(repo)
    install, whatif = job["script"]
    assert _step(install, repo, env).returncode == 0
    run = _step(whatif.replace("--fail-on-pdb-violation", gate), repo, env)
    assert run.returncode == 1
    assert run.stderr.startswith("GateFailed: ") and len(run.stderr.splitlines()) == 1
