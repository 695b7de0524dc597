"""Refused uploads say what is wrong in plain words, once, and lose nothing the user gave."""

from __future__ import annotations

import html
import re
from pathlib import Path
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


def test_a_refused_upload_names_its_files_and_keeps_none_of_them(
    owner_client: Any, owner: Any, settings: Any
) -> None:
    """A refused file was never scrubbed: it may hold a Secret's data, env values, a
    last-applied annotation. None of it is written anywhere; the page names the files
    so the next try picks them again."""
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db", "namespace": "shop"},
        "stringData": {"password": "hunter2-very-secret"},
    }
    nodes = SimpleUploadedFile("nodes.json", dump([make_node("node-a"), secret]))
    bad = SimpleUploadedFile("pods.json", dump([make_pod("a", memory="lots")]))
    status, body = _post(owner_client, name="prod", files=[nodes, bad])
    assert status == 400
    assert "pods.json: items[0] Pod default/a" in _errors(body)[0]
    assert re.findall(r"<li><code>([^<]+)</code>", body) == ["nodes.json", "pods.json"]
    assert 'value="prod"' in body
    media = Path(settings.MEDIA_ROOT)
    stored = [p for p in media.rglob("*") if p.is_file()] if media.exists() else []
    assert not any(b"hunter2" in p.read_bytes() for p in stored)
    assert not models.Snapshot.objects.exists() and not models.SnapshotUpload.objects.exists()


def test_a_kept_reference_in_the_form_is_ignored(owner_client: Any, settings: Any) -> None:
    """Repeating kept=REF once copied a kept file per repetition (258 MB from 2 KB):
    no such reference is read any more, however often it is sent."""
    status, body = _post(owner_client, kept=["0" * 32 + "/0"] * 500, paste="")
    assert status == 400
    assert _errors(body) == ["Choose at least one file, or paste YAML or JSON."]
    media = Path(settings.MEDIA_ROOT)
    assert not media.exists() or not any(media.rglob("*"))


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
