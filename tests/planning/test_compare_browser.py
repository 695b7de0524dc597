"""The compare page in Debian's chromium at 1366 px: reached from a result page's
"Compare with…" form, the sentence above the fold, the victims listed, nothing wider
than the window even with 40-character node names."""

from __future__ import annotations

import os
from typing import Any

import pytest

from scheduling import services
from scheduling.engine.capacity import Size
from tests.conftest import browser_login
from tests.engine.builders import as_list, make_node, make_pod, make_priority_class
from tests.planning.conftest import demo_pod, run_pod, urgent
from tests.scheduling.conftest import make_snapshot
from tests.test_real_clusters_browser import _real as real_snapshot

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1366, "height": 900}

SCREENSHOTS = os.environ.get("PREEMPTLAB_SCREENSHOTS", "")


def _fits_the_window(page: Any, shot: str) -> None:
    if SCREENSHOTS:
        page.screenshot(path=os.path.join(SCREENSHOTS, f"{shot}.png"), full_page=True)
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    box = page.locator("#sentence").bounding_box()
    assert box is not None and box["y"] + box["height"] <= VIEWPORT["height"], box


def test_two_classes_of_the_demo_pod_compared_from_its_page(
    live_server: Any, page: Any, owner: Any, demo_snapshot: Any, no_broker: Any
) -> None:
    # The demo's question twice: a cat-3 pod of 1 CPU, a cat-2 pod of 2 CPUs.
    a = run_pod(demo_snapshot, demo_pod("orange-0", "cat-3"))
    b = run_pod(demo_snapshot, demo_pod("orange-1", "cat-2", cpu="2"))
    page.set_viewport_size(VIEWPORT)
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}{a.get_absolute_url()}")
    if SCREENSHOTS:
        page.locator("#actions").screenshot(path=os.path.join(SCREENSHOTS, "compare-with.png"))
    page.select_option("#compare-b", str(b.pk))
    page.click("#compare-with button[type=submit]")
    page.wait_for_url(f"{live_server.url}/analyses/compare/?a={a.pk}&b={b.pk}")
    _fits_the_window(page, "compare-demo")
    assert page.locator("#sentence").inner_text() == (
        "B preempts 1 more pod than A: default/blue-tcsrb-xlqml."
    )
    assert page.locator("#victims-added li").all_inner_texts() == ["default/blue-tcsrb-xlqml"]
    assert page.locator("#victims-removed li").count() == 0
    assert page.locator("#victims-kept li").all_inner_texts() == ["default/purple-6ldlh-r7w65"]
    row = page.locator("#row-nodes td").all_inner_texts()
    assert row == ["node-5", "node-5"]
    # "Swap A and B" asks the question the other way round.
    page.click("#swap")
    page.wait_for_url(f"{live_server.url}/analyses/compare/?a={b.pk}&b={a.pk}")
    assert page.locator("#sentence").inner_text() == (
        "B preempts 1 fewer pod than A: it spares default/blue-tcsrb-xlqml."
    )


def run_capacity(snapshot: Any, **question: Any) -> Any:
    queued = services.analysis_create_capacity(snapshot=snapshot, **question)
    done = services.analysis_run(analysis_id=queued.pk)
    assert done.is_done, done.error
    return done


def test_forty_character_node_names_wrap_inside_the_window(
    live_server: Any, page: Any, owner: Any, no_broker: Any
) -> None:
    nodes = [f"ip-10-0-{i}-{i}.eu-west-1.compute.internal"[:40] for i in (128, 129)]
    assert all(len(n) == 40 for n in nodes) and nodes[0] != nodes[1]
    objects: list[dict[str, Any]] = [
        make_priority_class("low", 100),
        make_priority_class("high", 1000),
    ]
    # The first node: four pods of 1 CPU started last; the second: two pods of 2 CPUs. A
    # pod of 1 CPU takes one pod from either and picks the first (its victim started
    # last); one of 3 CPUs takes two pods from the second rather than three.
    for node, cpu, count, started in ((nodes[0], "1", 4, "2025-02"), (nodes[1], "2", 2, "2025-01")):
        objects.append(make_node(node).capacity(cpu="4").obj())
        objects += [
            make_pod(f"payments-settlement-worker-7c6974c4d8-{node[8:11]}{i}x2q")
            .priority(100)
            .req(cpu=cpu)
            .node(node)
            .start_time(f"{started}-01T00:00:00Z")
            .obj()
            for i in range(count)
        ]
    snapshot = make_snapshot(owner, as_list(*objects))

    a, b = run_pod(snapshot, urgent("one-cpu", "1")), run_pod(snapshot, urgent("three-cpus", "3"))
    assert a.result and b.result
    assert (a.result["node"], b.result["node"]) == (nodes[0], nodes[1])
    page.set_viewport_size(VIEWPORT)
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/analyses/compare/?a={a.pk}&b={b.pk}")
    _fits_the_window(page, "compare-long-names")
    worker = "default/payments-settlement-worker-7c6974c4d8-"
    assert page.locator("#sentence").inner_text() == (
        f"B preempts 1 more pod than A: {worker}1290x2q and {worker}1291x2q instead of "
        f"{worker}1283x2q, on {nodes[1]} instead of {nodes[0]}."
    )
    assert page.locator("#victims-added li").count() == 2
    assert page.locator("#victims-removed li").all_inner_texts() == [f"{worker}1283x2q"]
    # Each answer's node is shown whole (wrapped, not cut), the row marked as differing.
    assert page.locator("#row-nodes td").all_inner_texts() == nodes
    assert page.locator("#row-nodes").get_attribute("class") == "differs"


def test_the_room_per_tier_before_and_after_a_new_class_on_a_real_cluster(
    live_server: Any, page: Any, owner: Any, no_broker: Any
) -> None:
    # ocp-aws (6 nodes, 239 pods) with its workers' pods at priority 100 and a class
    # "medium" (1,000) beside openshift-user-critical, as the real-cluster pages have it:
    # its room for 1 CPU / 2Gi, then with a class cat-3 (2,000) added.
    snapshot = real_snapshot(owner, "ocp-aws")
    size = Size("1", "2Gi")
    before = run_capacity(snapshot, size=size, limit=40)
    after = run_capacity(
        snapshot, size=size, limit=40, priority_classes=[make_priority_class("cat-3", 2000)]
    )
    assert after.room is not None and before.room is not None
    rows = {r.priority_class: r for r in after.room.rows}
    # No class is the globalDefault: pods naming none (priority 0) are a row of their own.
    assert list(rows) == ["openshift-user-critical", "cat-3", "medium", None]
    assert before.room.rows == (rows["openshift-user-critical"], rows["medium"], rows[None])
    new = rows["cat-3"]
    # The engine's own table: 7 fit in the free room, 2 more by preempting 6 pods.
    assert (new.fit_now, new.fit_by_preempting, new.victims_total) == (7, 2, 6)
    page.set_viewport_size(VIEWPORT)
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}{before.get_absolute_url()}")
    page.select_option("#compare-b", str(after.pk))
    page.click("#compare-with button[type=submit]")
    page.wait_for_url(f"{live_server.url}/analyses/compare/?a={before.pk}&b={after.pk}")
    _fits_the_window(page, "compare-capacity-ocp-aws")
    assert page.locator("#sentence").inner_text() == (
        "B adds cat-3: 9 replicas of 1 CPU / 2Gi fit, preempting 6 pods; "
        "the other 3 classes are unchanged."
    )
    # The sentence is the first thing the answer says: above the tables.
    top = page.locator("#sentence").bounding_box()["y"]
    assert top < page.locator("#side-by-side").bounding_box()["y"]
    assert page.locator("#room tbody tr").count() == 4
    assert page.locator("#room-2").get_attribute("class") == "differs"
    assert page.locator("#room-2 td").all_inner_texts() == [
        "cat-3",
        "not asked",
        "9 (7 now + 2)",
        "+9",
        "not asked",
        "6",
        "+6",
        "not asked",
        str(new.pdbs_exceeded),
    ]
    assert page.locator("#room-1").get_attribute("class") is None
