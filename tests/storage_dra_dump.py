"""A real cluster's dump (tests/realworld.py: ocp-aws, its nodes named as EC2 names them
outside us-east-1, 42 characters) given every storage kind and every DRA kind, shaped
like the conformance scenarios of ../shared/conformance/{storage,dra}/single: an EBS
CSI driver with an attach limit per node, a StatefulSet's zonal claims bound to PVs,
a WaitForFirstConsumer claim not provisioned yet, VolumeAttachments, per-zone capacity;
GPUs published by ResourceSlices on the workers, claims allocated to some of them and
reserved for running pods, a template and the claim generated from it.

Secret references sit where real clusters put them (a PV's CSI nodePublishSecretRef, a
StorageClass's csi.storage.k8s.io/*-secret-name parameters, a DRA opaque config), each
holding SECRET, which the snapshot must never keep."""

from __future__ import annotations

import copy
import zlib
from typing import Any

from tests.realworld import lengthen_node_names, real_dump

SECRET = "s3cr3t-never-stored"
EBS = "ebs.csi.aws.com"
GPU = "gpu.nvidia.com"
NAMESPACE = "data-platform-streaming-ingest-production"  # a long namespace too


def _meta(name: str, namespace: str | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "uid": f"uid-{name}",
        "creationTimestamp": "2025-05-01T10:00:00Z",
        "managedFields": [{"manager": "kube-controller-manager"}],
    }
    if namespace:
        meta["namespace"] = namespace
    return meta | extra


def _worker_nodes(dump: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(
        (
            o
            for o in dump["items"]
            if o["kind"] == "Node" and "node-role.kubernetes.io/worker" in o["metadata"]["labels"]
        ),
        key=lambda n: n["metadata"]["name"],
    )


def storage_objects(workers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The storage kinds, on ``workers`` (Node objects with zone labels)."""
    items: list[dict[str, Any]] = [
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIDriver",
            "metadata": _meta(EBS),
            "spec": {"attachRequired": True, "storageCapacity": True, "podInfoOnMount": False},
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": _meta(
                "gp3-csi", annotations={"storageclass.kubernetes.io/is-default-class": "true"}
            ),
            "provisioner": EBS,
            "reclaimPolicy": "Delete",
            "volumeBindingMode": "WaitForFirstConsumer",
            "allowVolumeExpansion": True,
            "parameters": {
                "type": "gp3",
                "encrypted": "true",
                "csi.storage.k8s.io/provisioner-secret-name": SECRET,
                "csi.storage.k8s.io/provisioner-secret-namespace": SECRET,
                "csi.storage.k8s.io/node-stage-secret-name": SECRET,
            },
            "allowedTopologies": [
                {
                    "matchLabelExpressions": [
                        {
                            "key": "topology.ebs.csi.aws.com/zone",
                            "values": sorted(
                                {
                                    w["metadata"]["labels"]["topology.kubernetes.io/zone"]
                                    for w in workers
                                }
                            ),
                        }
                    ]
                }
            ],
        },
    ]
    for worker in workers:
        name = worker["metadata"]["name"]
        items.append(
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "CSINode",
                "metadata": _meta(
                    name,
                    annotations={
                        "storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs"
                    },
                ),
                "spec": {
                    "drivers": [
                        {
                            "name": EBS,
                            "nodeID": f"i-0{zlib.crc32(name.encode()) % 10**12:012d}",
                            "allocatable": {"count": 25},
                            "topologyKeys": ["topology.ebs.csi.aws.com/zone"],
                        }
                    ]
                },
            }
        )
    zones = sorted({w["metadata"]["labels"]["topology.kubernetes.io/zone"] for w in workers})
    for zone in zones:
        items.append(
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "CSIStorageCapacity",
                "metadata": _meta(f"csisc-{zone}", "openshift-cluster-csi-drivers"),
                "storageClassName": "gp3-csi",
                "capacity": "16Ti",
                "maximumVolumeSize": "16Ti",
                "nodeTopology": {
                    "matchLabels": {"topology.ebs.csi.aws.com/zone": zone},
                },
            }
        )
    return items


def _claim(name: str, *, volume: str | None, zone_pv: bool = True) -> dict[str, Any]:
    annotations = {"volume.kubernetes.io/storage-provisioner": EBS}
    if volume:
        annotations |= {
            "pv.kubernetes.io/bind-completed": "yes",
            "pv.kubernetes.io/bound-by-controller": "yes",
        }
    claim: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": _meta(name, NAMESPACE, annotations=annotations, labels={"app": "kafka"}),
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "500Gi"}},
            "storageClassName": "gp3-csi",
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Bound" if volume else "Pending"},
    }
    if volume:
        claim["spec"]["volumeName"] = volume
        claim["status"] |= {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "500Gi"}}
    return claim


def _volume(name: str, claim: str, zone: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": _meta(
            name,
            annotations={
                "pv.kubernetes.io/provisioned-by": EBS,
                "volume.kubernetes.io/provisioner-deletion-secret-name": SECRET,
            },
        ),
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": "500Gi"},
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": NAMESPACE, "name": claim},
            "csi": {
                "driver": EBS,
                "volumeHandle": f"vol-{zlib.crc32(name.encode()) % 10**16:016x}",
                "fsType": "ext4",
                "volumeAttributes": {"storage.kubernetes.io/csiProvisionerIdentity": "1-ebs"},
                "nodePublishSecretRef": {"name": SECRET, "namespace": SECRET},
                "controllerExpandSecretRef": {"name": SECRET, "namespace": SECRET},
            },
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "topology.ebs.csi.aws.com/zone",
                                    "operator": "In",
                                    "values": [zone],
                                }
                            ]
                        }
                    ]
                }
            },
            "persistentVolumeReclaimPolicy": "Delete",
            "storageClassName": "gp3-csi",
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Bound"},
    }


def _stateful_pod(name: str, node: str, claim: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": _meta(
            name,
            NAMESPACE,
            labels={"app": "kafka"},
            ownerReferences=[
                {
                    "apiVersion": "apps/v1",
                    "kind": "StatefulSet",
                    "name": "kafka",
                    "uid": "sts-kafka",
                    "controller": True,
                }
            ],
        ),
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "kafka",
                    "image": "quay.io/strimzi/kafka:0.45.0",
                    "resources": {"requests": {"cpu": "500m", "memory": "2Gi"}},
                }
            ],
            "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": claim}},
                {"name": "tls", "secret": {"secretName": SECRET}},
            ],
            "priority": 0,
        },
        "status": {"phase": "Running", "startTime": "2025-05-01T10:05:00Z"},
    }


def dra_objects(workers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The DRA kinds: 8 GPUs per worker, two of the first worker's held by a running
    inference pod's claim, one claim template with the claim made from it."""
    items: list[dict[str, Any]] = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": _meta("a100.nvidia.com"),
            "spec": {
                "selectors": [
                    {
                        "cel": {
                            "expression": "device.driver == 'gpu.nvidia.com' && "
                            "device.attributes['gpu.nvidia.com'].productName == "
                            "'NVIDIA A100-SXM4-80GB'"
                        }
                    }
                ],
                "config": [{"opaque": {"driver": GPU, "parameters": {"licenseKey": SECRET}}}],
            },
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": _meta("llm-infer-gpu", NAMESPACE),
            "spec": {
                "spec": {
                    "devices": {
                        "requests": [
                            {
                                "name": "gpu",
                                "exactly": {
                                    "deviceClassName": "a100.nvidia.com",
                                    "allocationMode": "ExactCount",
                                    "count": 2,
                                },
                            }
                        ],
                        "config": [{"opaque": {"driver": GPU, "parameters": {"token": SECRET}}}],
                    }
                }
            },
        },
    ]
    for n, worker in enumerate(workers):
        node = worker["metadata"]["name"]
        items.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": _meta(f"{node}-{GPU}-x7k2p"),
                "spec": {
                    "driver": GPU,
                    "nodeName": node,
                    "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                    "devices": [
                        {
                            "name": f"gpu-{i}",
                            "attributes": {
                                "type": {"string": "gpu"},
                                "productName": {"string": "NVIDIA A100-SXM4-80GB"},
                                "architecture": {"string": "Ampere"},
                                "brand": {"string": "Nvidia"},
                                "index": {"int": i},
                                "uuid": {
                                    "string": f"GPU-{n:02d}{i:02d}a1b2-c3d4-e5f6-0718-293a4b5c6d7e"
                                },
                                "driverVersion": {"version": "570.124.6"},
                                "cudaComputeCapability": {"version": "8.0.0"},
                                "resource.kubernetes.io/pcieRoot": {
                                    "string": f"pci0000:{i // 4:02x}"
                                },
                            },
                            "capacity": {"memory": {"value": "80Gi"}},
                        }
                        for i in range(8)
                    ],
                },
            }
        )
    first = workers[0]["metadata"]["name"]
    pod = "llm-infer-7d9f8c6b5-x2x9q"
    claim_name = f"{pod}-gpu-q8wzt"
    items.append(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": _meta(
                claim_name,
                NAMESPACE,
                finalizers=["resource.kubernetes.io/delete-protection"],
                annotations={"resource.kubernetes.io/pod-claim-name": "gpu"},
                ownerReferences=[
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "name": pod,
                        "uid": f"uid-{pod}",
                        "controller": True,
                    }
                ],
            ),
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {
                                "deviceClassName": "a100.nvidia.com",
                                "allocationMode": "ExactCount",
                                "count": 2,
                            },
                        }
                    ],
                    "constraints": [
                        {"requests": ["gpu"], "matchAttribute": "resource.kubernetes.io/pcieRoot"}
                    ],
                }
            },
            "status": {
                "allocation": {
                    "devices": {
                        "results": [
                            {"request": "gpu", "driver": GPU, "pool": first, "device": "gpu-0"},
                            {"request": "gpu", "driver": GPU, "pool": first, "device": "gpu-1"},
                        ],
                        "config": [
                            {
                                "source": "FromClass",
                                "opaque": {"driver": GPU, "parameters": {"licenseKey": SECRET}},
                            }
                        ],
                    },
                    "nodeSelector": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": [first]}
                                ]
                            }
                        ]
                    },
                },
                "reservedFor": [{"resource": "pods", "name": pod, "uid": f"uid-{pod}"}],
                # What the driver reports of a device it prepared (opaque to the scheduler).
                "devices": [
                    {
                        "driver": GPU,
                        "pool": first,
                        "device": "gpu-0",
                        "data": {"sharingToken": SECRET},
                    }
                ],
            },
        }
    )
    items.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": _meta(pod, NAMESPACE, labels={"app": "llm-infer"}),
            "spec": {
                "nodeName": first,
                "containers": [
                    {
                        "name": "server",
                        "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3",
                        "resources": {
                            "requests": {"cpu": "1", "memory": "8Gi"},
                            "claims": [{"name": "gpu"}],
                        },
                    }
                ],
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "llm-infer-gpu"}],
                "priority": 0,
            },
            "status": {
                "phase": "Running",
                "startTime": "2025-05-01T10:05:00Z",
                "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": claim_name}],
            },
        }
    )
    return items


def storage_dra_dump() -> dict[str, Any]:
    """ocp-aws (long node names) with every storage and DRA kind: kubectl's v1 List."""
    dump = lengthen_node_names(real_dump("ocp-aws"))
    workers = _worker_nodes(dump)
    items = dump["items"]
    items += storage_objects(workers)
    # kafka-0..5: each claim bound to a PV in its pod's zone; kafka-6's not provisioned yet.
    for i in range(6):
        worker = workers[i % len(workers)]
        zone = worker["metadata"]["labels"]["topology.kubernetes.io/zone"]
        claim, volume = f"data-kafka-{i}", f"pvc-{i:08d}-3183-4de6-a0ef-341ada279692"
        items += [
            _claim(claim, volume=volume),
            _volume(volume, claim, zone),
            _stateful_pod(f"kafka-{i}", worker["metadata"]["name"], claim),
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "VolumeAttachment",
                "metadata": _meta(f"csi-{zlib.crc32(volume.encode()) % 10**16:016x}"),
                "spec": {
                    "attacher": EBS,
                    "nodeName": worker["metadata"]["name"],
                    "source": {"persistentVolumeName": volume},
                },
                "status": {"attached": True},
            },
        ]
    items.append(_claim("data-kafka-6", volume=None))
    items += dra_objects(workers)
    return copy.deepcopy(dump)
