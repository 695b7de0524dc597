"""The storage scenarios (tests/conformance/storage/): pods with PersistentVolumeClaims,
attach limits, ReadWriteOncePod claims and inline disks, judged exactly as the single-pod
vectors (test_vectors._check) and the sequences (sequence_judge) are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduling.engine import simulate

from .sequence_judge import assert_strictly, judge
from .test_sequences import VERDICTS
from .test_vectors import _check

HERE = Path(__file__).parent / "storage"
SINGLE = sorted((HERE / "single").glob("*.json"))
SEQUENCES = sorted((HERE / "sequences").glob("*.json"))


def test_every_storage_scenario_is_here() -> None:
    # The README counts 110 public single pods and 20 public rollouts.
    assert (len(SINGLE), len(SEQUENCES)) == (110, 20)


@pytest.mark.parametrize("path", SINGLE, ids=lambda p: p.stem)
def test_storage_single_pod(path: Path) -> None:
    problems = _check(json.loads(path.read_text()))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", SEQUENCES, ids=lambda p: p.stem)
def test_storage_sequence(path: Path) -> None:
    scenario = json.loads(path.read_text())
    got = simulate(scenario["snapshot"]["items"], scenario["pending"]).to_dict()
    verdict = VERDICTS[f"storage/{path.stem}"] = judge(scenario["expected"], got)
    assert_strictly(scenario, got, verdict)
