"""The DRA scenarios (tests/conformance/dra/: pods claiming GPUs through ResourceClaims):
the real kube-scheduler's answers vs the engine's, compared exactly as the other
single-pod vectors (test_vectors) and sequences (test_sequences) are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduling.engine import simulate

from .sequence_judge import assert_strictly, judge
from .test_sequences import VERDICTS
from .test_vectors import _check

HERE = Path(__file__).parent / "dra"
SINGLE = sorted((HERE / "single").glob("*.json"))
SEQUENCES = sorted((HERE / "sequences").glob("*.json"))


def test_every_scenario_is_here() -> None:
    # The README counts 68 public single pods and 15 rollouts.
    assert (len(SINGLE), len(SEQUENCES)) == (68, 15)


@pytest.mark.parametrize("path", SINGLE, ids=[p.stem for p in SINGLE])
def test_single_pod_agrees(path: Path) -> None:
    problems = _check(json.loads(path.read_text()))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", SEQUENCES, ids=[p.stem for p in SEQUENCES])
def test_rollout_agrees(path: Path) -> None:
    scenario = json.loads(path.read_text())
    got = simulate(scenario["snapshot"]["items"], scenario["pending"]).to_dict()
    verdict = VERDICTS[f"dra/{path.stem}"] = judge(scenario["expected"], got)
    assert_strictly(scenario, got, verdict)
