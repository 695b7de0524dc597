"""Analyses stored before the explanation existed still display.

The fixtures were written by the code of that time (commit 09a2320: Result.to_dict(),
Result.details() and services._node_view on the demo snapshot), so they are the
shape the old three columns really held.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from scheduling.analyses.explanations import explanation_load
from scheduling.constants import AnalysisStatus
from scheduling.engine import CannotHelp, Criterion, HostSelection, Outcome, analyze
from scheduling.models import Analysis
from tests.scheduling.conftest import demo_objects
from tests.verdict import without_verdict

FIXTURES = Path(__file__).parent / "fixtures"

# The contract's fields added since: no sampling was computed then, no hypothetical
# class existed, and the default scheduler profile answered.
ADDED_SINCE = {
    "sampling": None,
    "hypothetical_classes": [],
    "scheduler_profile": {"name": "default-scheduler", "source": "default", "preset": "default"},
}


def _legacy(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"legacy_analysis_{name}.json").read_text())
    return data


def _stored(snapshot: Any, legacy: dict[str, Any]) -> Analysis:
    """A row as migration 0003 leaves an old one: the three columns under their names."""
    return Analysis.objects.create(
        snapshot=snapshot,
        pod=legacy["pod"],
        pod_key=legacy["result"]["pod"],
        status=AnalysisStatus.DONE,
        outcome=legacy["result"]["outcome"],
        explanation={k: legacy[k] for k in ("result", "details", "node_view")},
    )


def test_an_old_preemption_reads_as_the_contract_it_stored() -> None:
    legacy = _legacy("preempts")
    ex = explanation_load({k: legacy[k] for k in ("result", "details", "node_view")})
    assert ex is not None
    # None was computed, and an old analysis carried no classes of its own.
    assert ex.to_contract() == {**legacy["result"], **ADDED_SINCE}
    assert ex.outcome == Outcome.PREEMPTS
    # The victims' details came from node_view; their budgets by name.
    (victim,) = ex.victim_details
    assert victim.key == legacy["result"]["victims"][0]
    assert victim.priority_class == "cat-1" and victim.qos_class == "Guaranteed"
    assert [p.pdb for p in victim.pdbs] == legacy["node_view"]["victims"][0]["pdbs"]
    assert ex.chosen_node is not None and ex.chosen_node.node == legacy["result"]["node"]
    assert ex.chosen_node.pod_count_after == legacy["node_view"]["pod_count"]  # one out, one in
    assert all(c.eliminated_by in (None, *Criterion) for c in ex.candidates)


def test_an_old_analysis_reads_as_a_new_one_of_the_same_pod() -> None:
    # The engine has not changed its answer: what it says now of the same pod on the
    # same snapshot equals what the old row says, field for field where the old row
    # had the field.
    for name in ("preempts", "fits"):
        legacy = _legacy(name)
        old = explanation_load({k: legacy[k] for k in ("result", "details", "node_view")})
        new = analyze(demo_objects(), legacy["pod"]).explanation
        assert old is not None
        # Field for field, less the sampling the old row never had.
        assert old.to_contract() == {**new.to_contract(), "sampling": None}
        assert old.rejected_nodes == new.rejected_nodes
        assert old.scores == new.scores
        assert old.host_selection == new.host_selection
        assert old.num_nodes == new.num_nodes
        assert old.chosen_node == new.chosen_node
        assert [(v.key, v.requests, v.violates_pdb) for v in old.victim_details] == [
            (v.key, v.requests, v.violates_pdb) for v in new.victim_details
        ]


def test_an_old_preemption_displays(owner_client: Any, demo_snapshot: Any) -> None:
    legacy = _legacy("preempts")
    analysis = _stored(demo_snapshot, legacy)
    html = owner_client.get(f"/analyses/{analysis.pk}/").content.decode()
    node, victim = legacy["result"]["node"], legacy["result"]["victims"][0]
    assert f"Preempts 1 pod on {node}." in html
    assert f"It evicts {victim} (their PodDisruptionBudget" in html
    assert f"<code>{victim}</code>" in html
    assert 'class="seg-victim"' in html
    groups = [g for g in legacy["result"]["rejected_nodes"] if g["node"] != node]
    assert f'data-count="{len(groups)}"' in html


def test_an_old_fit_with_a_score_tie_displays_the_tie(
    owner_client: Any, demo_snapshot: Any
) -> None:
    legacy = _legacy("fits")
    analysis = _stored(demo_snapshot, legacy)
    ex = analysis.explained
    assert ex is not None and ex.host_selection == HostSelection.SCORED
    html = owner_client.get(f"/analyses/{analysis.pk}/").content.decode()
    assert "Fits on node-3, node-4 or node-5 (a tie kube-scheduler breaks at random)." in html
    assert "node-3, node-4 or node-5: tied at" in html
    assert all(r.cannot_help == CannotHelp.NOT_ATTEMPTED for r in ex.rejected_nodes)


def test_the_api_serves_an_old_analysis_in_the_contract_and_the_new_shape(
    owner_client: Any, demo_snapshot: Any
) -> None:
    legacy = _legacy("preempts")
    analysis = _stored(demo_snapshot, legacy)
    body = owner_client.get(f"/api/analyses/{analysis.pk}/").json()
    # The contract as stored, with the field added since: no sampling was computed then.
    assert without_verdict(body["result"]) == {**legacy["result"], **ADDED_SINCE}
    assert body["explanation"]["schema_version"] == 2
    assert body["explanation"]["victims"] == legacy["result"]["victims"]


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_the_three_columns_into_one(demo_snapshot: Any) -> None:
    legacy = _legacy("preempts")
    executor = MigrationExecutor(connection)
    before = [("scheduling", "0002_i10_lease")]
    after = executor.loader.graph.leaf_nodes()
    executor.migrate(before)
    try:
        old_apps = executor.loader.project_state(before).apps
        OldAnalysis = old_apps.get_model("scheduling", "Analysis")
        row = OldAnalysis.objects.create(
            snapshot_id=demo_snapshot.pk,
            pod=legacy["pod"],
            pod_key=legacy["result"]["pod"],
            status="done",
            outcome="preempts",
            result=legacy["result"],
            details=legacy["details"],
            node_view=legacy["node_view"],
        )
        executor = MigrationExecutor(connection)
        executor.migrate(after)
    finally:
        # Whatever happened, leave the database at the latest state for the next test.
        MigrationExecutor(connection).migrate(after)
    moved = Analysis.objects.get(pk=row.pk)
    assert moved.result is not None
    assert without_verdict(moved.result) == {**legacy["result"], **ADDED_SINCE}
    ex = moved.explained
    assert ex is not None and ex.victim_details[0].key == legacy["result"]["victims"][0]


def test_an_old_analysis_is_listed_with_its_node_and_victims(
    owner_client: Any, demo_snapshot: Any
) -> None:
    legacy = _legacy("preempts")
    _stored(demo_snapshot, legacy)
    html = owner_client.get(f"/snapshots/{demo_snapshot.pk}/analyses/").content.decode()
    node, victim = legacy["result"]["node"], legacy["result"]["victims"][0]
    assert f'<td class="name">{node}</td>' in html
    assert f'title="{victim}">1</td>' in html
