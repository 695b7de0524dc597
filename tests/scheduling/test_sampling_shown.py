"""kube-scheduler's sampled dry run, shown: the share of random offsets leading to each
node in the API's result and on the page, the preemption arguments set per analysis,
and one given offset answered as the real dry run."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from scheduling import services
from scheduling.engine import analyze, load_cluster
from scheduling.engine.config import EngineConfig
from tests.engine.test_sampling import _cluster, _pod

from .conftest import make_snapshot

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_broker")]

ARGS = {"min_candidate_nodes_percentage": 10, "min_candidate_nodes_absolute": 2}


@pytest.fixture
def snapshot(owner: Any) -> Any:
    return make_snapshot(owner, _cluster(5, nodes=12)["items"], name="twelve")


def _post(api: APIClient, snapshot: Any, **extra: Any) -> Any:
    return api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/", {"pod": _pod(), **extra}, format="json"
    )


def test_the_api_gives_the_shares_with_the_arguments_asked(
    api: APIClient, owner_client: Any, snapshot: Any
) -> None:
    r = _post(api, snapshot, **ARGS)
    assert r.status_code == 202, r.content
    a = services.analysis_run(analysis_id=r.json()["id"])
    body = api.get(r.json()["url"]).json()
    assert body["preemption_args"] == ARGS
    expected = analyze(load_cluster(_cluster(5, nodes=12)), _pod(), EngineConfig(**ARGS))
    sampling = body["result"]["sampling"]
    assert sampling == expected.to_dict()["sampling"]
    assert sampling["window"] == 2 and len(sampling["nominated"]) > 1
    html = owner_client.get(a.get_absolute_url()).content.decode()
    top = sampling["nominated"][0]
    assert "dry-runs preemption on only about 2 of the 12 nodes" in html
    assert f"{top['node']} for {top['share'] * 100:.0f}%" in html


def test_one_offset_answers_as_the_real_dry_run(api: APIClient, snapshot: Any) -> None:
    r = _post(api, snapshot, **ARGS, preemption_offset=7)
    a = services.analysis_run(analysis_id=r.json()["id"])
    expected = analyze(
        load_cluster(_cluster(5, nodes=12)), _pod(), EngineConfig(**ARGS, preemption_offset=7)
    ).to_dict()
    assert a.result["node"] == expected["node"]
    assert a.result["sampling"] == {
        "potential_nodes": 12,
        "window": 2,
        "nominated": [{"node": expected["node"], "share": 1.0}],
    }
    assert len(a.result["candidates"]) < 12


def test_both_arguments_zero_is_refused(api: APIClient, snapshot: Any) -> None:
    r = _post(api, snapshot, min_candidate_nodes_percentage=0, min_candidate_nodes_absolute=0)
    assert r.status_code == 400
    assert "cannot both be 0" in r.json()["min_candidate_nodes_absolute"][0]


def test_whatif_takes_the_arguments_and_the_offset(tmp_path: Path) -> None:
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(_cluster(5, nodes=12)))
    pod = tmp_path / "pod.json"
    pod.write_text(json.dumps(_pod()))
    out = io.StringIO()
    call_command(
        "whatif",
        str(snap),
        str(pod),
        "--format",
        "json",
        "--min-candidate-nodes-percentage",
        "10",
        "--min-candidate-nodes-absolute",
        "2",
        "--preemption-offset",
        "7",
        stdout=out,
    )
    got = json.loads(out.getvalue())
    expected = analyze(
        load_cluster(_cluster(5, nodes=12)), _pod(), EngineConfig(**ARGS, preemption_offset=7)
    ).to_dict()
    assert got["sampling"] == expected["sampling"] and got["node"] == expected["node"]
    with pytest.raises(CommandError, match="cannot both be 0"):
        call_command(
            "whatif",
            str(snap),
            str(pod),
            "--min-candidate-nodes-percentage",
            "0",
            "--min-candidate-nodes-absolute",
            "0",
            stdout=io.StringIO(),
        )
