"""Every sequence scenario: the real scheduling loop's run vs simulate().

Agreement is judged as tests/conformance/sequences/README.md says (sequence_judge);
the share of cycles, FailedScheduling messages and PDB reports that agree is printed
at the end of the run (conftest.py) and must stay at 100% on these scenarios.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scheduling.engine import load_cluster, simulate

from .sequence_judge import Verdict, assert_strictly, judge

SCENARIOS = sorted((Path(__file__).parent / "sequences").glob("*.json"))
VERDICTS: dict[str, Verdict] = {}


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def test_every_scenario_is_here() -> None:
    # The README counts 47 public scenarios; a lost file must not pass silently.
    assert len(SCENARIOS) == 47


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_sequence_agrees_with_the_real_loop(path: Path) -> None:
    scenario = _load(path)
    got = simulate(scenario["snapshot"]["items"], scenario["pending"]).to_dict()
    verdict = VERDICTS[path.stem] = judge(scenario["expected"], got)
    assert_strictly(scenario, got, verdict)


@pytest.mark.parametrize("path", SCENARIOS[:6], ids=lambda p: p.stem)
def test_simulate_leaves_a_loaded_cluster_as_it_was(path: Path) -> None:
    scenario = _load(path)
    cluster = load_cluster(scenario["snapshot"]["items"])
    before = {ni.name: [p.key for p in ni.pods] for ni in cluster.node_infos}
    first = simulate(cluster, scenario["pending"]).to_dict()
    after = {ni.name: [p.key for p in ni.pods] for ni in cluster.node_infos}
    assert after == before
    # And the same cluster answers the same way twice.
    assert simulate(cluster, scenario["pending"]).to_dict() == first
