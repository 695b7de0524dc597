"""Finding things: an Analyses tab and list with node, victims and class; the demo
loaded once; the home page one click from a first what-if."""

from __future__ import annotations

import re
from typing import Any

import pytest

from clusters.demo import DEMO_NAME, demo_cat3_pod
from clusters.models import Snapshot
from scheduling import services
from scheduling.models import Analysis

pytestmark = pytest.mark.django_db


def _rows(body: str) -> list[list[str]]:
    table = body.split('id="analyses"')[1].split("</table>")[0]
    return [
        [
            re.sub(r"<[^>]+>|\s+", " ", td).strip()
            for td in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        ]
        for tr in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S)
    ]


def test_the_analyses_list_shows_node_victims_and_class(
    owner_client: Any, demo_snapshot: Any
) -> None:
    done = services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod())
    services.analysis_run(analysis_id=done.pk)
    body = owner_client.get(f"/snapshots/{demo_snapshot.pk}/analyses/").content.decode()
    assert 'id="analyses-tab" class="active"' in body
    (row,) = _rows(body)
    assert row[0].startswith("default/orange-0")
    assert row[1:] == ["cat-3", "Done", "Preempts", "node-5", "1", row[-1]]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", row[-1])

    everywhere = owner_client.get("/analyses/").content.decode()
    (row,) = _rows(everywhere)
    assert row[2] == demo_snapshot.name and row[5] == "node-5"


def test_every_page_links_to_the_analyses(owner_client: Any, demo_snapshot: Any) -> None:
    body = owner_client.get(f"/snapshots/{demo_snapshot.pk}/pods/").content.decode()
    assert 'href="/analyses/">Analyses</a>' in body
    assert f'href="/snapshots/{demo_snapshot.pk}/analyses/" id="analyses-tab"' in body


def test_loading_the_demo_twice_keeps_one(owner_client: Any, owner: Any) -> None:
    first = owner_client.post("/snapshots/demo/", follow=True)
    second = owner_client.post("/snapshots/demo/", follow=True)
    assert Snapshot.objects.filter(owner=owner, name=DEMO_NAME).count() == 1
    assert first.redirect_chain[-1][0] == second.redirect_chain[-1][0]
    assert "You have the demo snapshot already" in second.content.decode()


def test_the_home_page_is_one_click_from_a_first_what_if(owner_client: Any, owner: Any) -> None:
    home = owner_client.get("/").content.decode()
    assert 'action="/analyses/demo/"' in home
    response = owner_client.post("/analyses/demo/")
    analysis = Analysis.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/analyses/{analysis.pk}/"
    assert analysis.pod_key == "default/orange-0"
    assert analysis.snapshot.name == DEMO_NAME
    owner_client.post("/analyses/demo/")  # again: the same demo snapshot, a second analysis
    assert Snapshot.objects.filter(owner=owner).count() == 1
    assert Analysis.objects.count() == 2


@pytest.mark.browser
@pytest.mark.worker
def test_one_click_from_the_home_page_to_an_answer(
    live_server: Any, celery_worker_process: Any, page: Any, owner: Any
) -> None:
    from tests.conftest import browser_login

    browser_login(page, live_server, "owner")
    page.get_by_role("button", name="Run the demo what-if").click()
    page.wait_for_url(f"{live_server.url}/analyses/*/")
    page.locator("#outcome").wait_for(timeout=60_000)
    assert page.inner_text("#outcome") == "Preempts 1 pod on node-5."
