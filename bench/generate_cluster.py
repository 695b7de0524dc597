"""Realistic synthetic clusters: N nodes, M pods, mixed priorities, PDBs, zones, taints.

generate(nodes, pods, pdbs, seed, decorate=False, dense=False) returns a v1 List shaped
like ``kubectl get nodes,pods,pdb,priorityclasses -A -o json``; decorate=True adds the
fields kubectl prints and the scheduler ignores (a few KB per pod), for ingest benchmarks;
dense=True packs every node (see ``dense_preemptor``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from typing import Any

CLASSES = [
    ("batch-low", -100, False),
    ("default-apps", 0, True),
    ("standard", 1000, False),
    ("critical-apps", 1_000_000, False),
]


def _node(i: int, rng: random.Random, decorate: bool) -> dict[str, Any]:
    name = f"node-{i:05d}"
    zone = f"zone-{'abc'[i % 3]}"
    cpu = rng.choice([8, 16, 32])
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": zone,
                "node.kubernetes.io/instance-type": f"m5.{cpu}xlarge",
            },
        },
        "spec": {},
        "status": {
            "allocatable": {
                "cpu": f"{cpu * 1000 - 80}m",
                "memory": f"{cpu * 4 - 1}Gi",
                "ephemeral-storage": "95Gi",
                "pods": "110",
                "hugepages-2Mi": "0",
            }
        },
    }
    if i % 50 == 0:
        node["spec"]["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
        node["status"]["allocatable"]["nvidia.com/gpu"] = "4"
    if decorate:
        node["metadata"].update(
            {
                "uid": f"uid-{name}",
                "resourceVersion": str(1000 + i),
                "creationTimestamp": "2025-01-01T00:00:00Z",
                "annotations": {
                    "node.alpha.kubernetes.io/ttl": "0",
                    "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                },
            }
        )
        node["status"].update(
            {
                "capacity": dict(node["status"]["allocatable"]),
                "conditions": [
                    {
                        "type": t,
                        "status": "False",
                        "reason": f"Kubelet{t}",
                        "message": "ok",
                        "lastHeartbeatTime": "2025-06-02T08:00:00Z",
                        "lastTransitionTime": "2025-01-01T00:00:00Z",
                    }
                    for t in ("MemoryPressure", "DiskPressure", "PIDPressure")
                ],
                "nodeInfo": {
                    "kubeletVersion": "v1.35.4",
                    "osImage": "Bottlerocket",
                    "containerRuntimeVersion": "containerd://2.0",
                },
                "addresses": [{"type": "InternalIP", "address": f"10.0.{i // 250}.{i % 250}"}],
            }
        )
    return node


def _pod(
    j: int,
    node: str,
    app: int,
    rng: random.Random,
    decorate: bool,
    requests: tuple[str, str] | None = None,
) -> dict[str, Any]:
    # A dense node's pods (requests given) are all below the critical class.
    weights = [3, 5, 3, 0] if requests else [3, 5, 3, 1]
    cls, prio, _ = rng.choices(CLASSES, weights=weights)[0]
    ns = f"team-{app % 40}"
    name = f"app-{app}-{j:06d}"
    cpu = rng.choice(["100m", "250m", "500m", "1", "1500m"])
    mem = rng.choice(["128Mi", "256Mi", "512Mi", "1Gi", "2Gi"])
    if requests:
        cpu, mem = requests
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": ns,
            "uid": f"uid-{j}",
            "labels": {"app": f"app-{app}", "tier": rng.choice(["web", "api", "worker"])},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": f"app-{app}-rs",
                    "controller": True,
                    "uid": f"rs-{app}",
                }
            ],
        },
        "spec": {
            "nodeName": node,
            "priority": prio,
            "priorityClassName": cls,
            "preemptionPolicy": "PreemptLowerPriority",
            "schedulerName": "default-scheduler",
            "containers": [
                {
                    "name": "main",
                    "image": f"registry.example.com/app-{app % 30}:1.0",
                    "resources": {"requests": {"cpu": cpu, "memory": mem}},
                }
            ],
        },
        "status": {
            "phase": "Running",
            "startTime": f"2025-06-{1 + j % 28:02d}T{j % 24:02d}:{j % 60:02d}:{(j // 60) % 60:02d}Z",
        },
    }
    if j % 97 == 0:
        pod["spec"]["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "topology.kubernetes.io/zone",
                                    "operator": "In",
                                    "values": ["zone-a", "zone-b"],
                                }
                            ]
                        }
                    ]
                }
            }
        }
    if decorate:
        pod["metadata"].update(
            {
                "resourceVersion": str(50000 + j),
                "creationTimestamp": "2025-06-01T00:00:00Z",
                "generateName": f"app-{app}-rs-",
                "annotations": {"kubectl.kubernetes.io/restartedAt": "2025-06-01T00:00:00Z"},
            }
        )
        c = pod["spec"]["containers"][0]
        c.update(
            {
                "imagePullPolicy": "IfNotPresent",
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "env": [{"name": f"VAR_{k}", "value": "x" * 40} for k in range(12)],
                "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"}],
                "volumeMounts": [
                    {
                        "name": "kube-api-access",
                        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                        "readOnly": True,
                    }
                ],
                "livenessProbe": {
                    "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
                    "periodSeconds": 10,
                },
            }
        )
        pod["spec"].update(
            {
                "dnsPolicy": "ClusterFirst",
                "restartPolicy": "Always",
                "serviceAccountName": "default",
                "terminationGracePeriodSeconds": 30,
                "enableServiceLinks": True,
                "tolerations": [
                    {
                        "key": "node.kubernetes.io/not-ready",
                        "operator": "Exists",
                        "effect": "NoExecute",
                        "tolerationSeconds": 300,
                    },
                    {
                        "key": "node.kubernetes.io/unreachable",
                        "operator": "Exists",
                        "effect": "NoExecute",
                        "tolerationSeconds": 300,
                    },
                ],
                "volumes": [
                    {
                        "name": "kube-api-access",
                        "projected": {
                            "defaultMode": 420,
                            "sources": [
                                {
                                    "serviceAccountToken": {
                                        "expirationSeconds": 3607,
                                        "path": "token",
                                    }
                                }
                            ],
                        },
                    }
                ],
            }
        )
        pod["status"].update(
            {
                "hostIP": "10.0.0.1",
                "podIP": f"10.1.{j // 250 % 250}.{j % 250}",
                "qosClass": "Burstable",
                "conditions": [
                    {"type": t, "status": "True", "lastTransitionTime": "2025-06-01T00:00:00Z"}
                    for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")
                ],
                "containerStatuses": [
                    {
                        "name": "main",
                        "ready": True,
                        "restartCount": 0,
                        "image": c["image"],
                        "imageID": "registry.example.com/app@sha256:" + "0" * 64,
                        "containerID": "containerd://" + f"{j:064d}",
                        "started": True,
                        "state": {"running": {"startedAt": "2025-06-01T00:00:00Z"}},
                    }
                ],
            }
        )
    return pod


def preemptor_pod(name: str, *, most_free_millicpu: int) -> dict[str, Any]:
    """A critical pod asking a little more CPU than any node has free: it fits nowhere
    as the cluster stands, so every node big enough is a preemption candidate (a run
    long enough to be caught in flight by the worker-death test and the drills)."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "bench"},
        "spec": {
            "priorityClassName": "critical-apps",
            "containers": [
                {
                    "name": "main",
                    "resources": {
                        "requests": {"cpu": f"{most_free_millicpu + 100}m", "memory": "1Gi"}
                    },
                }
            ],
        },
    }


DENSE_PREEMPTOR_REQUESTS = {"cpu": "6", "memory": "12Gi"}


def _dense_requests(node: dict[str, Any], count: int, rng: random.Random) -> list[tuple[str, str]]:
    """Requests for ``count`` pods that fill 84-97% of the node's CPU and 50-95% of its
    memory: less than 6 CPU is left on any node (32 CPU at most), yet every untainted
    node (8 CPU at least) has room for 6 CPU and 12Gi once its pods are gone."""
    alloc = node["status"]["allocatable"]
    cpu = int(alloc["cpu"].removesuffix("m"))
    mem = int(alloc["memory"].removesuffix("Gi")) * 1024
    cpu_fill, mem_fill = rng.uniform(0.84, 0.97), rng.uniform(0.5, 0.95)
    cpu_w = [rng.randint(1, 4) for _ in range(count)]
    mem_w = [rng.randint(1, 4) for _ in range(count)]
    return [
        (
            f"{int(cpu * cpu_fill * c / sum(cpu_w))}m",
            f"{int(mem * mem_fill * m / sum(mem_w))}Mi",
        )
        for c, m in zip(cpu_w, mem_w, strict=True)
    ]


def dense_preemptor(name: str = "whatif") -> dict[str, Any]:
    """The pending pod of a dense cluster: above every class the pods have, too big for
    any node's free room, small enough for every untainted node once its pods are gone,
    so every one of them is a candidate and its 30 pods go through victim selection."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": name},
        "spec": {
            "priority": 2_000_000,
            "containers": [
                {"name": "c", "image": "x", "resources": {"requests": DENSE_PREEMPTOR_REQUESTS}}
            ],
        },
    }


def spread_deployment(replicas: int, *, priority_class: str = "") -> dict[str, Any]:
    """A Deployment whose replicas are kept apart (one per node, even across zones): a
    workload what-if of many long cycles (the probe's long run, the cancellation test's)."""
    labels = {"app": "probe"}
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "6", "memory": "8Gi"}}}],
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchLabels": labels},
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        },
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": labels},
            }
        ],
    }
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "probe", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": spec},
        },
    }


# One running pod in CLAIM_EVERY mounts a bound EBS claim whose volume lives in its
# node's zone; every node has a CSINode with the driver's attach limit.
CLAIM_EVERY = 3
EBS = "ebs.csi.aws.com"
EBS_LIMIT = 39


def _storage_class() -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "gp3"},
        "provisioner": EBS,
        "volumeBindingMode": "WaitForFirstConsumer",
    }


def _csi_node(node: dict[str, Any]) -> dict[str, Any]:
    name = node["metadata"]["name"]
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {"name": name},
        "spec": {"drivers": [{"name": EBS, "nodeID": name, "allocatable": {"count": EBS_LIMIT}}]},
    }


def _claim(pod: dict[str, Any], zone: str) -> list[dict[str, Any]]:
    """A bound claim for the pod (mounted as ``data``) and its zonal EBS volume."""
    meta = pod["metadata"]
    claim, pv = f"data-{meta['name']}", f"pvc-{meta['uid']}"
    pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": claim,
                "namespace": meta["namespace"],
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
            },
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "gp3",
                "volumeName": pv,
                "resources": {"requests": {"storage": "20Gi"}},
            },
            "status": {"phase": "Bound"},
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": pv, "labels": {"topology.kubernetes.io/zone": zone}},
            "spec": {
                "capacity": {"storage": "20Gi"},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "gp3",
                "csi": {"driver": EBS, "volumeHandle": f"vol-{meta['uid']}"},
                "claimRef": {"namespace": meta["namespace"], "name": claim},
                "nodeAffinity": {
                    "required": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {
                                        "key": "topology.kubernetes.io/zone",
                                        "operator": "In",
                                        "values": [zone],
                                    }
                                ]
                            }
                        ]
                    }
                },
            },
            "status": {"phase": "Bound"},
        },
    ]


def generate(
    nodes: int, pods: int, pdbs: int, seed: int = 0, decorate: bool = False, dense: bool = False
) -> dict[str, Any]:
    rng = random.Random(seed)
    items: list[dict[str, Any]] = [_storage_class()]
    for name, value, default in CLASSES:
        items.append(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
                "globalDefault": default,
                "preemptionPolicy": "PreemptLowerPriority",
            }
        )
    items.append(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "system-cluster-critical"},
            "value": 2000000000,
            "preemptionPolicy": "PreemptLowerPriority",
        }
    )
    node_objs = [_node(i, rng, decorate) for i in range(nodes)]
    items.extend(node_objs)
    items.extend(_csi_node(n) for n in node_objs)
    apps = max(1, pods // 30)
    per_node = pods // max(nodes, 1)
    j = 0
    for i, n in enumerate(node_objs):
        count = per_node + (1 if i < pods - per_node * nodes else 0)
        sizes = _dense_requests(n, count, rng) if dense else [None] * count
        for requests in sizes:
            app = rng.randrange(apps)
            pod = _pod(j, n["metadata"]["name"], app, rng, decorate, requests)
            items.append(pod)
            if j % CLAIM_EVERY == 0:
                items.extend(_claim(pod, n["metadata"]["labels"]["topology.kubernetes.io/zone"]))
            j += 1
    for k in range(pdbs):
        app = k % apps
        spec: dict[str, Any] = {"selector": {"matchLabels": {"app": f"app-{app}"}}}
        if k % 3 == 0:
            spec = {
                "selector": {
                    "matchExpressions": [{"key": "app", "operator": "In", "values": [f"app-{app}"]}]
                }
            }
        spec["maxUnavailable" if k % 2 else "minAvailable"] = rng.choice([1, "10%", "50%"])
        items.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": f"pdb-{k}", "namespace": f"team-{app % 40}"},
                "spec": spec,
                "status": {
                    "disruptionsAllowed": rng.choice([0, 0, 1, 2]),
                    "currentHealthy": 3,
                    "desiredHealthy": 2,
                    "expectedPods": 3,
                    "disruptedPods": {},
                },
            }
        )
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


SMALL = (500, 15_000, 200)
LARGE = (5000, 150_000, 2000)
DENSE = (5000, 150_000, 2170)  # 30 pods a node, all below the dense preemptor


def run_sized(run: Callable[[int, int, int], None]) -> None:
    """A benchmark's command line: 500 nodes, or with --large 5,000 (nodes, pods, PDBs)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--large", action="store_true", help="5,000 nodes / 150,000 pods / 2,000 PDBs")
    run(*(LARGE if ap.parse_args().large else SMALL))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods", type=int, default=15000)
    ap.add_argument("--pdbs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--decorate", action="store_true")
    args = ap.parse_args()
    json.dump(generate(args.nodes, args.pods, args.pdbs, args.seed, args.decorate), sys.stdout)


if __name__ == "__main__":
    main()
