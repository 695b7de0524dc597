"""`manage.py whatif` in a pipeline: a stored snapshot by name or id, gates that fail
the job with a one-line reason, and a markdown report for a pull-request comment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command

from clusters.demo import demo_cat3_pod, demo_objects
from scheduling.reports.gates import BAD_INPUT, GATE_FAILED

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """The demo cluster and its cat-3 pod, which preempts one cat-1 pod (priority 10000)."""
    snap, pod = tmp_path / "demo.json", tmp_path / "pod.yaml"
    snap.write_text(json.dumps(demo_objects()))
    pod.write_text(yaml.safe_dump(demo_cat3_pod()))
    return snap, pod


def _whatif(*args: str) -> subprocess.CompletedProcess[str]:
    """The command as a CI job runs it: its own process, its exit status, its stderr."""
    env = {k: v for k, v in os.environ.items() if k != "TEST_DB_NAME"}
    return subprocess.run(
        [sys.executable, "manage.py", "whatif", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize(
    ("gate", "says"),
    [
        (
            ["--fail-on-preempt"],
            "--fail-on-preempt: default/orange-0 would preempt 1 pod on node-5",
        ),
        (
            ["--fail-on-victim-priority-above", "5000"],
            "with priority above 5000 (highest 10000): default/purple-",
        ),
        (["--protect", "cat-1,system-cluster-critical"], "of protected class cat-1"),
    ],
)
def test_a_tripped_gate_fails_the_job_with_a_one_line_reason(
    files: tuple[Path, Path], gate: list[str], says: str
) -> None:
    run = _whatif(str(files[0]), str(files[1]), *gate)
    assert run.returncode == GATE_FAILED
    assert says in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert "Preempts 1 pod on node-5." in run.stdout


@pytest.mark.parametrize(
    "gate",
    [
        ["--fail-on-victim-priority-above", "10000"],
        ["--protect", "cat-2"],
        ["--fail-on-pdb-violation"],
    ],
)
def test_a_gate_that_holds_passes(files: tuple[Path, Path], gate: list[str]) -> None:
    run = _whatif(str(files[0]), str(files[1]), *gate)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""


def test_the_pdb_gate_trips_on_a_budget_the_preemption_breaks(tmp_path: Path) -> None:
    objects = demo_objects()
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "all-apps", "namespace": "default"},
        "spec": {
            "minAvailable": "100%",
            "selector": {
                "matchExpressions": [
                    {"key": "app", "operator": "In", "values": ["blue", "purple", "green", "red"]}
                ]
            },
        },
        "status": {
            "disruptionsAllowed": 0,
            "currentHealthy": 10,
            "desiredHealthy": 10,
            "expectedPods": 10,
        },
    }
    objects["items"].append(pdb)
    (tmp_path / "snap.json").write_text(json.dumps(objects))
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(demo_cat3_pod()))
    run = _whatif(
        str(tmp_path / "snap.json"), str(tmp_path / "pod.yaml"), "--fail-on-pdb-violation"
    )
    assert run.returncode == GATE_FAILED, run.stdout + run.stderr
    assert (
        "--fail-on-pdb-violation: default/orange-0 would break 1 PodDisruptionBudget" in run.stderr
    )


def test_a_fitting_pod_passes_every_gate(files: tuple[Path, Path], tmp_path: Path) -> None:
    small = demo_cat3_pod()
    small["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "1m", "memory": "1Mi"}
    (tmp_path / "small.yaml").write_text(yaml.safe_dump(small))
    run = _whatif(
        str(files[0]), str(tmp_path / "small.yaml"), "--fail-on-preempt", "--fail-on-pdb-violation"
    )
    assert run.returncode == 0, run.stderr


def test_unreadable_input_exits_with_its_own_status(files: tuple[Path, Path]) -> None:
    run = _whatif(str(files[0]), "no-such-pod.yaml", "--fail-on-preempt")
    assert run.returncode == BAD_INPUT
    assert "no-such-pod.yaml" in run.stderr


@pytest.mark.django_db
def test_it_asks_a_stored_snapshot_by_name_or_id(
    demo_snapshot: Any, files: tuple[Path, Path]
) -> None:
    for ref in (demo_snapshot.name, str(demo_snapshot.pk)):
        out = StringIO()
        call_command("whatif", "--snapshot", ref, str(files[1]), "--format", "json", stdout=out)
        result = json.loads(out.getvalue())
        assert result["outcome"] == "preempts"
        assert result["node"] == "node-5"


@pytest.mark.django_db
def test_an_unknown_snapshot_lists_the_stored_ones(
    demo_snapshot: Any, files: tuple[Path, Path]
) -> None:
    with pytest.raises(CommandError) as err:
        call_command("whatif", "--snapshot", "prod", str(files[1]))
    assert "No snapshot with id or name 'prod'" in str(err.value)
    assert f"{demo_snapshot.pk} {demo_snapshot.name!r}" in str(err.value)
    assert err.value.returncode == BAD_INPUT


def test_markdown_is_a_pull_request_comment(files: tuple[Path, Path]) -> None:
    out = StringIO()
    with pytest.raises(CommandError) as err:
        call_command(
            "whatif",
            str(files[0]),
            str(files[1]),
            "--format",
            "markdown",
            "--protect",
            "cat-1",
            stdout=out,
        )
    assert err.value.returncode == GATE_FAILED
    md = out.getvalue()
    assert md.startswith("### preemptlab: `default/orange-0` on `demo.json`")
    assert "**Preempts 1 pod on node-5.** It evicts default/purple-" in md
    assert (
        "- :x: --protect cat-1: default/orange-0 would preempt 1 pod of protected class cat-1" in md
    )
    assert "| Pod | Priority | Class | Requests | PodDisruptionBudget |" in md
    assert "| 10000 | `cat-1` | cpu 1, memory 2Gi | `default/purple-pdb` |" in md
    assert "<details><summary>Tie-break: 5 candidate nodes</summary>" in md
    assert "| `node-4` | 0 | 10000 | 10000 | 1 | 2025-01-06T10:40:00Z | out at Start time |" in md


def test_protecting_a_class_the_snapshot_lacks_is_refused_not_passed(
    files: tuple[Path, Path],
) -> None:
    """A typo ('nonexistent-class') made a gate that could never fail, and exited 0."""
    run = _whatif(
        str(files[0]), str(files[1]), "--protect", "system-node-critical,nonexistent-class"
    )
    assert run.returncode == BAD_INPUT
    assert "no PriorityClass named 'nonexistent-class'" in run.stderr
    assert "cat-1" in run.stderr  # the classes it does have are listed


def test_whatif_reads_a_gzipped_snapshot(files: tuple[Path, Path], tmp_path: Path) -> None:
    import gzip

    packed = tmp_path / "demo.json.gz"
    packed.write_bytes(gzip.compress(files[0].read_bytes()))
    run = _whatif(str(packed), str(files[1]))
    assert run.returncode == 0, run.stderr
    assert "Preempts 1 pod on node-5." in run.stdout


@pytest.mark.django_db
def test_a_name_two_snapshots_share_is_not_guessed(
    demo_snapshot: Any, stranger: Any, files: tuple[Path, Path]
) -> None:
    """It used to pick the newest one silently, among every user's snapshots."""
    from clusters.services import snapshot_load_demo

    theirs = snapshot_load_demo(owner=stranger)
    assert theirs.name == demo_snapshot.name
    with pytest.raises(CommandError) as err:
        call_command("whatif", "--snapshot", demo_snapshot.name, str(files[1]))
    said = str(err.value)
    assert err.value.returncode == BAD_INPUT
    assert f"2 snapshots are named {demo_snapshot.name!r}" in said
    assert f"{demo_snapshot.pk} (owner," in said and f"{theirs.pk} (stranger," in said
    # --owner picks among that user's only.
    out = StringIO()
    call_command(
        "whatif",
        "--snapshot",
        demo_snapshot.name,
        "--owner",
        "stranger",
        str(files[1]),
        "--format",
        "json",
        stdout=out,
    )
    assert json.loads(out.getvalue())["node"] == "node-5"
    with pytest.raises(CommandError, match="No snapshot of 'nobody'"):
        call_command("whatif", "--snapshot", str(theirs.pk), "--owner", "nobody", str(files[1]))
