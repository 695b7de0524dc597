from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from clusters import models
from tests.clusters.builders import dump, make_node, make_pod, make_priority_class


def test_it_shows_the_form_with_drag_and_drop(owner_client: Any) -> None:
    body = owner_client.get("/snapshots/new/").content.decode()
    assert 'enctype="multipart/form-data"' in body
    assert 'id="dropzone"' in body
    assert "js/clusters-upload.js" in body
    assert 'name="files"' in body and "multiple" in body
    assert 'name="paste"' in body


def test_it_merges_several_files_into_one_snapshot(owner_client: Any, owner: Any) -> None:
    nodes = SimpleUploadedFile("nodes.json", dump([make_node("node-a")]))
    pods = SimpleUploadedFile("pods.json", dump([make_pod("web-1"), make_pod("web-2")]))
    classes = SimpleUploadedFile(
        "classes.yaml",
        b"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: gold}\nvalue: 500\n",
    )
    response = owner_client.post(
        "/snapshots/new/", {"name": "merged", "files": [nodes, pods, classes]}
    )
    snapshot = models.Snapshot.objects.get(owner=owner)
    assert response.status_code == 302 and response["Location"] == f"/snapshots/{snapshot.pk}/"
    assert snapshot.name == "merged" and snapshot.is_ready
    assert (snapshot.node_count, snapshot.pod_count) == (1, 2)
    assert [f["name"] for f in snapshot.source_files] == ["nodes.json", "pods.json", "classes.yaml"]
    assert models.PriorityClass.objects.filter(snapshot=snapshot, name="gold", value=500).exists()


def test_it_accepts_pasted_multi_document_yaml(owner_client: Any, owner: Any) -> None:
    paste = (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\n"
        "spec: {nodeName: n1, containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}\n"
        "status: {phase: Running}\n"
    )
    response = owner_client.post("/snapshots/new/", {"paste": paste})
    snapshot = models.Snapshot.objects.get(owner=owner)
    assert response.status_code == 302
    assert snapshot.name == "pasted"
    assert models.Pod.objects.get(snapshot=snapshot).cpu_request == 100


def test_it_refuses_an_empty_form(owner_client: Any) -> None:
    response = owner_client.post("/snapshots/new/", {"name": "nothing"})
    assert response.status_code == 400
    assert "Choose at least one file" in response.content.decode()
    assert not models.Snapshot.objects.exists()


def test_it_counts_other_kinds_as_skipped(owner_client: Any, owner: Any) -> None:
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}
    data = dump([make_priority_class("x", 1), make_node(), deployment, service, service])
    owner_client.post("/snapshots/new/", {"files": [SimpleUploadedFile("all.json", data)]})
    snapshot = models.Snapshot.objects.get(owner=owner)
    assert snapshot.skipped == {"Deployment": 1, "Service": 2}
    body = owner_client.get(f"/snapshots/{snapshot.pk}/").content.decode()
    assert "2 Service" in body and "1 Deployment" in body
