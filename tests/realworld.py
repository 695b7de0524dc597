"""The two real clusters' dumps (tests/fixtures/realworld, each SOURCE.txt says where
from), imported as a user imports a dump: through the app's own upload path."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from clusters import services as cluster_services

REAL = Path(__file__).resolve().parent / "fixtures" / "realworld"
CLUSTERS = ("ocp-aws", "ocp-vsphere")


def real_dump(cluster: str) -> dict[str, Any]:
    """The dump as kubectl wrote it (a v1 List)."""
    data: dict[str, Any] = json.loads(
        gzip.decompress((REAL / cluster / "snapshot.json.gz").read_bytes())
    )
    return data


def demote_workers(dump: dict[str, Any]) -> dict[str, Any]:
    """The workers' pods demoted to priority 100 and a class "medium" (1,000) added, so
    that what-ifs preempt real pods on real nodes: victims and tables hold real names."""
    workers = {
        o["metadata"]["name"]
        for o in dump["items"]
        if o["kind"] == "Node" and "node-role.kubernetes.io/worker" in o["metadata"]["labels"]
    }
    for o in dump["items"]:
        if o["kind"] == "Pod" and o["spec"].get("nodeName") in workers:
            o["spec"]["priority"] = 100
            o["spec"].pop("priorityClassName", None)
    dump["items"].append(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "medium"},
            "value": 1000,
        }
    )
    return dump


def lengthen_node_names(dump: dict[str, Any]) -> dict[str, Any]:
    """ocp-aws's nodes named as EC2 names them outside us-east-1, 42 characters
    (ip-10-0-129-220.us-east-2.compute.internal), wherever the dump names them."""
    renamed = {}
    for o in dump["items"]:
        if o["kind"] == "Node":
            old = o["metadata"]["name"]
            renamed[old] = old.replace(".ec2.internal", ".us-east-2.compute.internal")
            o["metadata"]["name"] = renamed[old]
            o["metadata"]["labels"]["kubernetes.io/hostname"] = renamed[old]
    for o in dump["items"]:
        if o["kind"] == "Pod" and o["spec"].get("nodeName") in renamed:
            o["spec"]["nodeName"] = renamed[o["spec"]["nodeName"]]
    return dump


def pending_pod(
    name: str, cpu: str, *, klass: str = "medium", namespace: str = "default"
) -> dict[str, Any]:
    """A pod to ask about: ``cpu`` and 2Gi, in ``klass`` (demote_workers's "medium")."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
        "spec": {
            "priorityClassName": klass,
            "containers": [
                {"name": "main", "resources": {"requests": {"cpu": cpu, "memory": "2Gi"}}}
            ],
        },
    }


def import_dump(owner: Any, name: str, dump: dict[str, Any]) -> Any:
    """The dump uploaded as one JSON file, ingested at once; the snapshot is ready."""
    snapshot = cluster_services.snapshot_create(
        owner=owner,
        name=name,
        files=[cluster_services.UploadedFile(name="snapshot.json", data=json.dumps(dump).encode())],
        run_async=False,
    )
    assert snapshot.is_ready, snapshot.error
    return snapshot
