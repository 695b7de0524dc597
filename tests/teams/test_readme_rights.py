"""The README's "who may do what" table names every API route of a team's snapshot,
analysis, share link and cluster: a route added later without a row fails here."""

from __future__ import annotations

import re
from collections.abc import Iterator

from django.urls import URLPattern, URLResolver, get_resolver

from tests.conftest import ROOT

TEAM_OBJECT = re.compile(r"^api/(snapshots|analyses|share-links|clusters)/<")


def _routes(resolver: URLResolver, prefix: str = "") -> Iterator[str]:
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            yield from _routes(p, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern)


def _table() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("| on a team's snapshot, analysis or cluster |")
    return readme[start : readme.index("\n\n", start)]


def test_every_api_route_of_a_team_object_is_in_the_table() -> None:
    table = _table()
    routes = [r for r in _routes(get_resolver()) if TEAM_OBJECT.match(r)]
    assert len(routes) >= 15
    missing = []
    for route in routes:
        # <int:pk>, <int:snapshot_id>, <share_token:token>: as the README writes them.
        path = "/" + re.sub(
            r"<(?:\w+:)?(\w+)>", lambda m: "{token}" if m.group(1) == "token" else "{id}", route
        )
        if path not in table:
            missing.append(path)
    assert missing == []
