"""preemptlab drain on a snapshot file: the answer as json, text and markdown, and the
gates' exit statuses (1 when a gate trips, 2 on bad input), on the hand-made cluster of
tests/scheduling/nodes_away_scenario.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scheduling.engine.take_nodes_away import TakeNodesAway, take_nodes_away
from tests.clusters.builders import dump
from tests.scheduling.nodes_away_scenario import BARE, LOW_2000, nodes_away_objects


@pytest.fixture
def snap(tmp_path: Path) -> str:
    path = tmp_path / "three-nodes.json"
    path.write_bytes(dump(nodes_away_objects()))
    return str(path)


def test_json_is_the_engines_answer(run_cli: Any, snap: str) -> None:
    r = run_cli("drain", snap, "--nodes", "node-1", "--force", "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    answer = json.loads(r.stdout)
    expected = take_nodes_away(
        nodes_away_objects(), TakeNodesAway.from_dict({"nodes": ["node-1"], "force": True})
    ).to_dict()
    assert answer == json.loads(json.dumps(expected))
    assert answer["verdict"] == "completes"
    assert answer["preemptions"][0]["victims"] == [LOW_2000]


def test_text_and_markdown_say_the_sentence_and_each_node(run_cli: Any, snap: str) -> None:
    text = run_cli("drain", snap, "--nodes", "node-1", "--force")
    assert text.returncode == 0, text.stderr.decode()
    out = text.stdout.decode()
    sentence = json.loads(
        run_cli("drain", snap, "--nodes", "node-1", "--force", "--format", "json").stdout
    )["sentence"]
    assert out.splitlines()[0] == sentence
    assert "node-1:" in out and f"deleted: {BARE}" in out
    assert f"on node-2 preempts {LOW_2000}" in out
    md = run_cli("drain", snap, "--nodes", "node-1", "--format", "markdown")
    assert md.returncode == 0, md.stderr.decode()
    body = md.stdout.decode()
    assert body.startswith("### Draining nodes on")
    assert "| `node-1` |" in body and f"`{BARE}`" in body


@pytest.mark.parametrize(
    ("args", "status", "words"),
    [
        (["--force", "--fail-on-blocked"], 0, ""),
        (["--fail-on-blocked"], 1, f"--fail-on-blocked: the drain stops at {BARE}"),
        (
            ["--force", "--fail-on-preempt"],
            1,
            f"--fail-on-preempt: the returning pods would preempt 1 pod: {LOW_2000}",
        ),
        (["--force", "--protect", "low"], 1, "of protected class low"),
        (["--force", "--protect", "high"], 0, ""),
        (["--force", "--fail-on-pending"], 0, ""),
        (["--force", "--protect", "gold"], 2, "no PriorityClass named 'gold'"),
    ],
)
def test_the_gates_exit_as_whatifs_do(
    run_cli: Any, snap: str, args: list[str], status: int, words: str
) -> None:
    r = run_cli("drain", snap, "--nodes", "node-1", *args)
    assert r.returncode == status, (r.stdout.decode(), r.stderr.decode())
    assert words in r.stderr.decode()


def test_a_blocked_drain_trips_fail_on_blocked(run_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "min2.json"
    path.write_bytes(dump(nodes_away_objects(min_available=2)))
    r = run_cli("drain", str(path), "--nodes", "node-1", "--force", "--fail-on-blocked")
    assert r.returncode == 1
    assert "--fail-on-blocked: the drain is blocked" in r.stderr.decode()
    assert "default/web-pdb" in r.stderr.decode()


def test_bad_input_exits_2_naming_the_flag(run_cli: Any, snap: str) -> None:
    r = run_cli("drain", snap, "--nodes", "node-1", "--how", "melted")
    assert r.returncode == 2
    r = run_cli("drain", snap, "--nodes", "node-1", "--add-nodes", "2")
    assert r.returncode == 2 and "--like" in r.stderr.decode()


def test_the_live_context_answers_as_the_file(run_cli: Any, snap: str, tmp_path: Path) -> None:
    from .fake_apiserver import FakeAPIServer

    with FakeAPIServer(nodes_away_objects()).running(tmp_path) as kubeconfig:
        live = run_cli(
            "drain", "--nodes", "node-1", "--force", "--format", "json",
            "--kubeconfig", str(kubeconfig),
        )  # fmt: skip
    assert live.returncode == 0, live.stderr.decode()
    on_file = run_cli("drain", snap, "--nodes", "node-1", "--force", "--format", "json")
    assert json.loads(live.stdout) == json.loads(on_file.stdout)
