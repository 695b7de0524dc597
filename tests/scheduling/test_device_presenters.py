"""The "Devices" card of a pod's result page and a workload's devices per node, on the
hand-made snapshot of device_scenario (8 A100s on 2 nodes held by low-priority pods,
a high-priority pod claiming 4)."""

from __future__ import annotations

import html
import re
from typing import Any

from django.template.loader import render_to_string

from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine import analyze, load_cluster, simulate
from scheduling.engine.workload import admit, expand_workload
from scheduling.presenters.devices import HolderRow, NodeDevices, device_card, node_devices
from scheduling.views.contexts import workload_context
from tests.engine.builders import as_list
from tests.scheduling.device_scenario import (
    NAMESPACE,
    NODE_1,
    NODE_2,
    NODE_3,
    SENTENCE,
    held_gpus_cluster,
    trainer_deployment,
    training_pod,
    with_free_node_objects,
)


def test_the_card_says_who_holds_the_gpus_and_what_works() -> None:
    result = analyze(held_gpus_cluster(), training_pod())
    assert result.to_dict()["outcome"] == "unschedulable"
    card = device_card(result.explanation)
    assert card is not None
    assert card.sentence == SENTENCE[0].upper() + SENTENCE[1:] + "."
    assert [c.text for c in card.classes] == [
        "Asks 4 GPUs of class a100: 8 held by other pods, 0 free"
    ]
    assert card.holders == [
        HolderRow(
            name=f"infer-{i}",
            namespace=NAMESPACE,
            priority=100,
            lower_priority=True,
            node=node,
            claim=f"infer-{i}-gpus",
            device_class="a100",
            devices=4,
            owner="ReplicaSet/infer-7d9f",
        )
        for i, node in enumerate((NODE_1, NODE_2))
    ]
    assert card.owners == ["ReplicaSet/infer-7d9f"]
    # Nothing is free: fewer devices is no remedy; another class and waiting are.
    assert not any("fewer" in r for r in card.remedies)
    assert any("firstAvailable" in r for r in card.remedies)
    assert any(r.startswith("Wait") for r in card.remedies)


def test_fewer_devices_is_offered_when_some_are_free() -> None:
    cluster = held_gpus_cluster()
    # The second node's holder keeps 2 of its 4 GPUs: 2 are free, 4 are asked.
    claim = next(o for o in cluster["items"] if o["metadata"]["name"] == "infer-1-gpus")
    claim["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2
    del claim["status"]["allocation"]["devices"]["results"][2:]
    card = device_card(analyze(cluster, training_pod()).explanation)
    assert card is not None
    assert card.sentence.startswith("4 GPUs of class a100 are held by 2 pods of lower priority")
    assert [h.devices for h in card.holders] == [4, 2]
    assert card.remedies[0] == (
        "Ask for fewer devices: 2 are free in the cluster, and a claim is allocated when "
        "one node that passes the pod's other filters has as many free as it asks."
    )


def test_no_card_for_a_pod_without_devices() -> None:
    pod = training_pod()
    del pod["spec"]["resourceClaims"]
    del pod["spec"]["containers"][0]["resources"]["claims"]
    assert device_card(analyze(held_gpus_cluster(), pod).explanation) is None


def _trainer_run(replicas: int) -> WorkloadRun:
    cluster = load_cluster(as_list(*with_free_node_objects()))
    w = expand_workload([trainer_deployment(replicas)])
    admit(w, cluster.resolver)
    run = WorkloadRun.from_simulation(simulate(cluster, w.pods), w)
    return WorkloadRun.from_json(run.to_json())  # what the page reads is what was stored


def test_a_workload_counts_the_devices_of_the_nodes_it_bound_to() -> None:
    # Two replicas of 2 A100s each: only the third node has free ones; both land there
    # and hold its 4. The third replica waits: nobody preempts for devices.
    run = _trainer_run(3)
    assert [(p.node, p.bound) for p in run.pods] == [(NODE_3, True), (NODE_3, True), (None, False)]
    assert node_devices(run) == [NodeDevices(node=NODE_3, devices=4, before=0, after=4)]
    page = html.unescape(
        render_to_string("scheduling/partials/workload_devices.html", workload_context(run))
    )
    assert f'<tr data-node-devices="{NODE_3}">' in page
    cells = re.findall(r'<td class="num">(\d+)</td>', page)
    assert cells == ["4", "0", "4", "0"]


def test_a_workload_without_devices_shows_no_device_table() -> None:
    deployment = trainer_deployment(1)
    spec = deployment["spec"]["template"]["spec"]
    del spec["resourceClaims"]
    del spec["containers"][0]["resources"]["claims"]
    cluster = load_cluster(as_list(*make_objects_without_dra()))
    w = expand_workload([deployment])
    admit(w, cluster.resolver)
    run = WorkloadRun.from_simulation(simulate(cluster, w.pods), w)
    assert node_devices(run) == []
    assert "node-devices" not in render_to_string(
        "scheduling/partials/workload_devices.html", workload_context(run)
    )


def make_objects_without_dra() -> list[dict[str, Any]]:
    return [
        o for o in with_free_node_objects() if not o["apiVersion"].startswith("resource.k8s.io")
    ]
