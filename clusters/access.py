"""Who may see, change and delete a snapshot, its analyses and a connected cluster: one
rule.

A snapshot (a connected cluster, an analysis through its snapshot) is its owner's and,
when given to a team (a Django group), its members' too: they read it, ask what-ifs,
advice and Explain on it, and share the analyses they asked. Only the owner or an admin
of its team (a TeamAdmin row) changes it (its team, its scheduler configuration, its
pin, anyone's share links) and deletes it; taking a cluster's snapshot now is theirs
and staff's. Everyone else sees nothing: the selectors answer 404, as if it did not
exist. A refusal (PermissionDenied, a 403) says who may.
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


# What a refusal says the member may not do (check_change's ``action``).
CHANGE_TEAM = "give it to another team, or change it"
CHANGE_CONFIG = "change its scheduler configuration"
PIN = "pin it"
UNPIN = "unpin it"


def can_change(user: Any, obj: Any) -> bool:
    """The owner changes and deletes; of the team's members, only its admins. An
    analysis goes by its snapshot."""
    owned = getattr(obj, "snapshot", obj)
    if getattr(owned, "owner_id", None) == getattr(user, "pk", object()):
        return True
    return is_team_admin(user, getattr(owned, "team", None))


# Deleting is changing: one rule, two names for the pages that ask.
can_delete = can_change


def who_may(obj: Any, *, staff: bool = False) -> str:
    """Who may change ``obj``, in words: "its owner (alice) or an admin of the team
    platform" (", or staff" with ``staff``)."""
    owned = getattr(obj, "snapshot", obj)
    team = f"an admin of the team {owned.team.name}" if owned.team else "an admin of its team"
    return f"its owner ({owned.owner.get_username()}) or {team}" + (", or staff" if staff else "")


def check_change(user: Any, obj: Any, *, action: str) -> None:
    """PermissionDenied (a 403 on the pages and in the API) saying who may, for a member
    who may read ``obj`` (a snapshot, a cluster; an analysis goes by its snapshot) but
    not ``action`` it ("change its scheduler configuration", "delete this", ...)."""
    if not can_change(user, obj):
        raise PermissionDenied(
            f"Only {who_may(obj)} may {action}; you may read it and ask what-ifs, advice "
            "and Explain on it."
        )


def check_delete(user: Any, obj: Any) -> None:
    check_change(user, obj, action="delete this")


def can_share(user: Any, analysis: Any) -> bool:
    """Publish a share link of ``analysis``: who may change its snapshot, or the member
    who asked it (a member never publishes someone else's analysis to anyone)."""
    if can_change(user, analysis):
        return True
    return bool(getattr(user, "pk", None) is not None and analysis.requested_by_id == user.pk)


def check_share(user: Any, analysis: Any) -> None:
    if not can_share(user, analysis):
        raise PermissionDenied(
            f"Only who asked this analysis, or {who_may(analysis)}, may share it; ask a "
            "what-if of your own and share that."
        )


def check_retry(user: Any, analysis: Any) -> None:
    """Run a failed analysis again (it is then the retrier's, counted against them): who
    asked it, or who may change its snapshot; never another member's slot to spend."""
    if not can_share(user, analysis):
        raise PermissionDenied(
            f"Only who asked this analysis, or {who_may(analysis)}, may run it again; "
            "ask the same what-if yourself (Edit and ask) to have one of your own."
        )


def can_revoke(user: Any, link: Any) -> bool:
    """Revoke a share link: who made it, or who may change its snapshot (any link)."""
    if can_change(user, link.analysis):
        return True
    return bool(getattr(user, "pk", None) is not None and link.created_by_id == user.pk)


def check_revoke(user: Any, link: Any) -> None:
    if not can_revoke(user, link):
        raise PermissionDenied(
            f"Only who made this link, or {who_may(link.analysis)}, may revoke it."
        )


def can_take_now(user: Any, cluster: Any) -> bool:
    """Take a connected cluster's snapshot now: its owner, a team admin, or staff."""
    return bool(getattr(user, "is_staff", False)) or can_change(user, cluster)


def check_take_now(user: Any, cluster: Any) -> None:
    if not can_take_now(user, cluster):
        raise PermissionDenied(
            f"Only {who_may(cluster, staff=True)} may take a snapshot of {cluster} now; "
            "its schedule takes them meanwhile."
        )
