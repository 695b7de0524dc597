"""Malformed, oversized and malicious uploads: clear errors, nothing kept, no crash."""

from __future__ import annotations

import time
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from clusters import models
from tests.clusters.builders import dump, make_node, make_pod

BILLION_LAUGHS = b"""\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def _upload(client: Any, name: str, data: bytes) -> Any:
    return client.post("/snapshots/new/", {"files": [SimpleUploadedFile(name, data)]})


def test_it_names_the_file_of_malformed_json(owner_client: Any) -> None:
    response = _upload(owner_client, "broken.json", b'{"kind": "List", "items": [')
    body = response.content.decode()
    assert response.status_code == 400
    assert "broken.json" in body and "invalid JSON" in body
    assert not models.Snapshot.objects.exists()


def test_it_names_the_file_object_and_field_of_a_bad_value(owner_client: Any) -> None:
    bad = make_pod("web-7", namespace="shop", cpu="lots")
    response = _upload(owner_client, "pods.json", dump([make_node(), make_pod("web-1"), bad]))
    body = response.content.decode()
    assert response.status_code == 400
    assert "pods.json" in body
    assert "items[2]" in body
    assert "Pod shop/web-7" in body
    assert "spec.containers[0].resources.requests.cpu" in body
    assert not models.Snapshot.objects.exists() and not models.Pod.objects.exists()


def test_it_names_the_right_file_when_several_merge(owner_client: Any) -> None:
    good = SimpleUploadedFile("nodes.json", dump([make_node()]))
    bad = SimpleUploadedFile(
        "pods.yaml",
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {memory: '1Qi'}}}]}\n",
    )
    response = owner_client.post("/snapshots/new/", {"files": [good, bad]})
    body = response.content.decode()
    assert response.status_code == 400
    assert "pods.yaml" in body and "items[0]" in body and "Pod default/p" in body


def test_it_refuses_an_upload_over_the_limit_with_413(owner_client: Any, settings: Any) -> None:
    settings.MAX_UPLOAD_BYTES = 10_000
    response = _upload(owner_client, "big.json", dump([make_pod(f"p-{i}") for i in range(100)]))
    assert response.status_code == 413
    assert "over the limit of 9.8" in response.content.decode()
    assert "MAX_UPLOAD_MB" in response.content.decode()
    assert not models.Snapshot.objects.exists()


def test_the_api_refuses_an_upload_over_the_limit_with_413(
    owner_client: Any, settings: Any
) -> None:
    settings.MAX_UPLOAD_BYTES = 10_000
    response = owner_client.post(
        "/api/snapshots/",
        {"objects": [make_pod(f"p-{i}") for i in range(100)]},
        content_type="application/json",
    )
    assert response.status_code == 413
    assert "limit" in response.json()["detail"]


def test_it_rejects_a_yaml_bomb_fast(owner_client: Any) -> None:
    started = time.monotonic()
    response = _upload(owner_client, "bomb.yaml", BILLION_LAUGHS)
    assert time.monotonic() - started < 5
    assert response.status_code == 400
    body = response.content.decode()
    assert "bomb.yaml" in body and "aliases" in body
    assert not models.Snapshot.objects.exists()


def test_it_refuses_arbitrary_yaml_tags(owner_client: Any) -> None:
    response = _upload(owner_client, "evil.yaml", b"!!python/object/apply:os.system ['true']\n")
    assert response.status_code == 400
    assert "evil.yaml" in response.content.decode()


def test_deeply_nested_json_does_not_crash(owner_client: Any) -> None:
    deep = b'{"kind": "List", "items": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}"
    response = _upload(owner_client, "deep.json", deep)
    assert response.status_code == 400
    assert "deep.json" in response.content.decode()


def test_deeply_nested_json_on_the_fast_path_does_not_crash(owner_client: Any) -> None:
    pad = dump([make_pod(f"pad-{i}") for i in range(3000)])
    deep = (
        pad[:-2]
        + b', {"kind": "Pod", "metadata": {"name": "x"}, "spec": '
        + b"[" * 50_000
        + b"]" * 50_000
        + b"}]}"
    )
    assert len(deep) > 1024 * 1024
    response = _upload(owner_client, "deep-big.json", deep)
    assert response.status_code == 400
    assert "deep-big.json" in response.content.decode()


def test_a_running_pod_naming_a_deleted_class_is_kept_with_a_warning(owner_client: Any) -> None:
    # The pod was admitted while its class existed: the snapshot is taken, and says
    # what priority it assumed for the pod (no spec.priority, no globalDefault: 0).
    response = _upload(
        owner_client, "pods.json", dump([make_node(), make_pod("web-1", priority_class="gold")])
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    snapshot = models.Snapshot.objects.get()
    assert (
        "PriorityClass gold does not exist but 1 pod names it: "
        "1 has no spec.priority and is assumed at priority 0"
    ) in snapshot.warnings


def test_an_empty_file_is_refused_by_name(owner_client: Any) -> None:
    response = _upload(owner_client, "empty.json", b"  \n")
    assert response.status_code == 400
    assert "empty.json" in response.content.decode() and "empty" in response.content.decode()
