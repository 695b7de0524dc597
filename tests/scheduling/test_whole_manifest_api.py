"""A whole manifest over the API: chart output answered, its PDB joined to the snapshot,
its class used, the kinds skipped noted, a Secret's values nowhere in what is stored,
and the result's verdict the one the command's gates judge."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.db import connection
from rest_framework.test import APIClient

from scheduling import services
from scheduling.models import Analysis

pytestmark = pytest.mark.django_db

SECRET_VALUE = "s3cr3t-never-stored"


def _chart() -> str:
    return yaml.safe_dump_all(
        [
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": "web", "namespace": "default"},
                "stringData": {"password": SECRET_VALUE},
                "data": {"token": "c2VjcmV0LXRva2Vu"},
            },
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {}},
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "chart-critical"},
                "value": 40_000,
            },
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": "blue-pdb", "namespace": "default"},
                "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": "blue"}}},
            },
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {
                    "replicas": 2,
                    "selector": {"matchLabels": {"app": "web"}},
                    "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": {
                            "priorityClassName": "chart-critical",
                            "containers": [{"name": "c", "resources": {"requests": {"cpu": "3"}}}],
                        },
                    },
                },
            },
        ]
    )


def test_chart_output_is_answered_and_no_secret_value_is_stored(
    api: APIClient, demo_snapshot: Any, no_broker: Any
) -> None:
    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"manifest": _chart()}, format="json"
    )
    assert r.status_code == 202, r.content
    analysis = services.analysis_run(analysis_id=r.json()["id"])
    assert analysis.status == "done", analysis.error
    got = api.get(f"/api/analyses/{analysis.pk}/").json()
    result = got["result"]
    assert [p["priority"] for p in result["pods"]] == [40_000, 40_000]
    (budget,) = result["manifest"]["budgets"]
    assert budget["pdb"] == "default/blue-pdb" and budget["replaces"] is True
    assert budget["disruptions_allowed"] == 0  # maxUnavailable 0
    (report,) = [p for p in result["pdb_report"] if p["pdb"] == "default/blue-pdb"]
    assert report["disruptions_allowed"] == 0
    assert result["manifest"]["skipped"] == [
        {"kind": "Secret", "count": 1},
        {"kind": "Service", "count": 1},
    ]
    # The verdict: what the gates judge, from the same run.
    verdict = result["verdict"]
    victims = sorted({v for c in result["cycles"] for v in c.get("victims", [])})
    assert sorted(verdict["victims"]) == victims
    assert verdict["pending"] == [p["pod"] for p in result["pods"] if p["final"] == "pending"]
    assert sorted(verdict["pdbs_exceeded"]) == sorted(
        p["pdb"] for p in result["pdb_report"] if p["exceeded"]
    )
    # Nowhere stored: every column of every row of the analyses' table.
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {Analysis._meta.db_table}")
        stored = repr(cursor.fetchall())
    assert SECRET_VALUE not in stored and "c2VjcmV0LXRva2Vu" not in stored
    assert "Secret" in stored  # its kind and name are kept, for the note


def test_a_manifest_without_a_workload_says_what_it_held(
    api: APIClient, demo_snapshot: Any
) -> None:
    only = yaml.safe_dump_all(
        [
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}},
        ]
    )
    r = api.post(f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"manifest": only}, format="json")
    assert r.status_code == 400
    assert "holds 2 ConfigMaps and no Pod or workload" in r.json()["manifest"][0]


def test_the_advice_asks_the_question_with_the_manifests_budgets(
    api: APIClient, demo_snapshot: Any, no_broker: Any
) -> None:
    from unittest import mock

    from advice.services import advice_request, advice_run

    r = api.post(
        f"/api/snapshots/{demo_snapshot.pk}/analyses/", {"manifest": _chart()}, format="json"
    )
    analysis = services.analysis_run(analysis_id=r.json()["id"])
    result = analysis.result
    assert result is not None
    with mock.patch("advice.tasks.advice_run_task.delay"):
        advice = advice_request(analysis=analysis)
    done = advice_run(advice_id=advice.pk)
    assert done.status == "done", done.error
    baseline = done.answer["baseline"]
    # The advice's own run of the question is the analysis' run: the same victims and
    # the same budgets exceeded (without the chart's blue-pdb it evicts others).
    assert sorted(baseline["victims"]) == sorted(result["deleted_victims"])
    assert sorted(baseline["pdbs_exceeded"]) == sorted(result["verdict"]["pdbs_exceeded"])
