"""First in line when no probe fits anywhere, even after preemption (an EKS cluster of
t3.small nodes, nearly full, asked for 1 CPU / 2Gi probes: tests/fixtures/eks_like.py).
Every run places nothing, so no app is in line: the page, the plan's text and Markdown
say so first and plainly, and no app is shown absorbing "> 50" probes or ranked."""

from __future__ import annotations

import re
from typing import Any

import pytest

from planning.first_in_line import first_in_line_request, first_in_line_run, ranking_line
from planning.reports import render_first_in_line_markdown, render_first_in_line_text
from scheduling.engine.plan.first_in_line import FirstInLine
from tests.conftest import browser_login
from tests.fixtures.eks_like import eks_like
from tests.realworld import import_dump

GIB = 1024**3
SENTENCE = (
    "No 1 CPU / 2Gi probe fits anywhere, even after preemption: "
    "nothing is first in line for this size."
)
QUERY = "?cpu=1&memory=2Gi&limit=50"


def _ranked(owner: Any) -> tuple[Any, FirstInLine]:
    """The EKS-like dump imported, its 1 CPU / 2Gi ranking computed as a worker does."""
    dump = {"apiVersion": "v1", "kind": "List", "items": eks_like()}
    snapshot = import_dump(owner, "eks-like", dump)
    ranking = first_in_line_run(
        ranking_id=first_in_line_request(
            snapshot=snapshot, cpu_millis=1000, memory_bytes=2 * GIB, limit=50
        ).pk
    )
    line = ranking_line(ranking)
    assert line is not None
    # The case: a run for coredns's level and for the app's, neither placing a probe
    # (a t3.small's 2Gi less aws-node's 32Mi, which nothing below it may evict), coredns
    # "in reach".
    assert [(r.priority, r.placed, r.victims) for r in line.runs] == [
        (2000000000, 0, 0),
        (0, 0, 0),
    ]
    coredns = next(a for a in line.apps if a.app == "Deployment kube-system/coredns")
    assert coredns.reachable and coredns.absorbed is None
    return snapshot, line


@pytest.mark.django_db
def test_the_plan_text_and_markdown_say_nothing_fits_first(owner: Any) -> None:
    _, line = _ranked(owner)
    text = render_first_in_line_text(line)
    assert text.splitlines()[0] == SENTENCE
    assert "> 50" not in text
    coredns = next(row for row in text.splitlines() if "coredns" in row)
    assert coredns.split()[0] == "-" and "no probe fits" in coredns
    markdown = render_first_in_line_markdown(line)
    assert f"**{SENTENCE}**" in markdown and "> 50" not in markdown


@pytest.mark.django_db
def test_the_section_says_nothing_fits_before_any_row(owner_client: Any, owner: Any) -> None:
    snapshot, _ = _ranked(owner)
    html = owner_client.get(f"/snapshots/{snapshot.pk}/plan/first-in-line/{QUERY}").content
    page = html.decode()
    said = page.index(f'<p class="outcome unschedulable" id="first-in-line-nothing">{SENTENCE}</p>')
    assert said < page.index('id="first-in-line-table"')
    assert "&gt; 50" not in page
    # No picture of apps "in line" and no rank: every row's # is a dash.
    assert 'id="first-in-line-svg"' not in page
    ranks = re.findall(r'<tr(?: class="system")?>\s*<td class="num">([^<]*)</td>', page)
    assert ranks and set(ranks) == {"—"}, ranks


@pytest.mark.django_db
def test_the_api_plan_says_where_none_was_placed(owner: Any, api: Any) -> None:
    snapshot, _ = _ranked(owner)
    body = api.get(
        f"/api/snapshots/{snapshot.pk}/plan/", {"cpu": "1", "memory": "2Gi", "limit": "50"}
    ).json()
    assert [r["placed"] for r in body["first_in_line_probe"]["runs"]] == [0, 0]
    assert all(a["absorbed"] is None for a in body["first_in_line"])
    # The schema's words for a null absorbed and a run's placed cover this case.
    schemas = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    absorbed = schemas["components"]["schemas"]["AppInLine"]["properties"]["absorbed"]
    assert "no probe fits" in absorbed["description"]
    placed = schemas["components"]["schemas"]["LevelRun"]["properties"]["placed"]
    assert "none fits" in placed["description"]


@pytest.mark.browser
def test_the_plan_tab_says_nothing_fits_above_the_apps(
    live_server: Any, page: Any, owner: Any
) -> None:
    snapshot, _ = _ranked(owner)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/plan/")
    page.click("#first-in-line-form button[type=submit]")
    page.wait_for_selector("#first-in-line-table")
    nothing = page.locator("#first-in-line-nothing")
    assert nothing.inner_text() == SENTENCE
    said, table = nothing.bounding_box(), page.locator("#first-in-line-table").bounding_box()
    assert said is not None and table is not None and said["y"] < table["y"]
    # Nothing reads as an app in line: no rank, no "> 50", no bar.
    cells = page.locator("#first-in-line-table tbody tr")
    # aws-node, kube-proxy, coredns and the users' five apps
    assert cells.count() == 8
    for row in cells.all():
        tds = row.locator("td")
        assert tds.nth(0).inner_text() == "—"
        assert tds.nth(5).inner_text() in ("no probe fits", "out of reach")
    assert page.locator("#first-in-line-svg").count() == 0
