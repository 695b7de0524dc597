"""Teams: a snapshot given to a team is its members' to read and ask on; its owner or a
team admin deletes it; everyone else still gets a 404 from every URL of it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from clusters.models import Snapshot
from scheduling import services
from scheduling.models import Analysis
from tests.teams.conftest import api_for

pytestmark = pytest.mark.django_db

ID_ROUTE = re.compile(r"^(api/)?(snapshots|analyses)/<int:(pk|snapshot_id|analysis_id)>")


def _routes(resolver: URLResolver, prefix: str = "") -> Iterator[str]:
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            yield from _routes(p, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern)


def _id_urls(snapshot: Snapshot, analysis: Analysis, token: str) -> list[str]:
    """Every URL pattern that takes a snapshot's or an analysis' id, filled in."""
    pod = snapshot.pods.order_by("pk").first()
    assert pod is not None
    values: dict[str, Any] = {
        "pk": None,
        "snapshot_id": snapshot.pk,
        "analysis_id": analysis.pk,
        "pod_id": pod.pk,
        "group": 0,
        "cycle": 0,
        "index": 0,
        "fmt": "json",
        "token": token,
    }
    urls = []
    for route in _routes(get_resolver()):
        m = ID_ROUTE.match(route)
        if not m:
            continue
        values["pk"] = snapshot.pk if m.group(2) == "snapshots" else analysis.pk
        url = "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda g: str(values[g.group(1)]), route)
        urls.append(url)
    return urls


def test_the_enumeration_finds_the_routes(team_snapshot: Any, owners_analysis: Any) -> None:
    urls = _id_urls(team_snapshot, owners_analysis, "t")
    assert f"/snapshots/{team_snapshot.pk}/plan/" in urls
    assert f"/api/analyses/{owners_analysis.pk}/advice/" in urls
    assert f"/analyses/{owners_analysis.pk}/share-links/t/revoke/" in urls
    assert len(urls) >= 30


def test_a_stranger_gets_404_from_every_url_of_it(
    client: Any, stranger: Any, team_snapshot: Any, owners_analysis: Any
) -> None:
    link = services.share_link_create(analysis=owners_analysis)
    client.force_login(stranger)
    answers = {}
    for url in _id_urls(team_snapshot, owners_analysis, link.token):
        code = client.get(url).status_code
        if code == 405:  # a POST-only view: asked the way it is used
            code = client.post(url).status_code
        answers[url] = code
    assert {u: c for u, c in answers.items() if c != 404} == {}
    assert Snapshot.objects.filter(pk=team_snapshot.pk).exists()
    assert Analysis.objects.filter(pk=owners_analysis.pk).exists()


def test_a_member_reads_every_page_and_endpoint_of_it(
    client: Any, member: Any, team_snapshot: Any, owners_analysis: Any
) -> None:
    client.force_login(member)
    read = [
        u
        for u in _id_urls(team_snapshot, owners_analysis, "x")
        if not re.search(r"/(delete|team|retry|rerun|revoke|apply|share-links/x)/", u)
    ]
    answers = {u: client.get(u).status_code for u in read}
    assert sum(c == 200 for c in answers.values()) >= 15, answers
    missing = {u: c for u, c in answers.items() if c == 404}
    # Pages a finished demo analysis has none of (a cycle to explain, a rejected group,
    # advice) may 404 for the owner too: the member gets what the owner gets.
    owner_404 = {
        u for u in missing if client.get(u).status_code == 404 and _owner_gets_404(u, team_snapshot)
    }
    assert set(missing) == owner_404


def _owner_gets_404(url: str, snapshot: Snapshot) -> bool:
    from django.test import Client

    c = Client()
    c.force_login(snapshot.owner)
    return c.get(url).status_code == 404


def test_a_member_uses_it_over_the_api(
    member: Any, team_snapshot: Any, owners_analysis: Any
) -> None:
    api = api_for(member)
    assert api.get(f"/api/snapshots/{team_snapshot.pk}/").json()["team"] == "platform"
    # The teammate's analyses of it.
    listed = api.get(f"/api/snapshots/{team_snapshot.pk}/analyses/").json()
    assert owners_analysis.pk in [a["id"] for a in listed["results"]]
    assert api.get(f"/api/analyses/{owners_analysis.pk}/").status_code == 200
    assert api.get(f"/api/snapshots/{team_snapshot.pk}/plan/").status_code in (200, 202)
    # A what-if of their own on it, which the owner sees in turn.
    url = f"/api/snapshots/{team_snapshot.pk}/analyses/"
    from clusters.demo import demo_cat3_pod

    r = api.post(url, {"pod": demo_cat3_pod()}, format="json")
    assert r.status_code == 202, r.content
    mine = r.json()["id"]
    owner_list = api_for(team_snapshot.owner).get(url).json()
    assert mine in [a["id"] for a in owner_list["results"]]


def test_a_member_may_not_delete_a_team_admin_may(
    member: Any, team_admin: Any, team_snapshot: Any, owners_analysis: Any
) -> None:
    r = api_for(member).delete(f"/api/analyses/{owners_analysis.pk}/")
    assert r.status_code == 403 and "owner" in r.json()["detail"]
    r = api_for(member).delete(f"/api/snapshots/{team_snapshot.pk}/")
    assert r.status_code == 403 and "admin of the team platform" in r.json()["detail"]
    from django.test import Client

    page = Client()
    page.force_login(member)
    assert page.post(f"/snapshots/{team_snapshot.pk}/delete/").status_code == 403
    assert page.post(f"/analyses/{owners_analysis.pk}/delete/").status_code == 403
    assert Snapshot.objects.filter(pk=team_snapshot.pk).exists()
    assert api_for(team_admin).delete(f"/api/snapshots/{team_snapshot.pk}/").status_code == 204
    assert not Snapshot.objects.filter(pk=team_snapshot.pk).exists()


def test_an_admin_of_another_team_may_not_delete(
    team_snapshot: Any, django_user_model: Any
) -> None:
    from django.contrib.auth.models import Group

    from clusters.models import TeamAdmin

    other = Group.objects.create(name="other")
    lead = django_user_model.objects.create_user("otherlead")
    lead.groups.add(other)
    TeamAdmin.objects.create(user=lead, team=other)
    assert api_for(lead).delete(f"/api/snapshots/{team_snapshot.pk}/").status_code == 404


def test_share_links_still_work_for_outsiders(
    client: Any, stranger: Any, owners_analysis: Any
) -> None:
    link = services.share_link_create(analysis=owners_analysis)
    client.force_login(stranger)
    assert client.get(f"/s/{link.token}/").status_code == 200
    assert owners_analysis.pod_key in client.get(f"/s/{link.token}/").content.decode()
    client.logout()
    assert client.get(f"/s/{link.token}/").status_code == 200
