"""Where a volume decided, in the result page's words and the CLI reports', on the
hand-made snapshot of ``storage_scenario`` (its docstring derives the answer): the
broker is pinned to eu-west-1a by data-kafka-0, both eu-west-1a nodes are at 2 of 2
EBS attachments, the eu-west-1b node is out for the volume's node affinity."""

from __future__ import annotations

import html
import json
from io import StringIO
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.template.loader import render_to_string

from scheduling.analyses.workloads import BoundClaim, WorkloadRun
from scheduling.engine import Outcome, analyze, load_cluster, simulate
from scheduling.engine.result import explain
from scheduling.engine.volumes.binding import ASSUME_PROVISIONED
from scheduling.engine.workload import admit, expand_workload
from scheduling.presenters import pod as pod_presenters
from scheduling.presenters import volumes as vp
from scheduling.reports.markdown import render_markdown, render_workload_markdown
from scheduling.reports.text import render_text, render_workload_text
from scheduling.views.contexts import result_context, workload_context
from tests.engine.builders import as_list
from tests.scheduling.storage_scenario import (
    NODE_A1,
    NODE_A2,
    NODE_B1,
    ZONE_A,
    bound_claim,
    pinned_broker,
    pinned_broker_objects,
    with_claim,
)

PIN = (
    "Pinned to eu-west-1a by its volume data-kafka-0 (PersistentVolume pv-data-kafka-0): "
    "VolumeBinding rejects every node outside eu-west-1a as unresolvable, so no preemption "
    "can move it there."
)
FULL = "this node has 2 of 2 attachments of ebs.csi.aws.com in use; the pod needs 1 more"
AFFINITY = "node(s) didn't match PersistentVolume's node affinity"


def _explained() -> Any:
    ex = explain(analyze(load_cluster(as_list(*pinned_broker_objects())), pinned_broker()))
    # The answer the scenario derives: one low-priority holder goes on an eu-west-1a node.
    assert ex.outcome == Outcome.PREEMPTS and ex.node == NODE_A1
    return ex


def test_the_pod_says_which_volume_pinned_it() -> None:
    assert vp.pin_sentences(_explained()) == [PIN]


def test_a_volume_pinned_by_its_zone_label_alone_names_volume_zone() -> None:
    # Without node affinity VolumeBinding passes every node; VolumeZone reads the
    # volume's zone label and rejects the eu-west-1b node.
    objects = [
        o
        for o in pinned_broker_objects()
        if o["metadata"]["name"] not in ("data-kafka-0", "pv-data-kafka-0")
    ]
    objects += bound_claim("data-kafka-0", ZONE_A, affinity=False)
    ex = explain(analyze(load_cluster(as_list(*objects)), pinned_broker()))
    assert vp.pin_sentences(ex) == [
        "Pinned to eu-west-1a by its volume data-kafka-0 (PersistentVolume pv-data-kafka-0): "
        "VolumeZone rejects every node outside eu-west-1a as unresolvable, so no preemption "
        "can move it there."
    ]
    assert vp.node_volumes(ex)[NODE_B1].reasons == ["node(s) had no available volume zone"]


def test_a_pod_without_volumes_has_no_pin() -> None:
    pod = pinned_broker()
    del pod["spec"]["volumes"]
    ex = explain(analyze(load_cluster(as_list(*pinned_broker_objects())), pod))
    assert vp.pin_sentences(ex) == [] and vp.node_volumes(ex) == {}


def test_each_node_carries_its_volume_plugin_and_attach_counts() -> None:
    by_node = vp.node_volumes(_explained())
    assert {n: (v.plugin, v.sentences) for n, v in by_node.items()} == {
        NODE_A1: ("NodeVolumeLimits", [FULL]),
        NODE_A2: ("NodeVolumeLimits", [FULL]),
        NODE_B1: ("VolumeBinding", [AFFINITY]),
    }


def test_the_groups_of_other_nodes_carry_the_volume_reasons() -> None:
    ex = _explained()
    groups = pod_presenters.rejected_groups(ex)
    by_group = vp.group_volumes(ex, groups)
    # The nominated node is not an "other node": node-a2 (a candidate that lost the
    # tie-break) and the eu-west-1b node, each in its own group.
    seen = {tuple(g.nodes): by_group[g.index] for g in groups}
    assert seen[(NODE_A2,)].headline == "Rejected for its volumes by NodeVolumeLimits."
    assert seen[(NODE_A2,)].attachments == [(NODE_A2, [FULL])]
    assert seen[(NODE_B1,)].headline == "Rejected for its volumes by VolumeBinding."
    assert seen[(NODE_B1,)].attachments == []


def test_the_page_carries_them_in_the_tie_break_and_the_groups() -> None:
    ctx = result_context(_explained())
    html = render_to_string("scheduling/partials/candidates.html", ctx)
    assert "<th>Volumes</th>" in html
    assert html.count(f"NodeVolumeLimits</span>: {FULL}") == 2  # both candidates
    body = render_to_string(
        "scheduling/partials/body.html",
        {**ctx, "analysis": _Done(), "page_url": "/a/1/", "shared": True},
    )
    assert PIN in body
    assert "Rejected for its volumes by VolumeBinding." in body
    assert f"<code>{NODE_A2}</code>: {FULL}" in body


class _Done:
    """What body.html asks of a finished single-pod analysis."""

    status = "done"
    is_active = False
    is_failed = False
    is_workload = False
    is_capacity = False
    parent_id = None
    scrubbed_lines: list[str] = []
    pod: dict[str, Any] = {}
    priority_classes = None
    engine_version = "1.3"
    created = None
    load_seconds = 0.1
    engine_seconds = 0.1
    attempts = 1


def test_the_text_and_markdown_reports_say_it_too() -> None:
    ex = _explained()
    text = render_text(ex)
    assert f"Volume: {PIN}" in text.splitlines()
    assert f"  {NODE_A2}: NodeVolumeLimits: {FULL}" in text.splitlines()
    assert f"  1 node: VolumeBinding: {AFFINITY}: {NODE_B1}" in text.splitlines()
    assert "3 nodes rejected for the pod's volumes:" in text.splitlines()
    md = render_markdown(ex, snapshot="snap", gate_failures=[])
    assert "- Pinned to eu-west-1a by its volume data-kafka-0" in md
    assert f"| `{NODE_A1}` | NodeVolumeLimits | {FULL} |" in md
    assert "3 nodes rejected for the pod's volumes</summary>" in md
    assert f"| 1 node | VolumeBinding | {AFFINITY} |" in md


def _zookeeper() -> dict[str, Any]:
    """One replica whose claim data-zk-0 does not exist yet, under gp3
    (WaitForFirstConsumer): the controller creates it and it is bound where zk-0 lands."""
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "zk", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "serviceName": "zk",
            "selector": {"matchLabels": {"app": "zk"}},
            "template": {
                "metadata": {"labels": {"app": "zk"}},
                "spec": {
                    "priorityClassName": "low",
                    "containers": [
                        {
                            "name": "zk",
                            "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
                            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                        }
                    ],
                },
            },
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {
                        "storageClassName": "gp3",
                        "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "10Gi"}},
                    },
                }
            ],
        },
    }


def _zk_run() -> WorkloadRun:
    cluster = load_cluster(as_list(*pinned_broker_objects()))
    w = expand_workload([_zookeeper()])
    admit(w, cluster.resolver)
    run = WorkloadRun.from_simulation(simulate(cluster, w.pods), w)
    return WorkloadRun.from_json(run.to_json())  # what the page reads is what was stored


def test_a_workload_lists_its_assumptions_and_the_claims_it_bound() -> None:
    # Both eu-west-1a nodes are at their EBS limit (an unbound claim counts by its
    # class's provisioner), and zk may not preempt the pods of its own class: zk-0
    # lands on the eu-west-1b node, and its new claim is bound there.
    run = _zk_run()
    assert run.bound_claims == [BoundClaim("default/data-zk-0", NODE_B1)]
    assert vp.assumption_sentences(run) == [f"Assumed: {ASSUME_PROVISIONED}."]
    bound = (
        f"default/data-zk-0 bound on {NODE_B1}, where its first pod landed; it pins the "
        "pods using it from then on"
    )
    assert vp.bound_claim_sentences(run) == [bound]
    text = render_workload_text(run).splitlines()
    assert "Volumes:" in text and f"  {bound}." in text
    md = render_workload_markdown(run, snapshot="snap", gate_failures=[])
    assert "#### Volumes" in md and f"- {bound}." in md


def test_a_run_that_bound_nothing_says_nothing_of_volumes() -> None:
    cluster = load_cluster(as_list(*pinned_broker_objects()))
    sts = _zookeeper()
    del sts["spec"]["volumeClaimTemplates"]
    w = expand_workload([sts])
    admit(w, cluster.resolver)
    run = WorkloadRun.from_simulation(simulate(cluster, w.pods), w)
    assert run.assumptions == [] and run.bound_claims == []
    assert "Volumes:" not in render_workload_text(run)


def test_the_workload_page_lists_them() -> None:
    run = _zk_run()
    page = html.unescape(
        render_to_string("scheduling/partials/workload_volumes.html", workload_context(run))
    )
    assert f'<p class="note" data-assumption>Assumed: {ASSUME_PROVISIONED}.</p>' in page
    assert f"<li data-bound-claim>default/data-zk-0 bound on {NODE_B1}," in page


def test_manage_whatif_reads_the_volumes_from_the_snapshot_files(tmp_path: Path) -> None:
    snap, pod = tmp_path / "snap.json", tmp_path / "pod.json"
    snap.write_text(json.dumps(as_list(*pinned_broker_objects())))
    pod.write_text(json.dumps(pinned_broker()))
    for fmt, pin, node in (
        ("text", f"Volume: {PIN}", f"  {NODE_A2}: NodeVolumeLimits: {FULL}"),
        ("markdown", f"- {PIN}", f"| `{NODE_A2}` | NodeVolumeLimits | {FULL} |"),
    ):
        out = StringIO()
        call_command("whatif", str(snap), str(pod), "--format", fmt, stdout=out)
        lines = out.getvalue().splitlines()
        assert pin in lines and node in lines, fmt


def test_a_missing_claim_is_said_once_for_every_node() -> None:
    # VolumeRestrictions' PreFilter (the first to read the pod's claims) rejects the pod
    # before any node is looked at: every node has the same reason, said once with the
    # count, not node by node.
    pod = with_claim(pinned_broker(), "data-missing")
    ex = explain(analyze(load_cluster(as_list(*pinned_broker_objects())), pod))
    counted, others = vp.volume_rejections(ex)
    assert counted == []
    assert [(g.plugin, g.reasons, len(g.nodes)) for g in others] == [
        ("VolumeRestrictions", ['persistentvolumeclaim "data-missing" not found'], 3)
    ]
    lines = render_text(ex).splitlines()
    assert "3 nodes rejected for the pod's volumes:" in lines
    assert sum(1 for line in lines if "VolumeRestrictions:" in line) == 1
