"""DRA benchmark: a 64-GPU training job (8 pods of 8 GPUs, one claim each from a
ResourceClaimTemplate) rolled out through simulate() on 1,000 GPU nodes of 8 devices
each, against the same cluster without DRA (the GPUs as the nvidia.com/gpu extended
resource, the pods requesting it), in the same run.

Cluster: 1,000 nodes (64 cpu, 512Gi, 8 A100 each); 7 of 8 nodes run inference pods
holding 6 of their GPUs (DRA: an allocated ResourceClaim reserved for the pod;
extended: requests nvidia.com/gpu: 6) at a lower priority; the others are free. The job
is critical: it fits on the 125 free nodes (with DRA it could never preempt for GPUs).
Also one single-pod what-if (analyze) of a training pod, each way; and the same with
every node busy (no node has 8 free GPUs): with DRA the job waits, with the extended
resource it preempts inference pods.

Target: within the analysis budget (PREEMPTLAB_ANALYSIS_SECONDS, 120 s by default).
Run: .venv/bin/python -m bench.dra_bench [--nodes N]
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from typing import Any

from scheduling.engine import analyze, load_cluster, simulate

DRIVER = "gpu.nvidia.com"
BUDGET_SECONDS = 120.0


def _node(name: str, extended: bool) -> dict[str, Any]:
    alloc = {"cpu": "64", "memory": "512Gi", "pods": "110", "ephemeral-storage": "1Ti"}
    if extended:
        alloc["nvidia.com/gpu"] = "8"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {},
        "status": {"allocatable": alloc},
    }


def _slice(node: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{DRIVER}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"gpu-{i}",
                    "attributes": {
                        "type": {"string": "gpu"},
                        "productName": {"string": "NVIDIA A100-SXM4-80GB"},
                        "uuid": {"string": f"GPU-{node}-{i}"},
                        "index": {"int": i},
                    },
                    "capacity": {"memory": {"value": "80Gi"}},
                }
                for i in range(8)
            ],
        },
    }


def _pod(
    name: str, node: str | None, priority_class: str, gpus: int, extended: bool
) -> dict[str, Any]:
    requests: dict[str, str] = {"cpu": "4", "memory": "32Gi"}
    container: dict[str, Any] = {"name": "main", "image": "trainer:1", "resources": {}}
    spec: dict[str, Any] = {"containers": [container], "priorityClassName": priority_class}
    if extended:
        requests["nvidia.com/gpu"] = str(gpus)
    else:
        container["resources"]["claims"] = [{"name": "gpu"}]
        spec["resourceClaims"] = [
            {"name": "gpu", "resourceClaimName": f"{name}-gpu"}
            if node
            else {"name": "gpu", "resourceClaimTemplateName": "trainer-gpus"}
        ]
    container["resources"]["requests"] = requests
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", "uid": f"uid-{name}"},
        "spec": spec,
        "status": {"phase": "Running" if node else "Pending"},
    }
    if node:
        spec["nodeName"] = node
        pod["status"]["startTime"] = "2025-06-01T00:00:00Z"
    return pod


def _claim(pod: str, node: str, gpus: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": f"{pod}-gpu", "namespace": "ml", "uid": f"uid-claim-{pod}"},
        "spec": {
            "devices": {
                "requests": [{"name": "gpu", "exactly": {"deviceClassName": "a100", "count": gpus}}]
            }
        },
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "gpu", "driver": DRIVER, "pool": node, "device": f"gpu-{i}"}
                        for i in range(gpus)
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
            "reservedFor": [{"resource": "pods", "name": pod, "uid": f"uid-{pod}"}],
        },
    }


def cluster(nodes: int, extended: bool, free: bool = True) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": n},
            "value": v,
        }
        for n, v in (("inference", 1000), ("training", 100000))
    ]
    if not extended:
        items.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "DeviceClass",
                "metadata": {"name": "a100"},
                "spec": {
                    "selectors": [
                        {
                            "cel": {
                                "expression": f"device.driver == '{DRIVER}' && "
                                f"device.attributes['{DRIVER}'].type == 'gpu'"
                            }
                        }
                    ]
                },
            }
        )
        items.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaimTemplate",
                "metadata": {"name": "trainer-gpus", "namespace": "ml"},
                "spec": {
                    "spec": {
                        "devices": {
                            "requests": [
                                {"name": "gpu", "exactly": {"deviceClassName": "a100", "count": 8}}
                            ]
                        }
                    }
                },
            }
        )
    if not extended:
        # The single what-if's claim (a template's would wait for its controller).
        single = _claim("train-single", "", 8)
        del single["status"]
        items.append(single)
    for i in range(nodes):
        name = f"gpu-node-{i:04d}"
        items.append(_node(name, extended))
        if not extended:
            items.append(_slice(name))
        if i % 8 != 7 or not free:
            pod = f"infer-{i:04d}"
            items.append(_pod(pod, name, "inference", 6, extended))
            if not extended:
                items.append(_claim(pod, name, 6))
    return items


def job(extended: bool) -> list[dict[str, Any]]:
    return [_pod(f"train-{i}", None, "training", 8, extended) for i in range(8)]


def run(nodes: int) -> None:
    print(f"{nodes} GPU nodes of 8 devices, a 64-GPU job (8 pods x 8 GPUs)")
    print(f"load average before: {os.getloadavg()}")
    cases = (
        ("DRA (ResourceClaims)", False, True),
        ("nvidia.com/gpu", True, True),
        # Every node's GPUs partly held by inference pods: DRA waits, the extended
        # resource preempts them.
        ("DRA, every node busy", False, False),
        ("nvidia.com/gpu, busy", True, False),
    )
    for label, extended, free in cases:
        items = cluster(nodes, extended, free)
        gc.collect()
        t0 = time.perf_counter()
        loaded = load_cluster(items)
        t1 = time.perf_counter()
        sim = simulate(loaded, job(extended))
        t2 = time.perf_counter()
        one = job(extended)[0]
        if not extended:
            one["spec"]["resourceClaims"] = [
                {"name": "gpu", "resourceClaimName": "train-single-gpu"}
            ]
        single = analyze(loaded, one)
        t3 = time.perf_counter()
        bound = sum(1 for p in sim.pods if p.node)
        print(
            f"  {label:22} load {t1 - t0:6.2f}s  job {t2 - t1:6.2f}s "
            f"({bound}/8 bound, {len(sim.cycles)} cycles, "
            f"{len(sim.to_dict()['deleted_victims'])} evicted)  "
            f"one pod's what-if {t3 - t2:6.2f}s ({single.to_dict()['outcome']})  "
            f"budget {BUDGET_SECONDS:.0f}s: {'within' if t2 - t1 < BUDGET_SECONDS else 'OVER'}"
        )
    print(f"load average after: {os.getloadavg()}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=1000)
    run(parser.parse_args().nodes)


if __name__ == "__main__":
    main()
