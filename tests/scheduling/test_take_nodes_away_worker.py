"""Taking nodes away end to end on a real Celery worker on Redis: POST, the worker runs
it (its progress and budget as the other kinds'), GET the engine's own answer; deleted
while queued, it never runs."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling.engine.take_nodes_away import TakeNodesAway, take_nodes_away
from tests.scheduling.conftest import make_snapshot
from tests.scheduling.nodes_away_scenario import LOW_2000, nodes_away_objects
from tests.scheduling.test_worker import _api, _wait_done

pytestmark = pytest.mark.worker


def test_the_worker_answers_what_draining_node_1_does(
    celery_worker_process: Any, owner: Any
) -> None:
    snapshot = make_snapshot(owner, nodes_away_objects(), name="three nodes")
    api = _api(owner)
    r = api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/",
        {"kind": "take-nodes-away", "nodes": ["node-1"], "force": True},
        format="json",
    )
    assert r.status_code == 202, r.content
    body = _wait_done(api, r.json()["id"])
    assert body["status"] == "done", body["error"]
    assert body["kind"] == "take-nodes-away" and body["outcome"] == "completes"
    expected = take_nodes_away(
        nodes_away_objects(), TakeNodesAway.from_dict({"nodes": ["node-1"], "force": True})
    ).to_dict()
    assert body["result"] == expected
    assert body["result"]["preemptions"][0]["victims"] == [LOW_2000]


def test_a_run_past_the_analysis_budget_fails_naming_the_limit(
    celery_worker_factory: Any, owner: Any
) -> None:
    celery_worker_factory(env={"PREEMPTLAB_ANALYSIS_SECONDS": "0"})
    snapshot = make_snapshot(owner, nodes_away_objects(), name="three nodes")
    api = _api(owner)
    r = api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/",
        {"kind": "take-nodes-away", "nodes": ["node-1"], "force": True},
        format="json",
    )
    body = _wait_done(api, r.json()["id"])
    assert body["status"] == "failed"
    assert "PREEMPTLAB_ANALYSIS_SECONDS" in body["error"]
