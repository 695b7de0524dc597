"""The result page answers "what, and why" above the fold, in Debian's chromium.

One small snapshot per outcome, analysed by the service the worker runs, then the
page opened at 1366x900: the headline and the sentence under it must be read
without scrolling, and nothing may widen the page past the window.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from scheduling import services
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis
from tests.conftest import browser_login
from tests.engine.builders import as_list, make_node, make_pdb, make_pod, make_priority_class
from tests.scheduling.conftest import make_snapshot

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1366, "height": 900}
SCREENSHOTS = os.environ.get("PREEMPTLAB_SCREENSHOTS", "")
OLD, NEW = "2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z"


def _classes() -> list[dict[str, Any]]:
    return [make_priority_class("low", 100), make_priority_class("high", 1000)]


def _full_nodes(start_a: str = OLD, start_b: str = NEW, prio: int = 100) -> list[dict[str, Any]]:
    """node-a and node-b, 4 CPUs each, each full with four 1-CPU pods of priority ``prio``."""
    objects: list[dict[str, Any]] = []
    for node, start in (("node-a", start_a), ("node-b", start_b)):
        objects.append(make_node(node).obj())
        for i in range(4):
            objects.append(
                make_pod(f"{node[-1]}-{i}")
                .labels(app=node)
                .priority(prio)
                .req(cpu="1")
                .node(node)
                .start_time(start)
                .obj()
            )
    return objects


def _analyse(owner: Any, objects: list[dict[str, Any]], pod: dict[str, Any]) -> Analysis:
    snapshot = make_snapshot(owner, as_list(*objects))
    analysis = Analysis.objects.create(
        snapshot=snapshot,
        pod=pod,
        pod_key=f"{pod['metadata']['namespace']}/{pod['metadata']['name']}",
        status=AnalysisStatus.QUEUED,
    )
    return services.analysis_run(analysis_id=analysis.pk)


def _open(page: Any, live_server: Any, analysis: Analysis, shot: str) -> Any:
    page.set_viewport_size(VIEWPORT)
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}{analysis.get_absolute_url()}")
    page.locator("#outcome").wait_for()
    if SCREENSHOTS:
        page.screenshot(path=os.path.join(SCREENSHOTS, f"{shot}.png"))
        page.screenshot(path=os.path.join(SCREENSHOTS, f"{shot}-full.png"), full_page=True)
    # Nothing is wider than the window: long names wrap, wide tables scroll in their card.
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    return page


def _above_the_fold(page: Any, selector: str) -> str:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    assert box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"], (selector, box)
    text: str = page.locator(selector).first.inner_text()
    return " ".join(text.split())


def test_a_score_tie_reads_as_a_random_pick(live_server: Any, page: Any, owner: Any) -> None:
    objects = [
        *_classes(),
        make_node("node-1").obj(),
        make_pod("busy").priority(100).req(cpu="2", memory="4Gi").node("node-1").obj(),
        make_node("node-3").obj(),
        make_node("node-4").obj(),
        make_node("node-5").obj(),
    ]
    pod = make_pod("web").priority(100).req(cpu="1", memory="1Gi").obj()
    analysis = _analyse(owner, objects, pod)
    ex = analysis.explained
    assert ex is not None and ex.tied_nodes == ["node-3", "node-4", "node-5"]
    total = ex.scores.nodes[0].total if ex.scores else 0
    _open(page, live_server, analysis, "fits-tie")
    assert _above_the_fold(page, "#outcome") == (
        "Fits on node-3, node-4 or node-5 (a tie kube-scheduler breaks at random)."
    )
    assert _above_the_fold(page, "#why") == (
        f"node-3, node-4 or node-5: tied at {total}, kube-scheduler picks one at random; "
        "this analysis shows node-3, the first by name."
    )
    assert _above_the_fold(page, "#score-tie") == (
        f"node-3, node-4 or node-5: tied at {total}, kube-scheduler picks one at random."
    )
    tied = page.locator("#scores tr.top").evaluate_all("rows => rows.map(r => r.dataset.node)")
    assert tied == ["node-3", "node-4", "node-5"]
    # A fit has no victims and no "why it was not chosen" of a chosen victim.
    assert page.locator("#victims").count() == 0
    assert "victims" not in page.locator("svg.capacity").inner_html()


def test_a_preemption_names_victims_budgets_and_the_deciding_criterion(
    live_server: Any, page: Any, owner: Any
) -> None:
    objects = [
        *_classes(),
        *_full_nodes(),
        make_pdb("b-pdb", match_labels={"app": "node-b"}, disruptions_allowed=10),
    ]
    pod = make_pod("urgent").priority(1000).req(cpu="4").obj()
    analysis = _analyse(owner, objects, pod)
    _open(page, live_server, analysis, "preempts")
    assert _above_the_fold(page, "#outcome") == "Preempts 4 pods on node-b."
    assert _above_the_fold(page, "#why") == (
        "It evicts default/b-0, default/b-1, default/b-2 and 1 more (their PodDisruptionBudget "
        "default/b-pdb allows it); node-b beat node-a on Start time: its highest-priority victim "
        "started most recently."
    )
    assert page.locator("#tie-break tr.winner").get_attribute("data-node") == "node-b"


def test_no_lower_priority_pods_is_the_reason(live_server: Any, page: Any, owner: Any) -> None:
    objects = [*_classes(), *_full_nodes(prio=1000)]
    pod = make_pod("urgent").priority(1000).req(cpu="4").obj()
    analysis = _analyse(owner, objects, pod)
    _open(page, live_server, analysis, "unschedulable-no-lower")
    assert _above_the_fold(page, "#outcome") == "Cannot be scheduled, and preemption cannot help."
    assert _above_the_fold(page, "#why") == (
        "Preemption cannot help on any node. 2 nodes: no lower-priority pods to preempt."
    )
    assert (
        "No preemption victims found for incoming pod"
        in page.locator("#event-message").inner_text()
    )
    assert page.locator(".group[data-verdict=no-lower-priority-pods]").count() == 1


def test_policy_never_is_the_reason(live_server: Any, page: Any, owner: Any) -> None:
    objects = [*_classes(), *_full_nodes()]
    pod = make_pod("polite").priority(1000).preemption_policy("Never").req(cpu="4").obj()
    analysis = _analyse(owner, objects, pod)
    _open(page, live_server, analysis, "unschedulable-never")
    assert _above_the_fold(page, "#outcome") == "Cannot be scheduled, and preemption cannot help."
    assert _above_the_fold(page, "#why") == (
        "kube-scheduler does not try to preempt for it: its preemptionPolicy is Never; "
        "2 nodes fail a filter (Insufficient cpu)."
    )
    verdicts = page.locator(".group").evaluate_all("gs => gs.map(g => g.dataset.verdict)")
    assert verdicts == ["policy-never"]


def test_a_pasted_running_pod_says_what_was_dropped(
    live_server: Any, page: Any, owner: Any
) -> None:
    long_node = "ip-10-0-123-45.eu-west-1.compute.internal-" + "x" * 70
    # The kubelet's hostname label is a label value: 63 characters at most.
    node = make_node(long_node).label("kubernetes.io/hostname", long_node[:63].rstrip("-"))
    objects = [*_classes(), node.obj()]
    pod = (
        make_pod("checkout-" + "y" * 60, namespace="payments-" + "z" * 40)
        .priority(100)
        .preemption_policy("PreemptLowerPriority")
        .req(cpu="1")
        .node("node-gone")
        .start_time(OLD)
        .obj()
    )
    pod["status"]["podIP"] = "10.0.0.7"
    analysis = _analyse(owner, objects, pod)
    _open(page, live_server, analysis, "dropped-node-name")
    assert _above_the_fold(page, "#outcome") == f"Fits on {long_node}."
    notices = [" ".join(t.split()) for t in page.locator("[data-notice]").all_inner_texts()]
    assert notices[0].startswith("spec.nodeName (node-gone) was ignored: a pod with nodeName set")
    assert re.match(r"status \(phase Running: phase, podIP, startTime\) was ignored", notices[1])
    for i in range(len(notices)):
        _above_the_fold(page, f"[data-notice] >> nth={i}")
