"""The compare page and the "Compare with…" form of a result page, through Django's
client: the sentence first, then the table and the lists; anyone else's analysis 404."""

from __future__ import annotations

import re
from typing import Any

import pytest

from planning.views import LISTED
from scheduling import services
from tests.engine.builders import as_list, make_node, make_pod, make_priority_class
from tests.planning.conftest import demo_pod, run_pod, urgent
from tests.scheduling.conftest import make_snapshot

pytestmark = pytest.mark.django_db


def _page(client: Any, a: Any, b: Any) -> Any:
    return client.get("/analyses/compare/", {"a": a.pk, "b": b.pk})


def test_the_sentence_comes_first_then_the_table_and_the_victims(
    owner_client: Any, pair: Any
) -> None:
    a, b = pair
    r = _page(owner_client, a, b)
    assert r.status_code == 200
    html = r.content.decode()
    sentence = "B preempts 1 more pod than A: default/blue-tcsrb-xlqml."
    assert f'id="sentence">{sentence}</p>' in html
    # The sentence is the page's first answer: before the table and the lists.
    assert html.index(sentence) < html.index('id="side-by-side"') < html.index('id="victims"')
    added = html[html.index('id="victims-added"') : html.index('id="victims-removed"')]
    assert "default/blue-tcsrb-xlqml" in added and "purple" not in added
    kept = html[html.index('id="victims-kept"') :]
    assert "default/purple-6ldlh-r7w65" in kept
    # Same outcome and node: not marked; the victims' count differs: marked.
    assert re.search(r'<tr id="row-outcome">', html)
    assert re.search(r'<tr id="row-victims" class="differs">', html)
    assert f'href="/analyses/{a.pk}/"' in html and f'href="/analyses/{b.pk}/"' in html


def test_anyone_elses_analysis_is_not_found(stranger_client: Any, pair: Any) -> None:
    a, b = pair
    assert _page(stranger_client, a, b).status_code == 404


def test_a_login_is_needed(client: Any, pair: Any) -> None:
    a, b = pair
    r = _page(client, a, b)
    assert r.status_code == 302 and r["Location"].startswith("/accounts/login/")


def test_without_parameters_it_offers_to_pick_two(owner_client: Any, pair: Any) -> None:
    a, b = pair
    # Reached from the list of every analysis.
    listing = owner_client.get("/analyses/").content.decode()
    assert 'href="/analyses/compare/" id="compare-two"' in listing
    r = owner_client.get("/analyses/compare/")
    assert r.status_code == 200
    html = r.content.decode()
    assert 'id="compare-pick"' in html
    # Newest first; A starts on the newest, B on the one before it.
    a_select = html[html.index('id="pick-a"') : html.index('id="pick-b"')]
    b_select = html[html.index('id="pick-b"') :]
    assert re.findall(r'<option value="(\d+)"', a_select) == [str(b.pk), str(a.pk)]
    assert f'<option value="{a.pk}" selected>' in b_select
    assert f'<option value="{b.pk}" selected>' not in b_select


def test_bad_parameters_answer_400_with_the_form(owner_client: Any, pair: Any) -> None:
    a, _ = pair
    r = owner_client.get("/analyses/compare/", {"a": a.pk, "b": "nine"})
    assert r.status_code == 400
    html = r.content.decode()
    assert "Enter a whole number." in html
    # What was asked stays selected.
    assert f'<option value="{a.pk}" selected>' in html


def test_an_analysis_not_done_says_so(
    owner_client: Any, pair: Any, demo_snapshot: Any, no_broker: Any
) -> None:
    a, _ = pair
    queued = services.analysis_create(snapshot=demo_snapshot, pod=demo_pod("q", "cat-3"))
    r = _page(owner_client, a, queued)
    assert r.status_code == 409
    assert f"Analysis {queued.pk} (default/q) is queued" in r.content.decode()


def test_long_victim_lists_fold_after_the_first_ones(
    owner: Any, owner_client: Any, no_broker: Any
) -> None:
    # One node full of 30 small pods: a pod of 100m evicts one, a pod of 3 CPUs all 30.
    objects = [
        make_priority_class("low", 100),
        make_priority_class("high", 1000),
        make_node("node-a").capacity(cpu="3").obj(),
    ]
    objects += [
        make_pod(f"small-{i:02}").priority(100).req(cpu="100m").node("node-a").obj()
        for i in range(30)
    ]
    snapshot = make_snapshot(owner, as_list(*objects))

    one, all_ = run_pod(snapshot, urgent("one", "100m")), run_pod(snapshot, urgent("all", "3"))
    html = _page(owner_client, one, all_).content.decode()
    added = html[html.index('id="victims-added"') : html.index('id="victims-removed"')]
    assert "Added: preempted in B, not in A (29)" in added
    shown, _, folded = added.partition("<details>")
    assert shown.count("<li>") == LISTED
    assert folded.count("<li>") == 29 - LISTED
    assert "<summary>9 more</summary>" in folded


def test_a_result_page_offers_to_compare_with_the_others(
    owner: Any, owner_client: Any, pair: Any, no_broker: Any
) -> None:
    a, b = pair
    # One more, on another snapshot and newer: listed after those of a's snapshot.
    other = make_snapshot(owner, as_list(make_node("node-x").obj()), name="tiny")
    elsewhere = run_pod(other, make_pod("lone").req(cpu="100m").obj())
    queued = services.analysis_create(snapshot=b.snapshot, pod=demo_pod("q", "cat-3"))
    html = owner_client.get(f"/analyses/{a.pk}/").content.decode()
    form = html[html.rindex("<form", 0, html.index('id="compare-with"')) :]
    form = form[: form.index("</form>")]
    assert 'action="/analyses/compare/"' in form
    assert f'name="a" value="{a.pk}"' in form
    options = re.findall(r'<option value="(\d+)"', form)
    # Itself and the one not done are left out; the same snapshot's first.
    assert options == [str(b.pk), str(elsewhere.pk)]
    assert form.index("On this snapshot") < form.index("On other snapshots")
    # Following the form opens the compare page of the two.
    assert _page(owner_client, a, b).status_code == 200
    # A page still queued offers nothing to compare.
    assert 'id="compare-with"' not in owner_client.get(f"/analyses/{queued.pk}/").content.decode()


def test_a_shared_page_offers_no_comparison(client: Any, pair: Any) -> None:
    a, _ = pair
    link = services.share_link_create(analysis=a)
    html = client.get(link.get_absolute_url()).content.decode()
    assert "default/orange-0" in html
    assert 'id="compare-with"' not in html and "/analyses/compare/" not in html


def run_capacity(snapshot: Any, **question: Any) -> Any:
    queued = services.analysis_create_capacity(snapshot=snapshot, **question)
    return services.analysis_run(analysis_id=queued.pk)


def test_two_capacity_answers_lead_with_the_replicas(
    owner_client: Any, demo_snapshot: Any, no_broker: Any
) -> None:
    few = run_capacity(demo_snapshot, pod=demo_pod("c", "cat-3"), limit=3)
    many = run_capacity(demo_snapshot, pod=demo_pod("c", "cat-3"), limit=20)
    r = _page(owner_client, few, many)
    assert r.status_code == 200
    html = r.content.decode()
    lead = "B fits 11 more replicas of 1 CPU / 2Gi than A (3 → 14); 11 more victims (3 → 14)"
    assert f'id="sentence">{lead}' in html
    assert html.index(lead) < html.index('id="side-by-side"') < html.index('id="room"')
    # One class, its row marked: 3 (0 now + 3) against 14 (0 now + 14), +11.
    row = html[html.index('id="room-1"') :]
    row = row[: row.index("</tr>")]
    assert 'class="differs"' in row and "<code>cat-3</code>" in row
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)
    assert cells[:6] == ["3 (0 now + 3)", "14 (0 now + 14)", "+11", "3", "14", "+11"]
    assert re.search(r'<tr id="row-limit" class="differs">.*?<td>3</td><td>20</td>', html)


def test_a_capacity_answer_against_a_pods_is_a_conflict_that_says_so(
    owner_client: Any, pair: Any, demo_snapshot: Any
) -> None:
    a, _ = pair
    counted = run_capacity(demo_snapshot, pod=demo_pod("c", "cat-3"), limit=3)
    r = _page(owner_client, counted, a)
    assert r.status_code == 409
    assert (
        "A is a capacity answer and B a pod&#x27;s: compare two answers of the same kind"
        in r.content.decode()
    )


def test_a_tie_is_shown_whole_in_the_node_row(
    owner_client: Any, owner: Any, no_broker: Any
) -> None:
    # Two empty nodes alike: a pod of 1 CPU ties on both; one selecting node-b goes there.
    snapshot = make_snapshot(
        owner,
        as_list(
            make_node("node-a").capacity(cpu="4", memory="8Gi").label("zone", "a").obj(),
            make_node("node-b").capacity(cpu="4", memory="8Gi").label("zone", "b").obj(),
        ),
    )
    free = run_pod(snapshot, make_pod("free").req(cpu="1").obj())
    pinned = run_pod(snapshot, make_pod("pinned").req(cpu="1").node_selector(zone="b").obj())
    html = _page(owner_client, pinned, free).content.decode()
    row = html[html.index('id="row-nodes"') :]
    row = row[: row.index("</tr>")]
    cells = re.findall(r'<td class="name">([^<]*)</td>', row)
    assert cells == ["node-b", "node-a or node-b (tied; kube-scheduler picks one at random)"]
    assert "instead of" not in html
