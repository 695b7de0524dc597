"""A Deployment rolled out on the demo snapshot, in Debian's chromium and over the API,
simulated by a real worker on Redis.

Six cat-3 replicas of 1 CPU / 2 GiB on the full demo cluster: each replica preempts one
cat-1 pod, and successive cycles take blue and purple (PDBs of minAvailable 3 over 4
replicas: 1 disruption allowed each) down by 3, while every cycle counts 0 violations.
The expected answer is the engine's own, computed here from the same objects.
"""

from __future__ import annotations

import json
import os
import time
import urllib.request
from typing import Any

import pytest
import yaml
from rest_framework.authtoken.models import Token

from clusters.selectors import snapshot_objects
from scheduling.engine import load_cluster, simulate
from scheduling.engine.workload import admit, expand_workload
from scheduling.models import Analysis
from tests.conftest import browser_login
from tests.verdict import without_verdict

pytestmark = [pytest.mark.browser, pytest.mark.worker]

SCREENSHOTS = os.environ.get("PREEMPTLAB_SCREENSHOTS", "")

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "replicas": 6,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "priorityClassName": "cat-3",
                "containers": [
                    {
                        "name": "main",
                        "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
                    }
                ],
            },
        },
    },
}


def _expected(snapshot: Any, *, timeline: bool = False) -> dict[str, Any]:
    cluster = load_cluster(snapshot_objects(snapshot=snapshot))
    w = expand_workload([DEPLOYMENT])
    admit(w, cluster.resolver)
    out = simulate(cluster, w.pods, timeline=timeline).to_dict()
    return json.loads(json.dumps(out, default=lambda e: e.value))


def _api(url: str, token: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        method="POST" if body is not None else "GET",
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, json.loads(r.read())


def test_a_deployment_overruns_a_pdb_on_the_page_and_over_the_api(
    live_server: Any, celery_worker_process: Any, page: Any, owner: Any
) -> None:
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/snapshots/")
    page.get_by_role("button", name="Load the demo snapshot").click()
    page.wait_for_selector("#snapshot-status")
    page.click("#whatif-tab")
    page.click("label[for=mode-manifest]")
    page.fill("#id_manifest", yaml.safe_dump(DEPLOYMENT))
    page.get_by_role("button", name="Analyze").click()

    page.wait_for_url(f"{live_server.url}/analyses/*/")
    outcome = page.locator("#outcome")
    outcome.wait_for(timeout=60_000)
    assert page.locator("#analysis-body").get_attribute("hx-trigger") is None

    analysis = Analysis.objects.get()
    assert analysis.kind == "workload"
    # The form keeps time unless told not to: the demo's victims take their default 30 s.
    assert analysis.timeline
    expected = _expected(analysis.snapshot, timeline=True)
    exceeded = [r for r in expected["pdb_report"] if r["exceeded"]]
    assert exceeded, "the scenario must overrun a PDB"
    sentence = outcome.inner_text()
    assert sentence.startswith("6 of 6 replicas run; 6 pods of 2 apps evicted")
    for r in exceeded:
        over = len(r["deleted_matching_victims"]) - r["disruptions_allowed"]
        assert f"PDB {r['pdb']} exceeded by {over}" in sentence
        paragraph = page.locator(f'#pdb-report [data-pdb="{r["pdb"]}"]').inner_text()
        assert "the scheduler counted 0 violations" in paragraph
    victims = page.locator("#victims [data-victim]")
    assert (
        sorted(v.get_attribute("data-victim") for v in victims.all()) == expected["deleted_victims"]
    )
    # The picture: one row a cycle, a ring where a replica preempted.
    svg = page.locator("#run-svg")
    assert svg.locator("g.cycle").count() == len(expected["cycles"])
    preempting = [c for c in expected["cycles"] if c["result"] == "preempted"]
    assert svg.locator("g.cycle circle.dot-preempt").count() == len(preempting)
    assert page.locator("#nodes-svg").is_visible()
    # The run on a clock: a bar per victim terminating, a dot per replica bound, and
    # when each replica runs, in words.
    clock = page.locator("#timeline-svg")
    assert clock.is_visible()
    bars = clock.locator("rect.seg-victim[data-victim]")
    assert sorted(b.get_attribute("data-victim") for b in bars.all()) == sorted(
        t["pod"] for t in expected["terminations"]
    )
    assert "grace period 30 s" in (bars.first.locator("title").text_content() or "")
    assert clock.locator("circle.dot-bound[data-bound]").count() == 6
    waits = " ".join(page.locator("#verdict [data-wait]").all_inner_texts())
    assert "run 30 s after they were submitted, once their victim" in waits
    last = max(p["bound_at"] for p in expected["pods"])
    assert 30 <= last < 31
    if SCREENSHOTS:
        page.screenshot(path=os.path.join(SCREENSHOTS, "workload.png"), full_page=True)
        clock.screenshot(path=os.path.join(SCREENSHOTS, "timeline.png"))
        page.locator("#verdict").screenshot(path=os.path.join(SCREENSHOTS, "verdict.png"))

    # A cycle's own explanation, from its row.
    page.locator('#cycles tr[data-cycle="3"] button').click()
    page.wait_for_url(f"{live_server.url}/analyses/*/")
    page.locator("#chosen-node").wait_for(timeout=60_000)
    assert page.locator("#chosen-node").inner_text() == preempting[2]["nominated_node"]
    assert "Cycle 3 of" in page.locator("#cycle-of").inner_text()

    # The same over the API.
    token = Token.objects.create(user=owner).key
    base = f"{live_server.url}/api/snapshots/{analysis.snapshot_id}/analyses/"
    status, accepted = _api(base, token, {"objects": [DEPLOYMENT]})
    assert status == 202
    expected = _expected(analysis.snapshot)  # the API keeps no time unless asked
    deadline = time.monotonic() + 60
    while True:
        _, body = _api(accepted["url"], token)
        if body["status"] in ("done", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert body["status"] == "done", body
    assert body["kind"] == "workload"
    assert without_verdict(body["result"]) == {
        "outcome": "all-run",
        **expected,
    }  # the six replicas run
