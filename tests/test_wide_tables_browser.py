"""The wide tables of the result pages at 1366 x 900 on the real dumps: the scores
("why this node"), the capacity answer's replica by replica, a workload's replicas and
cycles. Each fits its card with no sideways scroll, every cell of it (the deciding
column above all: the Total, the victims so far, the node) is in the window, and the
plugins are named as kube-scheduler spells them. ocp-aws's nodes are given the names
EC2 gives outside us-east-1 (42 characters); ocp-vsphere keeps its own (38, dotless)."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling import services
from tests.clusters.builders import make_deployment
from tests.conftest import browser_login
from tests.realworld import (
    demote_workers,
    import_dump,
    lengthen_node_names,
    pending_pod,
    real_dump,
)

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 1366, 900
# A real operator's namespace and name: pod names of 80 characters and more.
NAMESPACE = "openshift-kube-controller-manager-operator"
APP = "kube-controller-manager-operator"

# The table, its container and the page: their widths; and every cell out of the window.
MEASURE = """(selector) => {
  const table = document.querySelector(selector);
  if (!table) return null;
  const box = table.parentElement;
  const out = [...table.querySelectorAll("th, td")]
    .map(c => [c.className, c.textContent.trim().slice(0, 40), c.getBoundingClientRect()])
    .filter(([, , r]) => r.left < 0 || r.right > window.innerWidth)
    .map(([cls, text, r]) => `${cls} "${text}" ${Math.round(r.left)}..${Math.round(r.right)}`);
  return {table: [table.scrollWidth, table.clientWidth], box: [box.scrollWidth, box.clientWidth],
          page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
          out, rows: table.querySelectorAll("tbody tr").length};
}"""


def _pod(name: str, cpu: str) -> dict[str, Any]:
    return pending_pod(name, cpu, namespace=NAMESPACE)


def _scored_pod() -> dict[str, Any]:
    """A small pod that every plugin with an opinion scores: spread, affinity, anti-affinity."""
    pod = _pod("scored", "100m")
    same = {"matchLabels": {"app": "scored"}}
    pod["spec"]["topologySpreadConstraints"] = [
        {
            "maxSkew": 1,
            "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": same,
        }
    ]
    linux = {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}
    pod["spec"]["affinity"] = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "preference": {"matchExpressions": [linux]}}
            ]
        },
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "podAffinityTerm": {
                        "topologyKey": "kubernetes.io/hostname",
                        "labelSelector": same,
                    },
                }
            ]
        },
    }
    return pod


def _snapshot(owner: Any, cluster: str) -> Any:
    dump = demote_workers(real_dump(cluster))
    return import_dump(owner, cluster, lengthen_node_names(dump) if cluster == "ocp-aws" else dump)


@pytest.mark.parametrize("cluster", ["ocp-aws", "ocp-vsphere"])
def test_the_deciding_column_of_each_wide_table_is_in_the_window(
    live_server: Any, browser: Any, owner: Any, cluster: str
) -> None:
    snapshot = _snapshot(owner, cluster)

    def run(analysis: Any) -> Any:
        done = services.analysis_run(analysis_id=analysis.pk)
        assert done.is_done, done.error
        return done

    scored = run(services.analysis_create(snapshot=snapshot, pod=_scored_pod()))
    assert scored.result["outcome"] == "fits"
    room = run(
        services.analysis_create_capacity(snapshot=snapshot, pod=_pod(APP, "1500m"), limit=40)
    )
    rollout = make_deployment(APP, _pod(APP, "1500m")["spec"], replicas=12, namespace=NAMESPACE)
    workload = run(services.analysis_create_workload(snapshot=snapshot, objects=[rollout]))
    timed = run(
        services.analysis_create_workload(snapshot=snapshot, objects=[rollout], timeline=True)
    )
    shared = services.share_link_create(analysis=workload).get_absolute_url()
    tables = [
        (scored.get_absolute_url(), "table.scores"),
        (room.get_absolute_url(), "table.replicas"),
        (workload.get_absolute_url(), "#replicas table"),
        (workload.get_absolute_url(), "#cycles table"),
        (timed.get_absolute_url(), "#replicas table"),
        (timed.get_absolute_url(), "#cycles table"),
        (shared, "#cycles table"),
    ]
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    page = context.new_page()
    try:
        browser_login(page, live_server, "owner")
        problems = []
        for path, selector in tables:
            page.goto(f"{live_server.url}{path}")
            m = page.evaluate(MEASURE, selector)
            assert m is not None and m["rows"] > 0, (path, selector)
            for name in ("table", "box", "page"):
                inner, outer = m[name]
                if inner > outer:
                    problems.append(f"{path} {selector}: {name} {inner}px in {outer}px")
            problems += [f"{path} {selector}: out of the window: {c}" for c in m["out"]]
        assert problems == [], "\n".join(problems)

        # The scores: the Total of every node shown, and the plugins by their own names.
        page.goto(f"{live_server.url}{scored.get_absolute_url()}")
        totals = page.locator("table.scores td.total")
        assert totals.count() == page.locator("table.scores tbody tr").count() >= 2
        headers = page.locator("table.scores th.plugin").all_inner_texts()
        names = [h.splitlines()[0] for h in headers]
        assert "NodeResourcesFit" in names and "NodeResourcesBalancedAllocation" in names
        assert all(not n.isupper() for n in names), names
        # A long name breaks between its words: its column is narrower than the name.
        widest = page.evaluate(
            """() => Math.max(...[...document.querySelectorAll("table.scores th.plugin")]
                 .map(th => th.getBoundingClientRect().width))"""
        )
        whole = page.evaluate(
            """() => { const s = document.createElement("span");
                 s.textContent = "NodeResourcesBalancedAllocation";
                 document.querySelector("table.scores th.plugin").appendChild(s);
                 s.style.whiteSpace = "nowrap";
                 const w = s.getBoundingClientRect().width; s.remove(); return w; }"""
        )
        assert widest < whole
    finally:
        context.close()
