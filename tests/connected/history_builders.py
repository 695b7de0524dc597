"""Two snapshots of one connected cluster, the later one changed: a class added, a PDB
at 0 allowed disruptions, a pod naming a deleted class and a Preempted event."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

from clusters.models import Snapshot
from connected.models import Cluster
from tests.clusters.builders import make_pdb, make_pod, make_priority_class, small_cluster
from tests.scheduling.conftest import make_snapshot

MONDAY = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
TUESDAY = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
PREEMPTED_AT = "2026-11-24T08:40:00Z"


def preempted_event(
    victim: str = "web-2", uid: str = "uid-default-web-2", node: str = "node-b", **extra: Any
) -> dict[str, Any]:
    """kube-scheduler's event as a snapshot stores it (clusters.models.Snapshot.events)."""
    return {
        "type": "Normal",
        "reason": "Preempted",
        "message": f"Preempted by pod uid-batch-urgent-1 on node {node}",
        "namespace": "default",
        "involved": {"kind": "Pod", "namespace": "default", "name": victim, "uid": uid},
        "source": "default-scheduler",
        "count": 1,
        "first_at": PREEMPTED_AT,
        "last_at": PREEMPTED_AT,
        **extra,
    }


def later_objects() -> list[dict[str, Any]]:
    objects = copy.deepcopy(small_cluster())
    objects = [o for o in objects if o["metadata"].get("name") not in ("web-2", "web-pdb")]
    return [
        *objects,
        make_priority_class("batch-high", 500),
        make_pdb("web-pdb", app="web", allowed=0),
        make_pod("urgent-1", namespace="batch", node="node-b", priority_class="batch-high"),
        make_pod("api", namespace="shop", node="node-a", priority_class="gone"),
    ]


def cluster_snapshot(cluster: Cluster, objects: Any, taken_at: datetime, **fields: Any) -> Any:
    snapshot = make_snapshot(cluster.owner, objects, name=f"{cluster.name}-{taken_at:%a}")
    Snapshot.objects.filter(pk=snapshot.pk).update(cluster=cluster, taken_at=taken_at, **fields)
    snapshot.refresh_from_db()
    assert snapshot.is_ready, snapshot.error
    return snapshot
