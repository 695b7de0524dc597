"""Every analysis is bounded (wall-clock and cycles of a run, size of a stored result)
on every pool, and one user's unfinished analyses are capped so another's what-if
never waits behind more than that many."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from clusters.demo import demo_cat3_pod
from clusters.services import snapshot_load_demo
from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis
from tests.clusters.builders import make_deployment

pytestmark = pytest.mark.django_db


def _deployment(replicas: int) -> dict[str, Any]:
    return make_deployment("orange", demo_cat3_pod()["spec"], replicas=replicas)


def test_a_run_beyond_its_wall_clock_budget_ends_failed_naming_the_limit(
    demo_snapshot: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_ANALYSIS_SECONDS = 0.0  # spent before the first cycle ends
    analysis = services.analysis_create_workload(snapshot=demo_snapshot, objects=[_deployment(20)])
    done = services.analysis_run(analysis_id=analysis.pk)
    assert done.status == AnalysisStatus.FAILED
    assert "stopped after 0 s, at scheduling cycle 1" in done.error
    assert "PREEMPTLAB_ANALYSIS_SECONDS" in done.error
    assert done.lease_task_id == ""  # the worker is free for the next one


def test_a_run_beyond_its_cycle_budget_ends_done_with_the_engines_stop_reason(
    demo_snapshot: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_ANALYSIS_MAX_CYCLES = 3
    analysis = services.analysis_create_workload(snapshot=demo_snapshot, objects=[_deployment(20)])
    done = services.analysis_run(analysis_id=analysis.pk)
    assert done.status == AnalysisStatus.DONE
    assert done.simulation["contract"]["stop_reason"] == "cycle-limit"
    assert len(done.simulation["contract"]["cycles"]) == 3


def test_a_result_beyond_the_stored_size_is_refused_naming_the_limit(
    demo_snapshot: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_MAX_RESULT_BYTES = 1000
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod())
    done = services.analysis_run(analysis_id=analysis.pk)
    assert done.status == AnalysisStatus.FAILED
    assert "PREEMPTLAB_MAX_RESULT_BYTES" in done.error and done.explanation is None


def test_one_user_beyond_the_unfinished_limit_waits_and_another_does_not(
    owner: Any, stranger: Any, demo_snapshot: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_UNFINISHED_PER_USER = 2
    api = APIClient()
    api.force_authenticate(owner)
    url = f"/api/snapshots/{demo_snapshot.pk}/analyses/"
    codes = [api.post(url, {"pod": demo_cat3_pod()}, format="json").status_code for _ in range(3)]
    assert codes == [202, 202, 429]
    r = api.post(url, {"pod": demo_cat3_pod()}, format="json")
    assert int(r["Retry-After"]) > 0 and "PREEMPTLAB_UNFINISHED_PER_USER" in r.json()["detail"]
    assert Analysis.objects.count() == 2

    # The page says the same, with a 429.
    page = Client()
    page.force_login(owner)
    r = page.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {"mode": "manifest", "manifest": json.dumps(demo_cat3_pod())},
    )
    assert r.status_code == 429 and 'id="too-many"' in r.content.decode()

    # Another user is not held up by them.
    theirs = snapshot_load_demo(owner=stranger)
    api.force_authenticate(stranger)
    assert (
        api.post(
            f"/api/snapshots/{theirs.pk}/analyses/", {"pod": demo_cat3_pod()}, format="json"
        ).status_code
        == 202
    )

    # Once one of the owner's ends, the owner may submit again.
    first = Analysis.objects.filter(snapshot=demo_snapshot).first()
    services.analysis_run(analysis_id=first.pk)
    api.force_authenticate(owner)
    assert api.post(url, {"pod": demo_cat3_pod()}, format="json").status_code == 202
