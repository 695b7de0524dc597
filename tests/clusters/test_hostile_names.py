"""Names and labels the API server would refuse (markup, backticks, comments, CR/LF,
terminal escapes, 10 MB values): refused on the way in, by snapshot and by what-if,
with the object and the field named and the bad name shown short and quoted."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from clusters import models
from tests.clusters.builders import dump, make_node, make_pod

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "web`](http://evil)`",
    "web<!--",
    "web\r\nGate OK",
    "web\x1b[32mOK",
    "Web-1",
    "-web",
    "w" * 254,
]


def _upload(client: Any, objects: list[Any]) -> Any:
    data = dump(objects)
    return client.post("/snapshots/new/", {"files": [SimpleUploadedFile("pods.json", data)]})


@pytest.mark.parametrize("name", HOSTILE)
def test_a_pod_name_the_api_server_refuses_is_refused(owner_client: Any, name: str) -> None:
    r = _upload(owner_client, [make_node(), make_pod(name, labels={"app": "web"})])
    body = r.content.decode()
    assert r.status_code == 400
    assert "pods.json" in body and "items[1]" in body and "metadata.name" in body
    # Shown quoted and shortened: no control character, markup or 254-character name
    # comes back as it came.
    assert "\x1b" not in body and "\r\nGate OK" not in body and "<img" not in body
    assert "w" * 254 not in body
    assert not models.Snapshot.objects.exists()


@pytest.mark.parametrize("name", ["node<b>", "Node-A", "node_a"])
def test_a_node_name_the_api_server_refuses_is_refused(owner_client: Any, name: str) -> None:
    r = _upload(owner_client, [make_node(name), make_pod(node=None)])
    assert r.status_code == 400
    assert "Node" in r.content.decode() and "metadata.name" in r.content.decode()


@pytest.mark.parametrize(
    ("labels", "words"),
    [
        ({"app": "x" * 100_000}, "100,000 characters; at most 63"),
        ({"app": "a b"}, "is not a label value"),
        ({"bad key": "web"}, "is not a qualified name"),
        ({"Example.COM/app": "web"}, "invalid prefix"),
        ({"app": "web\n"}, "is not a label value"),
    ],
)
def test_labels_the_api_server_refuses_are_refused(
    owner_client: Any, labels: dict[str, str], words: str
) -> None:
    r = _upload(owner_client, [make_node(), make_pod("web-1", namespace="shop", labels=labels)])
    body = r.content.decode()
    assert r.status_code == 400
    assert "Pod shop/web-1" in body and "metadata.labels" in body and words in body


def test_a_namespace_must_be_a_dns_label(owner_client: Any) -> None:
    r = _upload(owner_client, [make_node(), make_pod("web-1", namespace="shop.eu")])
    assert r.status_code == 400 and "metadata.namespace" in r.content.decode()


def test_names_as_real_clusters_write_them_are_accepted(owner_client: Any) -> None:
    node = "ip-10-0-141-12.eu-west-1.compute.internal"
    labels = {
        "app.kubernetes.io/name": "web",
        "pod-template-hash": "7d9f8b6c5d",
        "node-role.kubernetes.io/worker": "",
        "topology.kubernetes.io/zone": "eu-west-1a",
    }
    pod = make_pod("web-7d9f8b6c5d-x2x9q", namespace="shop", node=node, labels=labels)
    r = _upload(owner_client, [make_node(node), pod])
    assert r.status_code == 302, r.content.decode()[:2000]
