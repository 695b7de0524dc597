"""A hand-made snapshot where DRA devices decide: two GPU nodes (names of 40
characters) whose ResourceSlices publish 4 A100s each, every one of them allocated to
a claim reserved for a low-priority inference pod (one per node, namespace
ml-serving, owned by a ReplicaSet); the objects shaped like the conformance scenarios
of ../shared/conformance/dra/single (*-gpu-held-by-lower). A high-priority training
pod names the unallocated claim train-gpus, asking 4 A100s.

Derived by hand: no node has 4 free A100s, and kube-scheduler v1.35 never preempts for
DRA devices (DynamicResources rejects every node as UnschedulableAndUnresolvable), so
the training pod stays pending: "4 GPUs of class a100 are held by 2 pods of lower
priority", the holders infer-0 on the first node and infer-1 on the second, each with
4 devices of its claim.
"""

from __future__ import annotations

from typing import Any

from tests.engine.builders import as_list, make_node, make_pod

DRIVER = "gpu.nvidia.com"
NAMESPACE = "ml-serving"
# Node names of 40 characters, as EKS names its nodes (they must wrap on the page).
NODE_1 = "ip-10-20-101-117.eu-west-1.compute.local"
NODE_2 = "ip-10-20-102-118.eu-west-1.compute.local"
GPUS_PER_NODE = 4
SENTENCE = (
    "4 GPUs of class a100 are held by 2 pods of lower priority; kube-scheduler v1.35 "
    "does not preempt for DRA devices: these pods keep them"
)


def _selector(node: str) -> dict[str, Any]:
    return {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
        ]
    }


def device_class() -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "a100", "uid": "uid-dc-a100"},
        "spec": {
            "selectors": [
                {
                    "cel": {
                        "expression": f"device.driver == '{DRIVER}' && "
                        f"device.attributes['{DRIVER}'].productName == 'A100'"
                    }
                }
            ]
        },
    }


def gpu_slice(node: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{DRIVER}", "uid": f"uid-slice-{node}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"gpu-{i}",
                    "attributes": {
                        "productName": {"string": "A100"},
                        "index": {"int": i},
                        "driverVersion": {"version": "550.127.5"},
                    },
                    "capacity": {"memory": {"value": "80Gi"}},
                }
                for i in range(GPUS_PER_NODE)
            ],
        },
    }


def gpu_claim(
    name: str, namespace: str, count: int, *, node: str | None = None, pod: str | None = None
) -> dict[str, Any]:
    """A claim of ``count`` A100s; allocated on ``node`` and reserved for ``pod`` when
    given (its first ``count`` GPUs)."""
    obj: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-claim-{name}"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpu",
                        "exactly": {
                            "deviceClassName": "a100",
                            "allocationMode": "ExactCount",
                            "count": count,
                        },
                    }
                ]
            }
        },
    }
    if node is not None and pod is not None:
        obj["status"] = {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "gpu", "driver": DRIVER, "pool": node, "device": f"gpu-{i}"}
                        for i in range(count)
                    ]
                },
                "nodeSelector": _selector(node),
            },
            "reservedFor": [{"resource": "pods", "name": pod, "uid": f"uid-{namespace}-{pod}"}],
        }
    return obj


def with_claim(pod: dict[str, Any], claim_name: str) -> dict[str, Any]:
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim_name}]
    pod["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    return pod


def held_gpus_objects() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [device_class()]
    for i, node in enumerate((NODE_1, NODE_2)):
        items.append(make_node(node).obj())
        items.append(gpu_slice(node))
        pod = make_pod(f"infer-{i}", NAMESPACE).priority(100).req(cpu="500m").node(node).obj()
        pod["metadata"]["ownerReferences"] = [
            {"kind": "ReplicaSet", "name": "infer-7d9f", "controller": True, "uid": "uid-rs"}
        ]
        items.append(with_claim(pod, f"infer-{i}-gpus"))
        items.append(
            gpu_claim(f"infer-{i}-gpus", NAMESPACE, GPUS_PER_NODE, node=node, pod=f"infer-{i}")
        )
    items.append(gpu_claim("train-gpus", NAMESPACE, 4))
    return items


def held_gpus_cluster() -> dict[str, Any]:
    return as_list(*held_gpus_objects())


def training_pod() -> dict[str, Any]:
    """The high-priority pod claiming 4 A100s through train-gpus."""
    return with_claim(make_pod("train", NAMESPACE).priority(1000).req(cpu="1").obj(), "train-gpus")


# A third node with 4 free A100s, and a template of 2 of them, for a workload's run.
NODE_3 = "ip-10-20-103-119.eu-west-1.compute.local"


def claim_template(name: str, count: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": NAMESPACE, "uid": f"uid-rct-{name}"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {
                                "deviceClassName": "a100",
                                "allocationMode": "ExactCount",
                                "count": count,
                            },
                        }
                    ]
                }
            }
        },
    }


def with_free_node_objects() -> list[dict[str, Any]]:
    return [
        *held_gpus_objects(),
        make_node(NODE_3).obj(),
        gpu_slice(NODE_3),
        claim_template("trainer-gpus", 2),
    ]


def trainer_deployment(replicas: int) -> dict[str, Any]:
    """A Deployment whose pods each claim 2 A100s from the template trainer-gpus."""
    template = make_pod("trainer", NAMESPACE).priority(1000).req(cpu="1").obj()
    spec = template["spec"]
    spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "trainer-gpus"}]
    spec["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    labels = {"app": "trainer"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "trainer", "namespace": NAMESPACE, "uid": "uid-deploy-trainer"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": spec},
        },
    }
