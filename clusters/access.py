"""Who may see and delete a snapshot, its analyses and a connected cluster: one rule.

A snapshot (a connected cluster, an analysis through its snapshot) is its owner's and,
when given to a team (a Django group), its members' too: they read it and ask what-ifs
on it. Only the owner or an admin of its team (a TeamAdmin row) deletes it. Everyone
else sees nothing: the selectors answer 404, as if it did not exist.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet

from clusters.models import TeamAdmin

Rows = TypeVar("Rows", bound=QuerySet[Any])


class NotAMember(ValueError):
    """A team the user is not in (or that does not exist): said in words, a 400."""


def teams_of(user: Any) -> QuerySet[Group]:
    """The teams the user is in, by name."""
    if not getattr(user, "is_authenticated", False):
        return Group.objects.none()
    teams: QuerySet[Group] = user.groups.order_by("name")
    return teams


def visible_to(user: Any, prefix: str = "") -> Q:
    """The objects the user may see: owned, or given to a team of theirs.

    ``prefix`` reaches the owner and team through a relation (``"snapshot__"`` for an
    analysis). An anonymous user matches nothing.
    """
    if not getattr(user, "is_authenticated", False):
        return Q(pk__in=[])
    return Q(**{f"{prefix}owner": user}) | Q(**{f"{prefix}team__in": user.groups.all()})


def in_team(objects: Rows, name: str | None, prefix: str = "") -> Rows:
    """``?team=NAME``: only the objects given to that team (none for an unknown name)."""
    if not name:
        return objects
    if not _may_be_a_name(name):
        return objects.none()
    return objects.filter(**{f"{prefix}team__name": name})


def _may_be_a_name(name: str) -> bool:
    """A group's name fits its column; no text column holds NUL (PostgreSQL refuses it)."""
    return len(name) <= 150 and "\x00" not in name


def team_named(user: Any, name: str | None) -> Group | None:
    """The team a user gives an object to: None for no team (an empty name); NotAMember
    for a team they are not in."""
    if not name:
        return None
    team = teams_of(user).filter(name=name).first() if _may_be_a_name(name) else None
    if team is None:
        raise NotAMember(
            f"You are not a member of a team named {name!r}; yours: "
            f"{', '.join(teams_of(user).values_list('name', flat=True)) or 'none'}."
        )
    return team


def is_team_admin(user: Any, team: Group | None) -> bool:
    return bool(
        team is not None
        and getattr(user, "is_authenticated", False)
        and TeamAdmin.objects.filter(user=user, team=team).exists()
        and user.groups.filter(pk=team.pk).exists()
    )


def can_delete(user: Any, obj: Any) -> bool:
    """The owner deletes; of the team's members, only its admins."""
    if getattr(obj, "owner_id", None) == getattr(user, "pk", object()):
        return True
    return is_team_admin(user, getattr(obj, "team", None))


def check_delete(user: Any, obj: Any) -> None:
    """PermissionDenied (a 403 on the pages and in the API) with why, for a member who
    may read ``obj`` (a snapshot, a cluster; an analysis goes by its snapshot) but not
    delete it."""
    owned = getattr(obj, "snapshot", obj)
    if not can_delete(user, owned):
        team = owned.team.name if owned.team else "it was given to"
        raise PermissionDenied(
            f"Only its owner ({owned.owner.get_username()}) or an admin of the team "
            f"{team} may delete this; you may read it and ask what-ifs on it."
        )
