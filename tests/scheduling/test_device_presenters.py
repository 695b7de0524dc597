"""The "Devices" card of a pod's result page and a workload's devices per node, on the
hand-made snapshot of device_scenario (8 A100s on 2 nodes held by low-priority pods,
a high-priority pod claiming 4)."""

from __future__ import annotations

from scheduling.engine import analyze
from scheduling.presenters.devices import HolderRow, device_card
from tests.scheduling.device_scenario import (
    NAMESPACE,
    NODE_1,
    NODE_2,
    SENTENCE,
    held_gpus_cluster,
    training_pod,
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
        "Ask for fewer devices: 2 of 4 asked are free; a claim whose devices fit on one "
        "node's free ones is allocated."
    )


def test_no_card_for_a_pod_without_devices() -> None:
    pod = training_pod()
    del pod["spec"]["resourceClaims"]
    del pod["spec"]["containers"][0]["resources"]["claims"]
    assert device_card(analyze(held_gpus_cluster(), pod).explanation) is None
