"""The served OpenAPI schema is true: schemathesis against a real server and database.

For every operation of /api/schema/, a bounded number of generated requests,
valid ones and invalid ones (each generation mode), are sent to the live server with a real token; each answer
must not be a server error and must match the schema (documented status code,
content type, body shape).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from clusters import services
from scheduling.models import Analysis, ShareLink
from tests.clusters.builders import dump, small_cluster

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = 25
CHECKS = (
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
)


@pytest.mark.django_db(transaction=True)
def test_the_api_answers_as_its_schema_says(live_server: Any, owner: Any) -> None:
    token = Token.objects.create(user=owner).key
    snapshot = services.snapshot_create(
        owner=owner,
        name="small",
        files=[services.UploadedFile(name="small.json", data=dump(small_cluster()))],
    )
    analysis = Analysis.objects.create(
        snapshot=snapshot, pod={"kind": "Pod"}, pod_key="default/p", status="queued"
    )
    link = ShareLink.objects.create(analysis=analysis)
    # Generated ids rarely exist: every operation is also called on the owner's real objects.
    real = {
        "id": snapshot.pk,
        "snapshot_id": snapshot.pk,
        "token": link.token,
        "preemption_id": snapshot.pk,
    }
    headers = {"Authorization": f"Token {token}"}
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/", headers=headers)
    failures: list[str] = []
    operations = real_calls = 0
    for result, mode in itertools.product(schema.get_all_operations(), list(GenerationMode)):
        operation = result.ok()
        operations += 1

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def run(case: Any) -> None:
            response = case.call(base_url=live_server.url, headers=headers)
            try:
                case.validate_response(response, checks=CHECKS)
            except BaseException as exc:
                failures.append(f"{case.method} {case.formatted_path}: {str(exc)[:600]}")

        try:
            run()
        except Unsatisfiable:
            # An operation that takes nothing (GET /api/scheduler-presets/) has no invalid
            # request to make; its valid ones were sent in the positive mode.
            assert mode == GenerationMode.NEGATIVE, operation.path
        names = {p.name for p in operation.path_parameters}
        if names and operation.method.upper() in ("GET", "POST"):
            params = {name: real[name] for name in names}
            if "analyses/{id}" in operation.path:
                params["id"] = analysis.pk
            case = operation.Case(path_parameters=params)
            response = case.call(base_url=live_server.url, headers=headers)
            try:
                case.validate_response(response, checks=CHECKS)
            except BaseException as exc:
                failures.append(f"{case.method} {case.formatted_path}: {str(exc)[:600]}")
            real_calls += 1
    assert operations >= 10 and real_calls >= 8
    report = ROOT / "var" / "schemathesis-failures.txt"
    report.write_text("\n\n".join(failures))
    assert not failures, f"{len(failures)} failures (all in {report}):\n" + "\n\n".join(
        failures[:8]
    )


@pytest.mark.django_db
def test_the_schema_names_a_pods_and_a_workloads_outcomes(owner: Any) -> None:
    """Both sets of words, where an analysis, its workload result and the lists' filter
    carry them."""
    client = APIClient()
    client.force_authenticate(owner)
    r = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200
    schema = json.loads(r.content)
    pod, workload = {"fits", "preempts", "unschedulable"}, {"all-run", "some-run", "none-run"}
    away = {"completes", "blocked", "stopped"}  # taking nodes away: the verdict
    schemas = schema["components"]["schemas"]
    assert set(schemas["OutcomeEnum"]["enum"]) == pod | workload | away
    words = schemas["Analysis"]["properties"]["outcome"]
    assert {"$ref": "#/components/schemas/OutcomeEnum"} in words["oneOf"]
    assert "some-run" in words["description"] and "preempts" in words["description"]
    (result,) = [
        s
        for s in schemas["AnalysisDetail"]["properties"]["result"]["oneOf"]
        if s["title"].startswith("Workload contract")
    ]
    assert set(result["properties"]["outcome"]["enum"]) == workload
    assert "outcome" in result["required"]
    op = schema["paths"]["/api/snapshots/{snapshot_id}/analyses/"]["get"]
    (outcome,) = [p for p in op["parameters"] if p["name"] == "outcome"]
    assert set(outcome["schema"]["enum"]) == pod | workload | {"workload"} | away
    assert "400" in op["responses"]


def test_the_schema_is_generated_without_a_warning() -> None:
    """An enum whose name moves with the fields around it (a hash suffix) or a view whose
    model the generator has to guess is a warning; the schema has none, so scripts can
    rely on component names such as KindEnum and AdviceKindEnum."""
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null")
