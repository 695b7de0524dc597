"""`team` on create (multipart and JSON), by PATCH and on the pages; lists by team."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.auth.models import Group

from clusters.models import Snapshot
from tests.clusters.builders import dump, small_cluster
from tests.teams.conftest import api_for

pytestmark = pytest.mark.django_db


def _file(name: str = "small.json") -> io.BytesIO:
    f = io.BytesIO(dump(small_cluster()))
    f.name = name
    return f


def test_multipart_create_gives_it_to_a_team(member: Any) -> None:
    r = api_for(member).post(
        "/api/snapshots/", {"name": "s", "team": "platform", "files": [_file()]}, format="multipart"
    )
    assert r.status_code == 201, r.content
    assert r.json()["team"] == "platform"
    assert Snapshot.objects.get(pk=r.json()["id"]).team.name == "platform"


def test_json_create_gives_it_to_a_team(member: Any) -> None:
    import orjson

    objects = orjson.loads(dump(small_cluster()))
    r = api_for(member).post(
        "/api/snapshots/", {"name": "j", "team": "platform", "objects": objects}, format="json"
    )
    assert r.status_code == 201, r.content
    assert r.json()["team"] == "platform"


@pytest.mark.parametrize("fmt", ["multipart", "json"])
def test_a_team_the_user_is_not_in_is_refused_and_nothing_kept(
    member: Any, stranger: Any, fmt: str
) -> None:
    Group.objects.create(name="secret")
    body: dict[str, Any] = {"name": "x", "team": "secret"}
    body |= (
        {"files": [_file()]} if fmt == "multipart" else {"objects": {"kind": "List", "items": []}}
    )
    r = api_for(member).post("/api/snapshots/", body, format=fmt)
    assert r.status_code == 400
    assert "not a member of a team named 'secret'" in r.json()["team"][0]
    assert not Snapshot.objects.exists()


@pytest.mark.parametrize("name", ["a\x00b", "x" * 151])
def test_a_name_no_group_can_have_is_refused_or_matches_nothing(member: Any, name: str) -> None:
    api = api_for(member)
    r = api.post("/api/snapshots/", {"team": name, "objects": []}, format="json")
    assert r.status_code == 400 and "team" in r.json()
    assert api.get("/api/snapshots/", {"team": name}).json()["count"] == 0


def test_patch_gives_and_takes_back(owner: Any, member: Any, team_snapshot: Any) -> None:
    api = api_for(owner)
    url = f"/api/snapshots/{team_snapshot.pk}/"
    assert api.patch(url, {"team": None}, format="json").json()["team"] is None
    assert api_for(member).get(url).status_code == 404
    assert api.patch(url, {"team": "platform"}, format="json").json()["team"] == "platform"
    assert api_for(member).get(url).status_code == 200
    r = api.patch(url, {"team": "nope"}, format="json")
    assert r.status_code == 400 and "not a member" in r.json()["team"][0]
    # A member reads it but does not give it away.
    r = api_for(member).patch(url, {"team": ""}, format="json")
    assert r.status_code == 403
    team_snapshot.refresh_from_db()
    assert team_snapshot.team.name == "platform"


def test_lists_show_own_and_team_objects_filtered_by_team(
    client: Any, member: Any, team_snapshot: Any
) -> None:
    from clusters import services

    mine = services.snapshot_create(
        owner=member,
        name="mine-alone",
        files=[services.UploadedFile("a.json", dump(small_cluster()))],
    )
    api = api_for(member)
    ids = [s["id"] for s in api.get("/api/snapshots/").json()["results"]]
    assert sorted(ids) == sorted([mine.pk, team_snapshot.pk])
    ids = [s["id"] for s in api.get("/api/snapshots/?team=platform").json()["results"]]
    assert ids == [team_snapshot.pk]
    assert api.get("/api/snapshots/?team=other").json()["count"] == 0
    client.force_login(member)
    page = client.get("/snapshots/?team=platform").content.decode()
    assert team_snapshot.name in page and "mine-alone" not in page
    assert 'id="team-filter"' in page
    page = client.get("/snapshots/").content.decode()
    assert team_snapshot.name in page and "mine-alone" in page


def test_the_upload_form_and_the_snapshot_page_offer_the_users_teams(
    client: Any, owner: Any, member: Any, team_snapshot: Any
) -> None:
    client.force_login(owner)
    upload = client.get("/snapshots/new/").content.decode()
    assert '<option value="platform">platform</option>' in upload
    r = client.post("/snapshots/new/", {"name": "by-form", "team": "platform", "files": [_file()]})
    assert r.status_code == 302
    assert Snapshot.objects.get(name="by-form").team.name == "platform"
    detail = client.get(f"/snapshots/{team_snapshot.pk}/").content.decode()
    assert 'id="snapshot-team"' in detail and 'id="delete-snapshot"' in detail
    r = client.post(f"/snapshots/{team_snapshot.pk}/team/", {"team": ""})
    assert r.status_code == 302
    team_snapshot.refresh_from_db()
    assert team_snapshot.team is None
    assert client.post(f"/snapshots/{team_snapshot.pk}/team/", {"team": "nope"}).status_code == 400
    # A member's view of a team snapshot: neither the team menu nor the delete button.
    client.post(f"/snapshots/{team_snapshot.pk}/team/", {"team": "platform"})
    client.force_login(member)
    detail = client.get(f"/snapshots/{team_snapshot.pk}/").content.decode()
    assert "Team platform" in detail
    assert 'id="snapshot-team"' not in detail and 'id="delete-snapshot"' not in detail


def test_a_teams_cluster_snapshots_are_the_teams(team: Any, owner: Any, member: Any) -> None:
    from unittest import mock

    from connected import services
    from connected.models import Cluster

    cluster = Cluster.objects.create(name="c", source="ctx", owner=owner, team=team)
    read = mock.Mock(files=[], events=[], preset="", left_out=[])
    from clusters import services as cs

    read.files = [cs.UploadedFile(name="c.json", data=dump(small_cluster()))]
    with mock.patch.object(services, "cluster_read", return_value=read):
        snapshot = services._take(
            cluster, now=__import__("django.utils.timezone").utils.timezone.now()
        )
    assert snapshot.team == team
    assert api_for(member).get(f"/api/snapshots/{snapshot.pk}/").status_code == 200
