"""Every scheduler-configuration scenario: the real scheduling loop under a
KubeSchedulerConfiguration vs simulate(..., scheduler_config=...).

Judged as tests/conformance/scheduler-config/README.md says: the sequence judge
(sequence_judge.py) with the strictness of test_sequences.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scheduling.engine import simulate

from .sequence_judge import assert_strictly, judge

SCENARIOS = sorted((Path(__file__).parent / "scheduler-config").glob("*.json"))


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def test_every_scenario_is_here() -> None:
    # The README counts 129 scenarios under nine configurations; a lost file must fail.
    assert len(SCENARIOS) == 129
    assert len({_load(p)["config"] for p in SCENARIOS}) == 9


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_agrees_with_the_real_loop(path: Path) -> None:
    scenario = _load(path)
    got = simulate(
        scenario["snapshot"]["items"],
        scenario["pending"],
        scheduler_config=scenario["scheduler_config"],
    ).to_dict()
    assert_strictly(scenario, got, judge(scenario["expected"], got))
    assert got["scheduler_profile"]["source"] == "analysis"
