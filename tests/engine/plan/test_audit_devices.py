"""device-class-held-by-lower: a workload's DRA device class held by lower-priority pods."""

from __future__ import annotations

from ..builders import make_node, make_pod
from ..test_dynamic_resources import claim, dra_cluster, gpu_slice, with_claim
from .helpers import findings


def _with_trainer(priority: int) -> list:
    items = dra_cluster()["items"]
    items.append(make_node("gpu-c").obj())
    items.append(gpu_slice("gpu-c", 4))
    trainer = make_pod("trainer").priority(priority).node("gpu-c").obj()
    items.append(with_claim(trainer, "trainer-gpus"))
    items.append(
        claim(
            "trainer-gpus",
            4,
            node="gpu-c",
            devices=range(4),
            holder=("trainer", "uid-default-trainer"),
        )
    )
    return items


def test_a_higher_workload_whose_class_lower_pods_hold() -> None:
    (f,) = findings(_with_trainer(1000), "device-class-held-by-lower")
    assert f.severity == "warning"
    assert "default/infer-0" in f.objects and "default/infer-1" in f.objects
    assert "8 devices of that class are held by 2 pods of lower priority" in f.message
    assert "does not preempt for DRA devices" in f.message


def test_no_finding_when_the_holders_are_not_lower() -> None:
    assert findings(_with_trainer(100), "device-class-held-by-lower") == []
