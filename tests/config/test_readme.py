"""The README's commands, taken from the README itself and run: the REST API example
against the app as `make run` serves it, the CLI gate example, and the GitHub Actions
and GitLab CI snippets (their run/script steps)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import yaml

from clusters.demo import demo_cat3_pod, demo_objects
from tests.config.served import PORT, ROOT, served_env

README = (ROOT / "README.md").read_text()


def readme_block(name: str) -> str:
    """The fenced block right after the README's `<!-- readme-test: NAME -->` marker."""
    m = re.search(rf"<!-- readme-test: {name} -->\n```\w*\n(.*?)```", README, re.S)
    assert m, f"the README has no block marked {name}"
    return m.group(1)


def _checkout(tmp_path: Path) -> Path:
    """A folder that looks like the repository (its entries linked), so files the
    commands write (whatif.md) stay out of the real one."""
    # The real repository's .venv up to date first: linked into the checkout, `make
    # install` there is then the no-op it is on a CI runner's second step.
    subprocess.run(["make", "install"], cwd=ROOT, check=True, capture_output=True)
    work = tmp_path / "checkout"
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in ("var", ".git"):
            (work / entry.name).symlink_to(entry)
    return work


def _bash(script: str, *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def _ci_env(tmp_path: Path, extra: dict[str, str]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "TEST_DB_NAME")
    }
    return env | {"PREEMPTLAB_VAR_DIR": str(tmp_path / "ci-var")} | extra


def test_the_demo_files_are_the_demo() -> None:
    import json

    assert json.loads((ROOT / "docs" / "demo-snapshot.json").read_text()) == demo_objects()
    assert yaml.safe_load((ROOT / "docs" / "pod-cat3.yaml").read_text()) == demo_cat3_pod()


def test_the_api_example_works_when_pasted(served: tuple[Path, Path]) -> None:
    var_dir, _ = served
    env = served_env(var_dir) | {"PORT": str(PORT)}
    run = _bash(readme_block("api"), cwd=ROOT, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "preempts node-5 ['default/purple-" in run.stdout, run.stdout + run.stderr
    # The advice, as the worker proved it: a smaller request first, then a node.
    assert '\nsmaller-request {"object": 0, "patch": [{"op": "replace", "path": ' in run.stdout
    assert 'add-nodes {"add_nodes": 1, "like": "node-1"} -> fits' in run.stdout, run.stdout
    # Pasted a second time (the user exists now) it still answers.
    again = _bash(readme_block("api"), cwd=ROOT, env=env)
    assert "preempts node-5" in again.stdout, again.stdout + again.stderr


def test_the_gate_example_prints_what_the_readme_says(tmp_path: Path) -> None:
    run = _bash(
        readme_block("gate"), cwd=_checkout(tmp_path), env=_ci_env(tmp_path, {"SECRET_KEY": "x"})
    )
    expected = re.search(
        r"prints\n\n```\n(.*?)```", README.split("<!-- readme-test: gate -->")[1], re.S
    )
    assert expected
    shown = expected.group(1).splitlines()
    got = (run.stderr + run.stdout).splitlines()
    assert len(got) == len(shown)
    for line, want in zip(got, shown, strict=True):
        assert line.startswith(want.rstrip("…")), (line, want)


# The CI snippets (the installed command) run in tests/cli/test_ci_snippets.py.


def test_the_tour_screenshot_is_in_the_repository() -> None:
    (image,) = re.findall(r"!\[[^\]]*\]\((docs/[^)]+\.png)\)", README)
    assert (ROOT / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
