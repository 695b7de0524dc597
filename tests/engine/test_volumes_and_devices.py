"""The volume plugins and DynamicResources in one profile, derived by hand: a pod with
both a volume and a DRA claim is filtered by both, and DynamicResources' PostFilter
answers "not found" (an Error, no preemption) only when an earlier PreFilter plugin
rejected the pod before its own PreFilter ran."""

from __future__ import annotations

from typing import Any

from scheduling.engine import analyze

from .builders import as_list, make_node, make_pod
from .test_dynamic_resources import claim, device_class, gpu_slice, with_claim
from .test_statefulset_volumes import ZONE, _bound, _class

DRIVER = "gpu.nvidia.com"


def _cluster(*extra: dict[str, Any]) -> dict[str, Any]:
    """gpu-a (eu-west-1a): 4 A100s held by a low-priority pod; gpu-b (eu-west-1b): 4
    free A100s; the storage class, and the claim train-gpus asking for 4."""
    holder = make_pod("infer-0").priority(100).req(cpu="500m").node("gpu-a").obj()
    return as_list(
        device_class("a100", f"device.driver == '{DRIVER}'"),
        make_node("gpu-a").label(ZONE, "eu-west-1a").obj(),
        make_node("gpu-b").label(ZONE, "eu-west-1b").obj(),
        gpu_slice("gpu-a", 4),
        gpu_slice("gpu-b", 4),
        with_claim(holder, "infer-0-gpus"),
        claim(
            "infer-0-gpus",
            4,
            node="gpu-a",
            devices=range(4),
            holder=("infer-0", "uid-default-infer-0"),
        ),
        claim("train-gpus", 4),
        _class(),
        *extra,
    )


def _train(claim_name: str = "train-gpus", volume: str | None = None) -> dict[str, Any]:
    pod = with_claim(make_pod("train").priority(1000).req(cpu="1").obj(), claim_name)
    if volume is not None:
        pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": volume}}]
    return pod


def test_the_devices_and_the_volumes_zone_each_rule_out_one_node() -> None:
    # Without a volume the free GPUs of gpu-b take the pod.
    assert analyze(_cluster(), _train()).to_dict()["feasible_nodes"] == ["gpu-b"]
    # Its volume lives in eu-west-1a, where the GPUs are held: nowhere, and no
    # preemption (DynamicResources never frees devices; gpu-b is out of the zone).
    result = analyze(_cluster(*_bound("data-train", "eu-west-1a")), _train(volume="data-train"))
    got = result.to_dict()
    assert got["outcome"] == "unschedulable" and got["victims"] == []
    assert got["message"] == (
        "0/2 nodes are available: 1 cannot allocate all claims, "
        "1 node(s) didn't match PersistentVolume's node affinity. still not schedulable, "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )
    ex = result.explanation
    assert [p.claim for p in ex.volume_pins] == ["data-train"]
    assert ex.devices is not None and ex.devices.classes[0].held == 4


def test_a_missing_volume_claim_ends_post_filter_before_preemption() -> None:
    # VolumeBinding's PreFilter rejects the pod outright: DynamicResources' PreFilter
    # never runs, its PostFilter finds no state and errors; DefaultPreemption is not asked.
    got = analyze(_cluster(), _train(volume="data-missing")).to_dict()
    assert got["outcome"] == "unschedulable" and got["victims"] == []
    assert got["message"] == (
        '0/2 nodes are available: persistentvolumeclaim "data-missing" not found. not found'
    )


def test_a_missing_device_claim_is_dynamic_resources_own_rejection() -> None:
    # DynamicResources' own PreFilter rejects the pod: its state was written first, so
    # its PostFilter answers as for a pod without claims and preemption runs.
    got = analyze(_cluster(), _train(claim_name="nope")).to_dict()
    assert got["outcome"] == "unschedulable"
    assert got["message"] == (
        '0/2 nodes are available: could not find ResourceClaim "default/nope". '
        "no new claims to deallocate, preemption: 0/2 nodes are available: "
        "2 Preemption is not helpful for scheduling."
    )
