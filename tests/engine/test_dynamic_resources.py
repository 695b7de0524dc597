"""DynamicResources by hand: GPUs claimed through DRA are never freed by preemption,
where the same GPUs as the nvidia.com/gpu extended resource are; the words that say
so; CEL selectors and malformed DRA objects."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling.engine import analyze, load_cluster
from scheduling.engine.dra.cel import CelError, Semver, selector_matches
from scheduling.engine.dra.objects import ResourceSlice
from scheduling.engine.errors import InvalidInput
from scheduling.reports.markdown import render_markdown
from scheduling.reports.text import render_text

from .builders import as_list, make_node, make_pod

DRIVER = "gpu.nvidia.com"
SENTENCE = (
    "4 GPUs of class a100 are held by 2 pods of lower priority; kube-scheduler v1.35 "
    "does not preempt for DRA devices: these pods keep them"
)


def device_class(name: str, expression: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": expression}}]},
    }


def gpu_slice(node: str, n: int, memory: str = "80Gi", product: str = "A100") -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpus"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"gpu-{i}",
                    "attributes": {
                        "productName": {"string": product},
                        "driverVersion": {"version": "550.127.5"},
                    },
                    "capacity": {"memory": {"value": memory}},
                }
                for i in range(n)
            ],
        },
    }


def claim(
    name: str,
    count: int,
    *,
    device_class_name: str = "a100",
    node: str | None = None,
    devices: range = range(0),
    holder: tuple[str, str] | None = None,
    selectors: tuple[str, ...] = (),
) -> dict[str, Any]:
    exactly: dict[str, Any] = {
        "deviceClassName": device_class_name,
        "allocationMode": "ExactCount",
        "count": count,
    }
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    obj: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-claim-{name}"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}},
    }
    if node is not None:
        obj["status"] = {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "gpu", "driver": DRIVER, "pool": node, "device": f"gpu-{i}"}
                        for i in devices
                    ]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": [node]}
                            ]
                        }
                    ]
                },
            },
            "reservedFor": [{"resource": "pods", "name": holder[0], "uid": holder[1]}]
            if holder
            else [],
        }
    return obj


def with_claim(pod: dict[str, Any], claim_name: str) -> dict[str, Any]:
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim_name}]
    pod["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    return pod


def dra_cluster() -> dict[str, Any]:
    """Two nodes of 4 A100s each; each node's GPUs held by one low-priority pod."""
    items: list[dict[str, Any]] = [
        device_class("a100", f"device.driver == '{DRIVER}'"),
    ]
    for i, node in enumerate(("gpu-a", "gpu-b")):
        items.append(make_node(node).obj())
        items.append(gpu_slice(node, 4))
        pod = make_pod(f"infer-{i}").priority(100).req(cpu="500m").node(node).obj()
        pod["metadata"]["ownerReferences"] = [
            {"kind": "ReplicaSet", "name": "infer-abc", "controller": True, "uid": "rs"}
        ]
        items.append(with_claim(pod, f"infer-{i}-gpus"))
        items.append(
            claim(
                f"infer-{i}-gpus",
                4,
                node=node,
                devices=range(4),
                holder=(f"infer-{i}", f"uid-default-infer-{i}"),
            )
        )
    items.append(claim("train-gpus", 4))
    return as_list(*items)


def extended_resource_cluster() -> dict[str, Any]:
    """The same GPUs as the device plugin's nvidia.com/gpu extended resource."""
    items: list[dict[str, Any]] = []
    for i, node in enumerate(("gpu-a", "gpu-b")):
        items.append(make_node(node).capacity(gpu="4").obj())
        items.append(
            make_pod(f"infer-{i}")
            .priority(100)
            .req(cpu="500m", **{"nvidia.com/gpu": "4"})
            .node(node)
            .obj()
        )
    return as_list(*items)


def test_dra_gpus_held_by_lower_priority_pods_are_not_preempted() -> None:
    pod = with_claim(make_pod("train").priority(1000).req(cpu="1").obj(), "train-gpus")
    result = analyze(dra_cluster(), pod)
    got = result.to_dict()
    assert got["outcome"] == "unschedulable"
    assert got["victims"] == []
    assert got["message"] == (
        "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )
    ex = result.explanation
    assert ex.devices is not None
    assert ex.devices.sentence == SENTENCE
    (wait,) = ex.devices.classes
    assert (wait.device_class, wait.wanted, wait.held, wait.free) == ("a100", 4, 8, 0)
    assert [(h.pod, h.node, h.devices, h.owner) for h in wait.holders] == [
        ("default/infer-0", "gpu-a", 4, "ReplicaSet/infer-abc"),
        ("default/infer-1", "gpu-b", 4, "ReplicaSet/infer-abc"),
    ]
    text = render_text(ex)
    assert SENTENCE in text and text.count(SENTENCE) == 1
    assert "default/infer-0  priority 100 (lower priority)  4 of class a100 on gpu-a" in text
    markdown = render_markdown(ex, snapshot="snap", gate_failures=[])
    assert "`default/infer-1`" in markdown and "held by 2 pods" in markdown


def test_the_same_gpus_as_an_extended_resource_are_preempted() -> None:
    pod = make_pod("train").priority(1000).req(cpu="1", **{"nvidia.com/gpu": "4"}).obj()
    got = analyze(extended_resource_cluster(), pod).to_dict()
    assert got["outcome"] == "preempts"
    assert got["victims"] in (["default/infer-0"], ["default/infer-1"])


def test_a_free_gpu_node_fits_and_the_claim_is_said_nowhere() -> None:
    cluster = dra_cluster()
    cluster["items"].append(make_node("gpu-c").obj())
    cluster["items"].append(gpu_slice("gpu-c", 8))
    pod = with_claim(make_pod("train").priority(1000).req(cpu="1").obj(), "train-gpus")
    result = analyze(cluster, pod)
    assert result.to_dict()["feasible_nodes"] == ["gpu-c"]
    assert result.explanation.devices is None


def test_a_selector_on_capacity_and_versions() -> None:
    device = ResourceSlice.from_dict(gpu_slice("n", 1, memory="40Gi")).devices[0]
    q = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"
    assert selector_matches(q, device)
    assert not selector_matches(q.replace("40Gi", "41Gi"), device)
    v = "device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('550.9.0'))"
    assert selector_matches(v, device)
    assert Semver("1.0.0-rc.1").key < Semver("1.0.0").key


@pytest.mark.parametrize(
    "expression",
    [
        "device.attributes['gpu.nvidia.com'].noSuchAttribute == 'x'",
        "noSuchFunction(device.driver)",
        "device.driver ==",
        "x" * (10 * 1024 + 1),
        # Five nested comprehensions: above CELSelectorExpressionMaxCost.
        "[1].all(a, [1].all(b, [1].all(c, [1].all(d, [1].all(e, a + b + c + d + e > 0)))))",
    ],
)
def test_a_selector_that_cannot_be_evaluated_is_said_not_guessed(expression: str) -> None:
    device = ResourceSlice.from_dict(gpu_slice("n", 1)).devices[0]
    with pytest.raises(CelError):
        selector_matches(expression, device)


def test_a_broken_request_selector_fails_the_node_with_an_error() -> None:
    cluster = dra_cluster()
    cluster["items"].append(make_node("gpu-c").obj())
    cluster["items"].append(gpu_slice("gpu-c", 8))
    cluster["items"].append(claim("odd-gpus", 1, selectors=("device.nope.size() > 1",)))
    pod = with_claim(make_pod("train").priority(1000).obj(), "odd-gpus")
    result = analyze(cluster, pod)
    statuses = result.details()["node_statuses"]
    assert statuses["gpu-c"]["filter"]["code"] == "Error"
    assert (
        "claim default/odd-gpus: selector #0: CEL runtime error"
        in (statuses["gpu-c"]["filter"]["reasons"][0])
    )


def test_a_malformed_claim_is_located() -> None:
    bad = claim("bad", 1)
    bad["spec"]["devices"]["requests"][0]["exactly"]["count"] = "two"
    with pytest.raises(InvalidInput) as e:
        load_cluster(as_list(make_node("n").obj(), bad))
    assert "items[1] ResourceClaim default/bad" in str(e.value)
    assert "spec.devices.requests[0].exactly.count" in str(e.value)


def test_advice_offers_fewer_devices_and_another_class() -> None:
    from scheduling.engine.advice import AdviceKind, PodQuestion, advise

    cluster = dra_cluster()
    # A node with 2 free A100s, and 4 free L4s of another class.
    cluster["items"] += [
        make_node("gpu-c").obj(),
        gpu_slice("gpu-c", 2),
        make_node("gpu-d").obj(),
        {
            **gpu_slice("gpu-d", 4, product="L4"),
            "spec": {**gpu_slice("gpu-d", 4, product="L4")["spec"], "driver": "gpu.example.com"},
        },
        device_class("l4", "device.driver == 'gpu.example.com'"),
    ]
    pod = with_claim(make_pod("train").priority(1000).req(cpu="1").obj(), "train-gpus")
    advice = advise(load_cluster(cluster), PodQuestion(pod))
    assert advice.baseline.outcome == "unschedulable"
    (fewer,) = [i for i in advice.items if i.kind == AdviceKind.FEWER_DEVICES]
    assert (fewer.outcome, fewer.node) == ("fits", "gpu-c")
    manifest = fewer.change.to_dict()["create"][0]
    assert manifest["kind"] == "ResourceClaim"
    assert manifest["spec"]["devices"]["requests"][0]["exactly"]["count"] == 2
    # One step less (3 devices) still waits.
    assert fewer.proof.one_step_less is not None
    assert fewer.proof.one_step_less.outcome == "unschedulable"
    (other,) = [i for i in advice.items if i.kind == AdviceKind.FIRST_AVAILABLE]
    assert (other.outcome, other.node) == ("fits", "gpu-d")
    subs = other.change.to_dict()["create"][0]["spec"]["devices"]["requests"][0]["firstAvailable"]
    assert [s["deviceClassName"] for s in subs] == ["a100", "l4"]


def _template(name: str, count: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "gpu", "exactly": {"deviceClassName": "a100", "count": count}}
                    ]
                }
            }
        },
    }


def test_a_rollout_makes_claims_from_templates_and_counts_devices_per_node() -> None:
    from scheduling.engine import simulate

    cluster = dra_cluster()
    cluster["items"] += [
        make_node("gpu-c").obj(),
        gpu_slice("gpu-c", 8),
        _template("trainer-gpus", 4),
    ]
    pods = []
    for i in range(3):
        pod = make_pod(f"train-{i}").priority(1000).req(cpu="1").obj()
        pod["spec"]["resourceClaims"] = [
            {"name": "gpu", "resourceClaimTemplateName": "trainer-gpus"}
        ]
        pods.append(pod)
    sim = simulate(cluster, pods)
    got = sim.to_dict()
    # Two 4-GPU pods fill gpu-c; the third waits: the others' GPUs are never preempted.
    assert [p["node"] for p in got["pods"]] == ["gpu-c", "gpu-c", None]
    assert got["deleted_victims"] == []
    assert "cannot allocate all claims" in got["cycles"][-1]["message"]
    assert sim.device_counts == {"gpu-a": (4, 4, 4), "gpu-b": (4, 4, 4), "gpu-c": (8, 0, 8)}


def test_a_profile_without_dynamic_resources_ignores_claims() -> None:
    pod = with_claim(make_pod("train").priority(1000).req(cpu="1").obj(), "train-gpus")
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"multiPoint": {"disabled": [{"name": "DynamicResources"}]}},
            }
        ],
    }
    got = analyze(dra_cluster(), pod, scheduler_config=config).to_dict()
    assert got["outcome"] == "fits"


def test_a_recreated_victim_gets_a_claim_of_its_own() -> None:
    from scheduling.engine import simulate

    infer = make_pod("infer-0").priority(100).req(cpu="1").node("gpu-a").obj()
    infer["metadata"]["ownerReferences"] = [
        {"kind": "ReplicaSet", "name": "infer-abc", "controller": True, "uid": "rs"}
    ]
    infer["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "infer-gpus"}]
    infer["status"]["resourceClaimStatuses"] = [
        {"name": "gpu", "resourceClaimName": "infer-0-gpu-x7k2p"}
    ]
    made = claim(
        "infer-0-gpu-x7k2p",
        4,
        node="gpu-a",
        devices=range(4),
        holder=("infer-0", "uid-default-infer-0"),
    )
    made["metadata"]["ownerReferences"] = [
        {"kind": "Pod", "name": "infer-0", "uid": "uid-default-infer-0", "controller": True}
    ]
    items = [
        device_class("a100", f"device.driver == '{DRIVER}'"),
        _template("infer-gpus", 4),
        make_node("gpu-a").capacity(cpu="2").obj(),
        gpu_slice("gpu-a", 4),
        make_node("gpu-b").capacity(cpu="2").obj(),
        gpu_slice("gpu-b", 4),
        make_pod("system").priority(2000).req(cpu="1").node("gpu-b").obj(),
        infer,
        made,
    ]
    critical = make_pod("critical").priority(1000).req(cpu="2").obj()
    sim = simulate(as_list(*items), [critical], recreate_victims=True)
    got = sim.to_dict()
    assert got["deleted_victims"] == ["default/infer-0"]
    (again,) = got["recreated"]
    nodes = {p["pod"]: p["node"] for p in got["pods"]}
    assert nodes == {"default/critical": "gpu-a", again["pod"]: "gpu-b"}
    assert sim.device_counts["gpu-b"] == (4, 0, 4)
    assert sim.device_counts["gpu-a"] == (4, 4, 0)


def test_a_new_manifest_gets_its_claims_from_templates_a_pending_pod_does_not() -> None:
    cluster = dra_cluster()
    cluster["items"] += [make_node("gpu-c").obj(), gpu_slice("gpu-c", 8), _template("t", 4)]
    pod = make_pod("train").priority(1000).req(cpu="1").obj()
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "t"}]
    manifest = {k: v for k, v in pod.items() if k != "status"}
    result = analyze(cluster, manifest)
    assert result.to_dict()["feasible_nodes"] == ["gpu-c"]
    (notice,) = [n for n in result.explanation.input_notices if n.field == "spec.resourceClaims"]
    assert notice.value.startswith("train-gpu-")
    # A pending pod of the cluster (it has a status) waits for the controller, as
    # kube-scheduler says.
    got = analyze(cluster, pod).to_dict()
    assert got["outcome"] == "unschedulable"
    assert 'pod "default/train": ResourceClaim not created yet' in got["message"]


def test_the_sentence_never_says_more_devices_are_held_than_are() -> None:
    """A pod asking 8 where 2 are held (and the rest free elsewhere) reads 2 held, not 8."""
    from scheduling.engine.dra.waiting import ClassWait, DeviceHolder, wait_sentence

    holder = DeviceHolder(pod="ml/infer-0", priority=0, node="n1", claim="ml/c", devices=2)
    few = ClassWait(device_class="a100", wanted=8, held=2, free=22, holders=[holder])
    said = wait_sentence([few])
    assert said.startswith("2 GPUs of class a100 are held by 1 pod of lower priority")
    assert "asks for 8 on one node; 22 are free" in said
    many = ClassWait(device_class="a100", wanted=4, held=8, free=0, holders=[holder])
    assert wait_sentence([many]).startswith("4 GPUs of class a100 are held by 1 pod")
