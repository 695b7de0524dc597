"""PATCH /api/snapshots/{id}/ changes what it names and nothing else: a name alone keeps
the team; an empty body, a NUL or an over-long name is a 400 with words."""

from __future__ import annotations

from typing import Any

import pytest

from tests.teams.conftest import api_for

pytestmark = pytest.mark.django_db


def test_a_name_alone_renames_and_keeps_the_team(owner: Any, team_snapshot: Any) -> None:
    url = f"/api/snapshots/{team_snapshot.pk}/"
    r = api_for(owner).patch(url, {"name": "before the upgrade"}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["name"] == "before the upgrade" and r.json()["team"] == "platform"
    team_snapshot.refresh_from_db()
    assert team_snapshot.name == "before the upgrade" and team_snapshot.team.name == "platform"


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "non_field_errors"), ({"name": "a\x00b"}, "name"), ({"name": "x" * 201}, "name")],
)
def test_nothing_or_a_bad_name_is_a_400_with_words(
    owner: Any, team_snapshot: Any, body: dict[str, Any], field: str
) -> None:
    r = api_for(owner).patch(f"/api/snapshots/{team_snapshot.pk}/", body, format="json")
    assert r.status_code == 400 and r.json()[field][0], r.content
    team_snapshot.refresh_from_db()
    assert team_snapshot.team.name == "platform" and "\x00" not in team_snapshot.name


def test_a_member_does_not_rename(member: Any, team_snapshot: Any) -> None:
    r = api_for(member).patch(f"/api/snapshots/{team_snapshot.pk}/", {"name": "x"}, format="json")
    assert r.status_code == 403
    team_snapshot.refresh_from_db()
    assert team_snapshot.name != "x"
