"""Browse rows computed from the engine's Cluster: what the pages show, computed once.

Each row is a dict of column values by attribute name (snapshot_id, ...), cheaper
than a model instance when there are 150,000 of them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from clusters import models
from clusters.constants import MAX_PER_VALUE_BANDS, PDB_MATCHED_NAMES, PRIORITY_BANDS
from scheduling.engine import Cluster

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"


def parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _held(pod: Any) -> bool:
    """Whether a pod holds its node's resources (what NodeInfo counts)."""
    return pod.phase not in ("Succeeded", "Failed")


# -- priority bands --------------------------------------------------------------


def compute_bands(cluster: Cluster) -> list[dict[str, Any]]:
    """The bands of the node charts: one per priority when there are few, else fixed ranges."""
    values: dict[int, set[str]] = defaultdict(set)
    for pod in cluster.pods:
        if pod.node_name and _held(pod):
            values[pod.priority].add(pod.priority_class_name or "")
    if len(values) <= MAX_PER_VALUE_BANDS:
        bands = []
        for value in sorted(values, reverse=True):
            names = sorted(n for n in values[value] if n)
            label = ", ".join(names) if names else "no class"
            bands.append({"key": f"p{value}", "label": f"{label} ({value})", "min": value})
    else:
        bands = [{"key": key, "label": label, "min": floor} for key, label, floor in PRIORITY_BANDS]
    for i, band in enumerate(bands):
        band["color"] = i
    return bands


def band_of(priority: int, bands: list[dict[str, Any]]) -> str:
    for band in bands:
        if priority >= band["min"]:
            return str(band["key"])
    return str(bands[-1]["key"])


# -- rows ------------------------------------------------------------------------


def node_rows(
    cluster: Cluster, snapshot: models.Snapshot, bands: list[dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    for info in cluster.node_infos:
        node = info.node
        by_band: dict[str, dict[str, int]] = {}
        held = 0
        for pod in info.pods:
            held += 1
            key = band_of(pod.priority, bands)
            slot = by_band.setdefault(key, {CPU: 0, MEMORY: 0})
            slot[CPU] += pod.requests.get(CPU, 0)
            slot[MEMORY] += pod.requests.get(MEMORY, 0)
        requested = dict(info.requested)
        requested[PODS] = held
        yield dict(
            snapshot_id=snapshot.pk,
            name=node.name,
            labels=node.labels,
            taints=node.taints,
            unschedulable=node.unschedulable,
            allocatable=node.allocatable,
            requested=requested,
            band_requests=by_band,
            pod_count=held,
            cpu_allocatable=node.allocatable.get(CPU, 0),
            cpu_requested=requested.get(CPU, 0),
            memory_allocatable=node.allocatable.get(MEMORY, 0),
            memory_requested=requested.get(MEMORY, 0),
        )


def pod_columns(
    cluster: Cluster,
    snapshot: models.Snapshot,
    locations: dict[tuple[str, str], tuple[int, int]] | None = None,
) -> dict[str, list[Any]]:
    """The pods' browse rows as columns (a list of values per attribute name), built
    a column at a time: 150,000 rows as dicts cost more than storing them.
    ``locations`` gives where each pod's stored object is (chunk, index in it) by
    (namespace, name)."""
    pods = cluster.pods
    locations = locations or {}
    nowhere: tuple[int | None, int | None] = (None, None)
    where = [locations.get((p.namespace, p.name), nowhere) for p in pods]
    requests = [p.requests for p in pods]
    return {
        "snapshot_id": [snapshot.pk] * len(pods),
        "namespace": [p.namespace for p in pods],
        "name": [p.name for p in pods],
        "uid": [p.uid or "" for p in pods],
        "node_name": [p.node_name or "" for p in pods],
        "phase": [p.phase or "" for p in pods],
        "priority": [p.priority for p in pods],
        "priority_class": [p.priority_class_name or "" for p in pods],
        "preemption_policy": [p.preemption_policy or "" for p in pods],
        "qos_class": [p.qos_class or "" for p in pods],
        "cpu_request": [r.get(CPU, 0) for r in requests],
        "memory_request": [r.get(MEMORY, 0) for r in requests],
        "requests": requests,
        "owner": [p.owner or "" for p in pods],
        "start_time": [parse_time(p.start_time) for p in pods],
        "terminating": [bool(p.terminating) for p in pods],
        "nominated_node_name": [p.nominated_node_name or "" for p in pods],
        "object_chunk": [chunk for chunk, _ in where],
        "object_index": [index for _, index in where],
    }


def selector_text(selector: dict[str, Any] | None) -> str:
    """A label selector as kubectl prints it: ``app=blue,tier in (a,b),!legacy``."""
    if selector is None:
        return "<none>"
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr.get("key", ""), expr.get("operator", ""), expr.get("values") or []
        if op == "In":
            parts.append(f"{key} in ({','.join(values)})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({','.join(values)})")
        elif op == "Exists":
            parts.append(key)
        elif op == "DoesNotExist":
            parts.append(f"!{key}")
        else:
            parts.append(f"{key} {op} ({','.join(values)})")
    return ",".join(parts) if parts else "<everything>"


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def pdb_rows(
    cluster: Cluster, snapshot: models.Snapshot, pdb_status: dict[tuple[str, str], dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    matched: dict[int, list[str]] = defaultdict(list)
    if cluster.pdbs:
        # The engine's index (one pass, by matchLabels pair) when uids are unique;
        # otherwise every pod against its namespace's budgets.
        unique_uids = len({pod.uid for pod in cluster.pods}) == len(cluster.pods)
        by_namespace: dict[str, list[int]] = defaultdict(list)
        for i, pdb in enumerate(cluster.pdbs):
            by_namespace[pdb.namespace].append(i)
        pdbs = cluster.pdbs
        for pod in cluster.pods:
            if pod.namespace not in by_namespace:
                continue
            if unique_uids:
                found = cluster.pdbs_for_pod(pod)
            else:
                found = tuple(i for i in by_namespace[pod.namespace] if pdbs[i].matches(pod))
            for i in found:
                matched[i].append(pod.name)
    for i, pdb in enumerate(cluster.pdbs):
        status = pdb_status.get((pdb.namespace, pdb.name), {})
        names = sorted(matched.get(i, ()))
        yield dict(
            snapshot_id=snapshot.pk,
            namespace=pdb.namespace,
            name=pdb.name,
            selector=pdb.selector,
            selector_text=selector_text(pdb.selector),
            min_available="" if pdb.min_available is None else str(pdb.min_available),
            max_unavailable="" if pdb.max_unavailable is None else str(pdb.max_unavailable),
            disruptions_allowed=pdb.disruptions_allowed,
            current_healthy=_int_or_none(status.get("currentHealthy")),
            desired_healthy=_int_or_none(status.get("desiredHealthy")),
            expected_pods=_int_or_none(status.get("expectedPods")),
            matched_pod_count=len(names),
            matched_pods=names[:PDB_MATCHED_NAMES],
        )


def priority_class_rows(cluster: Cluster, snapshot: models.Snapshot) -> Iterator[dict[str, Any]]:
    counts: dict[str, int] = defaultdict(int)
    for pod in cluster.pods:
        if pod.priority_class_name:
            counts[pod.priority_class_name] += 1
    listed = {pc.name for pc in cluster.priority_classes}
    classes = list(cluster.priority_classes)
    # The system classes exist in every cluster, listed or not.
    classes += [pc for pc in cluster.resolver.by_name.values() if pc.name not in listed]
    for pc in classes:
        yield dict(
            snapshot_id=snapshot.pk,
            name=pc.name,
            value=pc.value,
            global_default=pc.global_default,
            preemption_policy=pc.preemption_policy,
            description=pc.description or "",
            created=parse_time(pc.created),
            builtin=bool(pc.builtin),
            pod_count=counts.get(pc.name, 0),
        )
