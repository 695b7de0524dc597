"""Refused uploads say what is wrong in plain words, once, and lose nothing the user gave."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from clusters import models
from tests.clusters.builders import dump, make_node, make_pod

pytestmark = pytest.mark.django_db

DEPLOYMENT = b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n"


def _errors(body: str) -> list[str]:
    alert = re.findall(r'role="alert">(.*?)</div>', body, re.S)
    field = re.findall(r'<ul class="errorlist"[^>]*>(.*?)</ul>', body, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", " ", e)).strip() for e in alert + field]


def _post(client: Any, **data: Any) -> tuple[int, str]:
    response = client.post("/snapshots/new/", {"name": "", "paste": "", **data})
    return response.status_code, response.content.decode()


def test_a_deployment_is_not_a_snapshot(owner_client: Any) -> None:
    status, body = _post(owner_client, files=SimpleUploadedFile("deploy.yaml", DEPLOYMENT))
    assert status == 400
    assert _errors(body) == [
        "Not a snapshot of a cluster: no Node and no Pod in the upload (it holds 1 Deployment). "
        "Upload what kubectl get nodes,pods,pdb,priorityclasses -A -o json prints. To ask where "
        "a Deployment's pods would go, open a snapshot and use “What if…” with the pod template."
    ]
    assert not models.Snapshot.objects.exists()


def test_a_paste_that_is_not_a_kubernetes_object_says_so(owner_client: Any) -> None:
    status, body = _post(owner_client, paste="hello: world")
    assert status == 400
    (error,) = _errors(body)
    assert "pasted: is not a Kubernetes object: it has no kind (its keys: hello)" in error
    assert "items[0]" not in error
    assert "hello: world</textarea>" in body  # the paste is still there to fix


def test_an_empty_file_gets_one_message(owner_client: Any) -> None:
    status, body = _post(owner_client, files=SimpleUploadedFile("empty.json", b""))
    assert status == 400
    assert _errors(body) == [
        "The chosen file is empty. Choose the file kubectl wrote "
        "(kubectl get nodes,pods,pdb,priorityclasses -A -o json > snapshot.json)."
    ]


def test_chosen_files_are_kept_after_an_error(owner_client: Any, owner: Any) -> None:
    nodes = SimpleUploadedFile("nodes.json", dump([make_node("node-a")]))
    bad = SimpleUploadedFile("pods.json", dump([make_pod("a", memory="lots")]))
    status, body = _post(owner_client, name="prod", files=[nodes, bad])
    assert status == 400
    assert "pods.json: items[0] Pod default/a" in _errors(body)[0]
    kept = dict(
        (name, ref)
        for ref, name in re.findall(
            r'name="kept" value="([^"]+)" checked> <code>([^<]+)</code>', body
        )
    )
    assert set(kept) == {"nodes.json", "pods.json"}
    assert 'value="prod"' in body

    # The next try: the kept nodes file (the bad one unticked) and a good pods file.
    good = SimpleUploadedFile("pods.json", dump([make_pod("a", node="node-a")]))
    response = owner_client.post(
        "/snapshots/new/",
        {"name": "prod", "paste": "", "kept": [kept["nodes.json"]], "files": [good]},
    )
    assert response.status_code == 302
    snapshot = models.Snapshot.objects.get(owner=owner, name="prod")
    assert (snapshot.node_count, snapshot.pod_count) == (1, 1)
    assert [f["name"] for f in snapshot.source_files] == ["nodes.json", "pods.json"]


def test_kept_files_are_the_owners_only(owner_client: Any, client: Any, stranger: Any) -> None:
    nodes = SimpleUploadedFile("nodes.json", dump([make_node("node-a")]))
    _, body = _post(owner_client, files=[nodes], paste="hello: world")
    (ref,) = re.findall(r'name="kept" value="([^"]+)"', body)
    client.force_login(stranger)
    status, body = _post(client, kept=[ref])
    assert status == 400
    assert _errors(body) == ["Choose at least one file, or paste YAML or JSON."]


def test_the_api_refuses_a_deployment_too(owner: Any) -> None:
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(owner)
    r = api.post(
        "/api/snapshots/",
        {"name": "d", "files": [SimpleUploadedFile("deploy.yaml", DEPLOYMENT)]},
        format="multipart",
    )
    assert r.status_code == 400
    assert (
        "Not a snapshot of a cluster: no Node and no Pod in the upload (it holds 1 Deployment)"
        in str(r.json())
    )
    assert not models.Snapshot.objects.exists()
