"""What the snapshot page says about an ingest: when the dump was taken, what the
what-ifs will miss, why an upload is not a cluster."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from typing import Any

from scheduling.engine import Cluster


def no_cluster_message(skipped: Counter[str]) -> str:
    """Why an upload without a Node or a Pod is refused, and what to upload instead."""
    found = ", ".join(f"{n:,} {kind}" for kind, n in skipped.most_common(5))
    what = f"it holds {found}" if found else "it holds no object the scheduler reads"
    return (
        f"Not a snapshot of a cluster: no Node and no Pod in the upload ({what}). Upload what "
        "kubectl get nodes,pods,pdb,priorityclasses -A -o json prints. To ask where a "
        "Deployment's pods would go, open a snapshot and use “What if…” with the pod template."
    )


# kubectl prints every metav1.Time this way (seconds, UTC): such strings sort as times.
_KUBE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")

_CONDITION_TIMES = ("lastHeartbeatTime", "lastTransitionTime", "lastProbeTime")


def latest_timestamp(objects: list[dict[str, Any]]) -> datetime | None:
    """The latest time any object records (creation, a pod's start, a condition's last
    heartbeat or transition): about when the dump was taken."""
    latest = ""
    for obj in objects:
        meta = obj.get("metadata")
        found = [meta.get("creationTimestamp")] if isinstance(meta, dict) else []
        status = obj.get("status")
        if isinstance(status, dict):
            found.append(status.get("startTime"))
            for condition in status.get("conditions") or ():
                if isinstance(condition, dict):
                    found.extend(condition.get(k) for k in _CONDITION_TIMES)
        for t in found:
            if isinstance(t, str) and t > latest and _KUBE_TIME.fullmatch(t):
                latest = t
    return datetime.fromisoformat(latest) if latest else None


def node_warnings(cluster: Cluster) -> list[str]:
    """A snapshot without Nodes, or with pods bound to Nodes it lacks, is kept (a dump of
    one namespace's pods is still worth browsing) but says what that means for what-ifs."""
    warnings = []
    if not cluster.nodes:
        warnings.append(
            "The snapshot has no Node objects: every what-if on it is unschedulable. "
            "Include nodes in the dump (kubectl get nodes,pods,pdb,priorityclasses -A -o json)."
        )
    known = {node.name for node in cluster.nodes}
    absent = Counter(p.node_name for p in cluster.pods if p.node_name and p.node_name not in known)
    if absent and cluster.nodes:
        names = ", ".join(sorted(absent)[:5]) + (", ..." if len(absent) > 5 else "")
        warnings.append(
            f"{sum(absent.values()):,} pods are bound to {len(absent):,} nodes missing from "
            f"the snapshot ({names}): they count on no node, so no what-if can preempt them."
        )
    return warnings
