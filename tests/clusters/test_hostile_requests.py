"""Every input that used to answer 500 answers 400 or 404, and stores nothing.

Nested JSON, integers beyond 64 bits, NUL characters, over-long names and
malformed tokens, on each endpoint that reads them; snapshot values longer than
their columns; staff scoped to their own work like everyone.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token

from clusters import services
from clusters.models import Pod, Snapshot
from scheduling.models import Analysis, ShareLink
from tests.clusters.builders import dump, make_node, make_pod

pytestmark = pytest.mark.django_db

DEEP = b"[" * 10_000 + b"]" * 10_000


@pytest.fixture
def api(owner: Any) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")


def _pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c"}], **spec},
    }


@pytest.mark.parametrize("path", ["/api/snapshots/", "/api/snapshots/{id}/analyses/"])
def test_a_body_nested_10000_deep_is_a_400_on_every_json_endpoint(
    api: Client, snapshot: Snapshot, path: str
) -> None:
    analysis = Analysis.objects.create(snapshot=snapshot, pod={}, pod_key="default/p")
    url = path.format(id=snapshot.pk, aid=analysis.pk)
    r = api.post(url, b'{"pod": ' + DEEP + b"}", content_type="application/json")
    assert r.status_code == 400, r.content
    assert "nested too deeply" in r.json()["detail"]


def test_a_manifest_nested_10000_deep_is_a_400(api: Client, snapshot: Snapshot) -> None:
    r = api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/",
        {"manifest": DEEP.decode()},
        content_type="application/json",
    )
    assert r.status_code == 400, r.content
    assert not Analysis.objects.exists()


def test_an_integer_beyond_64_bits_in_objects_is_a_400(api: Client) -> None:
    node = make_node()
    node["metadata"]["labels"] = {"big": 2**70}
    r = api.post(
        "/api/snapshots/", {"name": "x", "objects": [node]}, content_type="application/json"
    )
    assert r.status_code == 400, r.content
    assert "64-bit" in r.json()["detail"] and "objects[0].metadata.labels.big" in r.json()["detail"]
    assert not Snapshot.objects.exists()


def test_an_integer_beyond_64_bits_in_an_uploaded_file_names_the_object(
    owner_client: Client,
) -> None:
    data = b'{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": 1180591620717411303424}}}]}'
    r = owner_client.post("/snapshots/new/", {"files": [SimpleUploadedFile("big.json", data)]})
    assert r.status_code == 400
    body = r.content.decode()
    assert "big.json" in body and "64-bit" in body
    assert not Snapshot.objects.exists()


def test_an_integer_beyond_64_bits_in_a_pod_is_a_400(api: Client, snapshot: Snapshot) -> None:
    r = api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/",
        {"pod": _pod(priority=2**70)},
        content_type="application/json",
    )
    assert r.status_code == 400, r.content
    assert "64-bit" in str(r.json())
    assert not Analysis.objects.exists()


@pytest.mark.parametrize(
    ("name", "words"),
    [("bad\x00name", "NUL"), ("x" * 1_000_000, "at most 253")],
    ids=["nul", "1mb"],
)
def test_a_nul_or_a_megabyte_name_in_a_pod_is_a_400(
    api: Client, snapshot: Snapshot, name: str, words: str
) -> None:
    r = api.post(
        f"/api/snapshots/{snapshot.pk}/analyses/",
        {"pod": _pod(name)},
        content_type="application/json",
    )
    assert r.status_code == 400, r.content
    assert words in str(r.json())
    assert not Analysis.objects.exists()


@pytest.mark.parametrize(
    "where",
    [
        lambda o: o[0]["metadata"].__setitem__("name", "node\x00a"),
        lambda o: o[0]["metadata"].__setitem__("labels", {"zone": "a\x00b"}),
    ],
    ids=["name", "label"],
)
def test_a_nul_in_a_snapshot_is_a_400_naming_the_object(api: Client, where: Any) -> None:
    objects = [make_node("node-a"), make_pod("web-1", node="node-a")]
    where(objects)
    r = api.post(
        "/api/snapshots/", {"name": "x", "objects": objects}, content_type="application/json"
    )
    assert r.status_code == 400, r.content
    assert "NUL" in r.json()["detail"]
    assert not Snapshot.objects.exists()


def test_a_nul_in_an_uploaded_file_names_the_file_and_object(owner_client: Client) -> None:
    data = dump([make_node("node-a"), make_pod("web-1")]).replace(b'"web-1"', b'"web\\u0000-1"')
    r = owner_client.post("/snapshots/new/", {"files": [SimpleUploadedFile("nul.json", data)]})
    assert r.status_code == 400
    body = r.content.decode()
    assert "nul.json" in body and "items[1]" in body and "NUL" in body
    assert not Snapshot.objects.exists()


def test_a_node_name_over_253_characters_is_refused_by_field_and_limit(api: Client) -> None:
    long_name = "n" * 300
    objects = [make_node(long_name), make_pod("web-1", node=long_name)]
    r = api.post(
        "/api/snapshots/", {"name": "x", "objects": objects}, content_type="application/json"
    )
    assert r.status_code == 400, r.content
    detail = r.json()["detail"]
    assert "Node" in detail and "metadata.name" in detail and "at most 253" in detail
    assert not Snapshot.objects.exists()


def test_a_pod_without_uid_and_a_long_name_is_stored(api: Client) -> None:
    """Its synthesized uid ("uid-<namespace>/<name>") is longer than 64 characters."""
    pod = make_pod("w" * 200, namespace="n" * 60, node="node-a", labels={"app": "w"})
    pod["metadata"].pop("uid", None)
    r = api.post(
        "/api/snapshots/",
        {"name": "x", "objects": [make_node("node-a"), pod]},
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    assert len(Pod.objects.get().uid) > 64


def test_a_failing_ingest_in_the_worker_names_the_limit_not_the_database(
    owner: Any,
) -> None:
    long_name = "n" * 300
    queued = services.snapshot_create(
        owner=owner,
        name="big",
        files=[services.UploadedFile(name="nodes.json", data=dump([make_node(long_name)]))],
        run_async=True,
    )
    services.snapshot_ingest(snapshot=queued)
    queued.refresh_from_db()
    assert queued.is_failed
    assert "metadata.name" in queued.error and "at most 253" in queued.error
    assert "value too long" not in queued.error  # PostgreSQL's words are not shown


@pytest.mark.parametrize(
    "path", ["/s/abc%00/", "/s/" + "a" * 100_000 + "/", "/s/abc%00/rejected/0/"]
)
def test_a_malformed_share_token_is_a_404_anonymously(client: Client, path: str) -> None:
    assert client.get(path).status_code == 404


def test_a_malformed_share_token_is_a_404_in_the_api(api: Client) -> None:
    assert api.delete("/api/share-links/abc%00/").status_code == 404


def test_an_id_beyond_64_bits_is_a_404(api: Client) -> None:
    assert api.get(f"/api/snapshots/{2**70}/").status_code == 404
    assert api.get(f"/api/analyses/{2**70}/").status_code == 404


def test_an_empty_snapshot_and_pods_on_absent_nodes_are_kept_with_warnings(api: Client) -> None:
    r = api.post(
        "/api/snapshots/",
        {"name": "pods only", "objects": [make_pod("web-1", node="gone-1")]},
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    assert any("no Node objects" in w for w in r.json()["warnings"])
    r = api.post(
        "/api/snapshots/",
        {"name": "partial", "objects": [make_node("node-a"), make_pod("web-1", node="gone-1")]},
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    assert any("missing from the snapshot (gone-1)" in w for w in r.json()["warnings"])


def test_staff_see_only_their_own_snapshots_and_analyses(snapshot: Snapshot, staff: Any) -> None:
    analysis = Analysis.objects.create(snapshot=snapshot, pod={}, pod_key="default/p")
    link = ShareLink.objects.create(analysis=analysis)
    c = Client()
    c.force_login(staff)
    assert c.get(f"/snapshots/{snapshot.pk}/").status_code == 404
    assert c.get(f"/analyses/{analysis.pk}/").status_code == 404
    assert c.get(f"/api/snapshots/{snapshot.pk}/").status_code == 404
    assert c.get("/api/snapshots/").json()["count"] == 0
    assert c.delete(f"/api/share-links/{link.token}/").status_code == 404


def test_an_api_url_matching_no_route_answers_json_to_scripts(api: Client) -> None:
    r = api.get("/api/snapshots/-1/", HTTP_ACCEPT="application/json")
    assert r.status_code == 404 and r.json() == {"detail": "Not found."}
    assert (
        "text/html" in Client().get("/api/snapshots/-1/", HTTP_ACCEPT="text/html")["Content-Type"]
    )
