from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from clusters import services as cluster_services
from clusters.demo import demo_cat3_pod
from clusters.models import TeamAdmin
from scheduling import services
from tests.conftest import PASSWORD


def _user(name: str) -> Any:
    return get_user_model().objects.create_user(name, f"{name}@example.com", PASSWORD)


@pytest.fixture
def team(db: Any) -> Group:
    return Group.objects.create(name="platform")


@pytest.fixture
def member(team: Group) -> Any:
    user = _user("member")
    user.groups.add(team)
    return user


@pytest.fixture
def team_admin(team: Group) -> Any:
    user = _user("lead")
    user.groups.add(team)
    TeamAdmin.objects.create(user=user, team=team)
    return user


@pytest.fixture
def team_snapshot(owner: Any, team: Group) -> Any:
    """The owner's demo snapshot, given to the owner's team."""
    owner.groups.add(team)
    snapshot = cluster_services.snapshot_load_demo(owner=owner)
    cluster_services.snapshot_give(snapshot=snapshot, team=team)
    return snapshot


@pytest.fixture
def owners_analysis(team_snapshot: Any) -> Any:
    """A finished analysis the owner asked on the team's snapshot."""
    a = services.analysis_create(snapshot=team_snapshot, pod=demo_cat3_pod())
    return services.analysis_run(analysis_id=a.pk)


def api_for(user: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c
