from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from clusters import models
from tests.clusters.builders import as_list, dump, make_node, make_pod, small_cluster


@pytest.fixture
def api(owner: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(owner)
    return client


def test_it_creates_from_multipart_files(api: APIClient) -> None:
    files = [
        SimpleUploadedFile("nodes.json", dump([make_node("node-a")])),
        SimpleUploadedFile("pods.json", dump([make_pod("web-1")])),
    ]
    response = api.post("/api/snapshots/", {"name": "multi", "files": files}, format="multipart")
    assert response.status_code == 201, response.content
    body = response.json()
    snapshot = models.Snapshot.objects.get()
    assert body["id"] == snapshot.pk
    assert body["url"] == f"http://testserver/api/snapshots/{snapshot.pk}/"
    assert response["Location"] == body["url"]
    assert body["status"] == "ready"
    assert body["counts"] == {"nodes": 1, "pods": 1, "pdbs": 0, "priority_classes": 2}
    assert [f["name"] for f in body["source_files"]] == ["nodes.json", "pods.json"]


def test_it_creates_from_a_json_body(api: APIClient) -> None:
    response = api.post(
        "/api/snapshots/", {"name": "json", "objects": as_list(small_cluster())}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["counts"]["pods"] == 4
    # A bare list of objects works too.
    response = api.post("/api/snapshots/", {"objects": small_cluster()}, format="json")
    assert response.status_code == 201


def test_a_large_upload_answers_202_while_ingesting(
    api: APIClient, settings: Any, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    from clusters import tasks

    queued: list[int] = []
    monkeypatch.setattr(tasks.snapshot_ingest_task, "delay", lambda pk: queued.append(pk))
    settings.SNAPSHOT_ASYNC_INGEST_BYTES = 100
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/snapshots/", {"objects": small_cluster()}, format="json")
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "ingesting"
    assert queued == [body["id"]]
    assert models.SnapshotUpload.objects.filter(snapshot_id=body["id"]).count() == 1


def test_invalid_input_answers_400_naming_the_item(api: APIClient) -> None:
    response = api.post(
        "/api/snapshots/", {"objects": [make_node(), make_pod("web-1", cpu="many")]}, format="json"
    )
    assert response.status_code == 400
    assert (
        "items[1] Pod default/web-1: spec.containers[0].resources.requests.cpu"
        in response.json()["detail"]
    )
    assert not models.Snapshot.objects.exists()


def test_missing_fields_answer_400(api: APIClient) -> None:
    assert api.post("/api/snapshots/", {"name": "x"}, format="json").status_code == 400
    assert api.post("/api/snapshots/", {"name": "x"}, format="multipart").status_code == 400


def test_it_lists_only_own_snapshots_paginated(
    api: APIClient, snapshot: Any, stranger: Any
) -> None:
    from clusters import services

    services.snapshot_create(
        owner=stranger,
        name="theirs",
        files=[services.UploadedFile(name="a.json", data=dump(small_cluster()))],
    )
    body = api.get("/api/snapshots/").json()
    assert body["count"] == 1
    assert [s["name"] for s in body["results"]] == ["small"]
    assert {"next", "previous"} <= body.keys()


def test_it_retrieves_status_counts_and_warnings(api: APIClient, owner: Any) -> None:
    from clusters import services

    s = services.snapshot_create(
        owner=owner,
        name="nodefault",
        files=[services.UploadedFile(name="a.json", data=dump([make_node(), make_pod()]))],
    )
    body = api.get(f"/api/snapshots/{s.pk}/").json()
    assert body["status"] == "ready" and body["error"] == ""
    assert body["counts"]["nodes"] == 1
    assert any("no globalDefault" in w for w in body["warnings"])
    assert body["links"]["pods"].endswith(f"/api/snapshots/{s.pk}/pods/")


def test_it_deletes(api: APIClient, snapshot: Any) -> None:
    assert api.delete(f"/api/snapshots/{snapshot.pk}/").status_code == 204
    assert not models.Snapshot.objects.exists() and not models.Pod.objects.exists()
    assert api.get(f"/api/snapshots/{snapshot.pk}/").status_code == 404


def test_it_lists_and_filters_pods(api: APIClient, snapshot: Any) -> None:
    url = f"/api/snapshots/{snapshot.pk}/pods/"
    body = api.get(url).json()
    assert body["count"] == 4
    db = next(p for p in body["results"] if p["name"] == "db-1")
    assert (
        db["priority"] == 1000 and db["priority_class"] == "high" and db["qos_class"] == "Burstable"
    )
    assert db["requests"] == {"cpu": 500, "memory": 256 * 2**20}
    assert [p["name"] for p in api.get(url, {"namespace": "data"}).json()["results"]] == ["db-1"]
    assert [p["name"] for p in api.get(url, {"node": "node-b"}).json()["results"]] == ["web-2"]
    assert [p["name"] for p in api.get(url, {"phase": "Pending"}).json()["results"]] == ["job-1"]
    assert api.get(url, {"priority_class": "low"}).json()["count"] == 3
    assert api.get(url, {"priority_min": 500}).json()["count"] == 1


def test_it_paginates_rows(api: APIClient, owner: Any) -> None:
    from clusters import services

    s = services.snapshot_create(
        owner=owner,
        name="many",
        files=[
            services.UploadedFile(
                name="a.json",
                data=dump([make_node(), *[make_pod(f"p-{i:03d}") for i in range(120)]]),
            )
        ],
    )
    first = api.get(f"/api/snapshots/{s.pk}/pods/").json()
    assert first["count"] == 120 and len(first["results"]) == 50
    third = api.get(first["next"].replace("http://testserver", "")).json()
    third = api.get(third["next"].replace("http://testserver", "")).json()
    assert third["results"][0]["name"] == "p-100" and third["next"] is None


def test_it_lists_nodes_pdbs_and_priorityclasses(api: APIClient, snapshot: Any) -> None:
    nodes = api.get(f"/api/snapshots/{snapshot.pk}/nodes/").json()["results"]
    node_a = next(n for n in nodes if n["name"] == "node-a")
    assert node_a["allocatable"]["cpu"] == 4000
    assert node_a["requested"]["cpu"] == 1000 and node_a["pod_count"] == 2
    assert api.get(f"/api/snapshots/{snapshot.pk}/nodes/", {"name": "node-b"}).json()["count"] == 1
    pdb = api.get(f"/api/snapshots/{snapshot.pk}/pdbs/").json()["results"][0]
    assert pdb["selector_text"] == "app=web" and pdb["matched_pod_count"] == 2
    assert pdb["matched_pods"] == ["web-1", "web-2"] and pdb["disruptions_allowed"] == 1
    classes = api.get(f"/api/snapshots/{snapshot.pk}/priorityclasses/").json()["results"]
    assert [c["name"] for c in classes] == [
        "system-node-critical",
        "system-cluster-critical",
        "high",
        "low",
    ]
    assert [c["builtin"] for c in classes] == [True, True, False, False]


def test_token_authentication_works(client: Any, owner: Any, snapshot: Any) -> None:
    call_command("drf_create_token", "owner", verbosity=0)
    from rest_framework.authtoken.models import Token

    key = Token.objects.get(user=owner).key
    response = client.get(f"/api/snapshots/{snapshot.pk}/", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 200
    assert (
        client.get(f"/api/snapshots/{snapshot.pk}/", HTTP_AUTHORIZATION="Token nope").status_code
        == 401
    )


def test_the_schema_documents_every_field(client: Any, owner: Any) -> None:
    client.force_login(owner)
    schema = client.get("/api/schema/", {"format": "json"}).json()
    paths = schema["paths"]
    for path in [
        "/api/snapshots/",
        "/api/snapshots/{id}/",
        "/api/snapshots/{id}/nodes/",
        "/api/snapshots/{id}/pods/",
        "/api/snapshots/{id}/pdbs/",
        "/api/snapshots/{id}/priorityclasses/",
    ]:
        assert path in paths, path
    assert {"201", "202", "400", "413"} <= paths["/api/snapshots/"]["post"]["responses"].keys()
    assert {"multipart/form-data", "application/json"} <= paths["/api/snapshots/"]["post"][
        "requestBody"
    ]["content"].keys()
    pod_params = {p["name"] for p in paths["/api/snapshots/{id}/pods/"]["get"]["parameters"]}
    assert {"namespace", "node", "priority_class", "phase", "page"} <= pod_params
    components = schema["components"]["schemas"]
    undocumented = []
    for name in [
        "Snapshot",
        "Node",
        "Pod",
        "PodDisruptionBudget",
        "PriorityClass",
        "SnapshotMultipartCreate",
        "SnapshotJSONCreate",
        "Counts",
        "SourceFile",
    ]:
        for field, spec in components[name]["properties"].items():
            if not spec.get("description") and not any(
                s.get("description") for s in spec.get("allOf", [])
            ):
                undocumented.append(f"{name}.{field}")
    assert undocumented == []
