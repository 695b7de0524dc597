"""Only the owner (and staff) see a snapshot: everyone else gets a 404 from all of it."""

from __future__ import annotations

from typing import Any

import pytest

from clusters import models

PAGES = [
    "/snapshots/{id}/",
    "/snapshots/{id}/nodes/",
    "/snapshots/{id}/pods/",
    "/snapshots/{id}/pdbs/",
    "/snapshots/{id}/delete/",
]
ENDPOINTS = [
    "/api/snapshots/{id}/",
    "/api/snapshots/{id}/nodes/",
    "/api/snapshots/{id}/pods/",
    "/api/snapshots/{id}/pdbs/",
    "/api/snapshots/{id}/priorityclasses/",
]


@pytest.mark.parametrize("url", PAGES + ENDPOINTS)
def test_a_stranger_gets_404(stranger_client: Any, snapshot: Any, url: str) -> None:
    assert stranger_client.get(url.format(id=snapshot.pk)).status_code == 404


@pytest.mark.parametrize("url", ["/snapshots/{id}/delete/", "/api/snapshots/{id}/"])
def test_a_stranger_cannot_delete(stranger_client: Any, snapshot: Any, url: str) -> None:
    url = url.format(id=snapshot.pk)
    response = stranger_client.delete(url) if url.startswith("/api/") else stranger_client.post(url)
    assert response.status_code == 404
    assert models.Snapshot.objects.filter(pk=snapshot.pk).exists()


def test_a_stranger_does_not_see_it_listed(stranger_client: Any, snapshot: Any) -> None:
    assert snapshot.name not in stranger_client.get("/snapshots/").content.decode()
    assert stranger_client.get("/api/snapshots/").json()["count"] == 0


@pytest.mark.parametrize("url", PAGES[:-1] + ENDPOINTS)
def test_staff_get_a_404_like_anyone_else(client: Any, staff: Any, snapshot: Any, url: str) -> None:
    """Everything is scoped to the requesting user, staff included; /admin/ shows all."""
    client.force_login(staff)
    assert client.get(url.format(id=snapshot.pk)).status_code == 404


def test_anonymous_visitors_are_sent_to_log_in(client: Any, snapshot: Any) -> None:
    response = client.get(f"/snapshots/{snapshot.pk}/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.get(f"/api/snapshots/{snapshot.pk}/").status_code == 401
