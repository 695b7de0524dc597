"""The workload page's words, over runs the engine makes of the demo cluster."""

from __future__ import annotations

from typing import Any

from clusters.demo import demo_objects
from scheduling.analyses.workloads import NOT_CREATED_TEXT, VictimInfo, WorkloadRun
from scheduling.constants import VICTIMS_LISTED_PER_GROUP
from scheduling.engine import load_cluster, simulate
from scheduling.engine.workload import admit, expand_workload
from scheduling.presenters import workload as wp
from scheduling.reports.text import render_workload_text


def _run(replicas: int, cpu: str = "1", cls: str = "cat-3") -> WorkloadRun:
    cluster = load_cluster(demo_objects()["items"])
    dep: dict[str, Any] = {
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "priorityClassName": cls,
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
                },
            },
        },
    }
    w = expand_workload([dep])
    admit(w, cluster.resolver)
    run = WorkloadRun.from_simulation(simulate(cluster, w.pods), w)
    # What the page reads is what was stored.
    return WorkloadRun.from_json(run.to_json())


def test_the_sentence_counts_replicas_victims_apps_and_overruns() -> None:
    run = _run(6)
    overruns = {r.pdb: r.overrun for r in run.pdb_report if r.exceeded}
    assert overruns == {"default/purple-pdb": 2, "default/blue-pdb": 2}
    assert wp.workload_sentence(run) == (
        "6 of 6 replicas run; 6 pods of 2 apps evicted; PDB default/purple-pdb exceeded by 2; "
        "PDB default/blue-pdb exceeded by 2"
    )


def test_a_budget_kept_is_said_to_be_kept() -> None:
    run = _run(1)
    (report,) = run.pdb_report
    assert not report.exceeded
    assert wp.pdb_paragraph(report).endswith("within the budget.")


def test_unschedulable_replicas_are_counted_and_reported_with_their_message() -> None:
    run = _run(2, cpu="64", cls="cat-1")
    assert wp.workload_sentence(run) == "0 of 2 replicas run; nothing evicted"
    text = render_workload_text(run)
    assert "Left pending:" in text
    assert "Insufficient cpu" in text


def test_the_nodes_before_and_after_balance() -> None:
    run = _run(6)
    for n in run.nodes:
        # Each node gave up one 1-CPU victim per replica bound there.
        assert n.cpu_after - n.cpu_before == 1000 * (len(n.bound) - len(n.evicted))
        assert n.pods_after == n.pods_before + len(n.bound) - len(n.evicted)


def test_a_large_owner_group_names_some_victims_and_counts_the_rest() -> None:
    run = _run(1)
    v = run.victims[0]
    run.victims = [
        VictimInfo(**{**v.__dict__, "pod": f"default/p-{i}"})
        for i in range(VICTIMS_LISTED_PER_GROUP + 5)
    ]
    (group,) = wp.victim_groups(run)
    assert len(group.listed) == VICTIMS_LISTED_PER_GROUP
    assert group.unlisted == 5


def test_the_picture_has_a_row_a_cycle_up_to_its_limit() -> None:
    run = _run(6)
    svg = str(wp.run_svg(run, max_cycles=5))
    assert svg.count('<g class="cycle"') == 5
    assert "The first 5 of 12 cycles" in svg


def test_a_stateful_set_pod_never_created_says_why_instead_of_a_failed_scheduling() -> None:
    # OrderedReady: db-1 asks for more than any demo node has, so db-2 is never created.
    cluster = load_cluster(demo_objects()["items"])
    template = {
        "metadata": {"labels": {"app": "db"}},
        "spec": {"priorityClassName": "cat-3", "containers": [{"name": "db"}]},
    }
    sts: dict[str, Any] = {
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "db"}}, "template": template},
    }
    w = expand_workload([sts])
    w.pods[1]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "640"}}
    admit(w, cluster.resolver)
    run = WorkloadRun.from_json(WorkloadRun.from_simulation(simulate(cluster, w.pods), w).to_json())
    why = dict((p.pod, text) for p, text in run.left_pending())
    assert "Insufficient cpu" in why["default/db-1"]
    assert why["default/db-2"] == NOT_CREATED_TEXT
    assert f"default/db-2: {NOT_CREATED_TEXT}" in render_workload_text(run)


def test_a_run_over_many_nodes_gives_the_busiest_a_column_and_the_rest_one() -> None:
    """60 node columns would shrink every label past reading: the busiest get their own,
    the others share one column that says how many and which (its title)."""
    import re

    nodes = [
        {
            "kind": "Node",
            "metadata": {"name": f"ip-10-0-{i}-1.eu-west-1.compute.internal"},
            "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}},
        }
        for i in range(30)
    ]
    cluster = load_cluster(nodes)
    dep: dict[str, Any] = {
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 30,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]},
            },
        },
    }
    w = expand_workload([dep])
    admit(w, cluster.resolver)
    run = WorkloadRun.from_simulation(simulate(cluster, w.pods), w)
    assert run.bound_count == 30  # one replica on each of the 30 nodes
    svg = str(wp.run_svg(run))
    headers = re.findall(r'<text class="node"[^>]*><title>([^<]*)</title>([^<]*)</text>', svg)
    assert len(headers) == wp.RUN_SVG_MAX_NODE_COLUMNS
    title, label = headers[-1]
    assert label == f"+{30 - wp.RUN_SVG_MAX_NODE_COLUMNS + 1} other nodes"
    assert title.count("compute.internal") == 30 - wp.RUN_SVG_MAX_NODE_COLUMNS + 1
    assert len(re.findall(r'class="dot-bound"', svg)) == 30 + 1  # every bind, and the legend
