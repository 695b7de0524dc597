"""Every conformance scenario, submitted through the API, stores exactly the engine's answer.

The snapshot goes through the snapshots app's ingest (parse, scrub, store) and
the pod through POST /api/snapshots/{id}/analyses/; the stored result is read
back with GET /api/analyses/{id}/ and compared with analyze() run directly on
the scenario's own objects. The analyses run in-process through the service
here; test_worker.py sends a handful through a real worker.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from rest_framework.test import APIClient

from scheduling import services
from scheduling.engine import InvalidInput, analyze
from tests.verdict import without_verdict

ROOT = Path(__file__).resolve().parents[2]
# The repository's own vectors, else the shared ones beside the repository (../shared).
VECTOR_DIRS = [
    ROOT / "tests" / "conformance" / "vectors",
    ROOT.parent / "shared" / "conformance" / "vectors",
]
VECTOR_DIR = next((d for d in VECTOR_DIRS if d.is_dir() and any(d.glob("*.json"))), VECTOR_DIRS[0])
VECTORS = sorted(VECTOR_DIR.glob("*.json"))


def load_vector(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def submit(api: APIClient, snapshot_id: int, pod: dict[str, Any]) -> Any:
    return api.post(f"/api/snapshots/{snapshot_id}/analyses/", {"pod": pod}, format="json")


def test_there_are_scenarios_to_run() -> None:
    assert len(VECTORS) >= 100


@pytest.mark.django_db
@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_the_stored_result_is_the_engines(path: Path, owner: Any) -> None:
    from tests.scheduling.conftest import make_snapshot

    vector = load_vector(path)
    snapshot = make_snapshot(owner, vector["snapshot"], name=vector["id"])
    api = APIClient()
    api.force_authenticate(owner)
    try:
        expected = analyze(vector["snapshot"], vector["preemptor"]).to_dict()
    except InvalidInput as e:
        with mock.patch("scheduling.tasks.analysis_run_task.delay"):
            r = submit(api, snapshot.pk, vector["preemptor"])
        assert r.status_code == 400, r.content
        assert str(e).split(": ")[-1] in r.json()["pod"][0]
        return
    with mock.patch("scheduling.tasks.analysis_run_task.delay") as delay:
        r = submit(api, snapshot.pk, vector["preemptor"])
    assert r.status_code == 202, r.content
    analysis_id = r.json()["id"]
    services.analysis_run(analysis_id=analysis_id)
    body = api.get(f"/api/analyses/{analysis_id}/").json()
    assert body["status"] == "done", body["error"]
    assert without_verdict(body["result"]) == expected
    assert body["result"]["outcome"] == vector["expected"]["outcome"]
    assert delay.call_count == 0  # sent on commit only, and the test's transaction never commits
