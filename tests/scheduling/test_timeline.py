"""Workload what-ifs that keep time: over the API, the form, the page and whatif.

The demo's pods set no terminationGracePeriodSeconds: every victim keeps its room for
the API server's default 30 s, so each preempting replica runs about 30 s after it
was submitted. The expected answers are the engine's own, computed here.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient

from clusters.selectors import snapshot_objects
from scheduling import services
from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine import load_cluster, simulate
from scheduling.engine.workload import admit, expand_workload
from scheduling.models import Analysis
from tests.verdict import without_verdict

from .test_workload import deployment

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_broker")]


def _timed(snapshot: Any, objects: list[Any]) -> dict[str, Any]:
    cluster = load_cluster(snapshot_objects(snapshot=snapshot))
    w = expand_workload(objects)
    admit(w, cluster.resolver)
    out = simulate(cluster, w.pods, timeline=True).to_dict()
    return json.loads(json.dumps(out, default=lambda e: e.value))


def test_the_api_runs_a_timed_rollout_and_returns_the_timeline(
    api: APIClient, demo_snapshot: Any
) -> None:
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/",
        {"objects": [deployment(3)], "timeline": True},
        format="json",
    )
    assert r.status_code == 202, r.content
    services.analysis_run(analysis_id=r.json()["id"])
    body = api.get(r.json()["url"]).json()
    assert body["status"] == "done" and body["timeline"] is True
    expected = _timed(demo_snapshot, [deployment(3)])
    assert without_verdict(body["result"]) == {"outcome": "all-run", **expected}
    assert {t["grace_seconds"] for t in expected["terminations"]} == {30}
    bound = [p for p in expected["pods"] if p["final"] == "bound"]
    # Each replica waited for its victims' 30 s.
    assert bound and all(p["bound_at"] - p["arrived_at"] >= 30 for p in bound)


def test_without_timeline_the_contract_is_as_it_was(api: APIClient, demo_snapshot: Any) -> None:
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/",
        {"objects": [deployment(2)]},
        format="json",
    )
    a = services.analysis_run(analysis_id=r.json()["id"])
    assert a.timeline is False
    assert "timeline" not in a.result and "terminations" not in a.result
    assert all("at" not in c for c in a.result["cycles"])


def test_a_single_pod_with_timeline_runs_as_a_workload(
    api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/",
        {"pod": cat3_pod, "timeline": True},
        format="json",
    )
    a = Analysis.objects.get(pk=r.json()["id"])
    assert a.kind == "workload" and a.timeline


def test_the_page_says_when_each_pod_runs_and_draws_the_clock(
    owner_client: Any, demo_snapshot: Any
) -> None:
    a = services.analysis_create_workload(
        snapshot=demo_snapshot, objects=[deployment(3)], timeline=True
    )
    a = services.analysis_run(analysis_id=a.pk)
    html = owner_client.get(a.get_absolute_url()).content.decode()
    assert 'id="timeline-svg"' in html
    run = a.run
    assert run is not None and run.timeline is not None
    for t in run.terminations:
        assert f'data-victim="{t.pod}"' in html
    assert "run 30 s after they were submitted, once their victim" in html
    assert "The same run on a clock" in html


def test_a_second_workload_arrives_later_from_the_form(
    owner_client: Any, demo_snapshot: Any
) -> None:
    later = deployment(1)
    later["metadata"]["name"] = "urgent"
    later["spec"]["selector"]["matchLabels"] = {"app": "urgent"}
    later["spec"]["template"]["metadata"]["labels"] = {"app": "urgent"}
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {
            "mode": "manifest",
            "manifest": yaml.safe_dump(deployment(2)),
            "later": yaml.safe_dump(later),
            "later_seconds": "10",
        },
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    a = Analysis.objects.latest("id")
    assert a.timeline
    arrivals = {
        p["metadata"]["name"]: (p["metadata"].get("annotations") or {}).get(
            "preemptlab.io/arrival-seconds"
        )
        for p in a.pod["pods"]
    }
    assert [v for k, v in arrivals.items() if k.startswith("urgent-")] == ["10"]
    assert all(v is None for k, v in arrivals.items() if k.startswith("web-"))
    a = services.analysis_run(analysis_id=a.pk)
    run = a.run
    assert run is not None
    urgent = next(p for p in run.pods if p.pod.startswith("default/urgent-"))
    assert urgent.arrived_at is not None and 10 <= urgent.arrived_at < 11


def test_a_later_workload_needs_its_seconds(owner_client: Any, demo_snapshot: Any) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {
            "mode": "manifest",
            "manifest": yaml.safe_dump(deployment(2)),
            "later": yaml.safe_dump(deployment(1)),
        },
    )
    assert r.status_code == 400  # the form again, with what to fix
    assert "Say how many seconds after the first workload" in r.content.decode()
    assert not Analysis.objects.exists()


def test_whatif_timeline_prints_when_pods_run(tmp_path: Path, demo_snapshot: Any) -> None:
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"kind": "List", "items": snapshot_objects(snapshot=demo_snapshot)}))
    work = tmp_path / "web.yaml"
    work.write_text(yaml.safe_dump(deployment(3)))
    out = io.StringIO()
    call_command("whatif", str(snap), str(work), "--timeline", "--format", "json", stdout=out)
    assert without_verdict(json.loads(out.getvalue())) == {
        "outcome": "all-run",
        **_timed(demo_snapshot, [deployment(3)]),
    }
    out = io.StringIO()
    call_command("whatif", str(snap), str(work), "--timeline", stdout=out)
    assert "run 30 s after they were submitted" in out.getvalue()


def test_a_run_stored_before_the_timeline_still_reads(demo_snapshot: Any) -> None:
    a = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=demo_snapshot, objects=[deployment(2)]
        ).pk
    )
    stored = dict(a.simulation)
    run = WorkloadRun.from_json(stored)
    assert run.timeline is None and run.terminations == []
    assert all(c.at is None for c in run.cycles)


def _victim_and_preemptor(grace: int, arrival: str = "2") -> list[dict[str, Any]]:
    """``victim`` (cat-1) lands on node-3; ``urgent`` (cat-3, pinned to node-3) arrives later
    and preempts it, then waits out its grace period."""
    victim = deployment(1, terminationGracePeriodSeconds=grace, priorityClassName="cat-1")
    victim["metadata"]["name"] = "victim"
    victim["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "300m"}
    urgent = deployment(1, nodeSelector={"kubernetes.io/hostname": "node-3"})
    urgent["metadata"] |= {
        "name": "urgent",
        "annotations": {"preemptlab.io/arrival-seconds": arrival},
    }
    urgent["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "400m"}
    return [victim, urgent]


def test_a_grace_period_of_2_to_the_62_is_answered_and_shown(
    api: APIClient, owner_client: Any, demo_snapshot: Any
) -> None:
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/",
        {"objects": _victim_and_preemptor(2**62), "timeline": True},
        format="json",
    )
    assert r.status_code == 202, r.content
    a = services.analysis_run(analysis_id=r.json()["id"])
    assert a.status == "done", a.error
    assert a.result["stop_reason"] == "cycle-limit"
    assert [t["grace_seconds"] for t in a.result["terminations"]] == [2**62]
    assert a.result["timeline"]["duration"] <= 7 * 24 * 3600
    page = owner_client.get(a.get_absolute_url())
    assert page.status_code == 200 and 'id="timeline-svg"' in page.content.decode()


def test_an_arrival_past_seven_days_is_refused_naming_the_object(
    api: APIClient, demo_snapshot: Any
) -> None:
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/",
        {"objects": _victim_and_preemptor(30, arrival="999999999"), "timeline": True},
        format="json",
    )
    assert r.status_code == 400, r.content
    text = r.content.decode()
    assert "Deployment default/urgent" in text and "preemptlab.io/arrival-seconds" in text
    assert "604800" in text
    assert not Analysis.objects.exists()
