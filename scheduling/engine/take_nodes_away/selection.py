"""Which nodes go, checked against the cluster; the surge nodes made first."""

from __future__ import annotations

import copy
from collections import defaultdict

from ..cluster import Cluster, NodeInfo
from ..errors import InvalidInput
from ..labels import parse_selector_text
from ..objects import Node
from ..plugins.podtopologyspread import LABEL_TOPOLOGY_ZONE
from .drain import UNSCHEDULABLE_TAINT
from .request import TakeNodesAway

ZONE_LABEL = LABEL_TOPOLOGY_ZONE


def _few(names: list[str], limit: int = 5) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def select_nodes(cluster: Cluster, request: TakeNodesAway) -> list[str]:
    """The nodes to take, in the order they go: as listed, else by name."""
    known = cluster.node_info_by_name
    if request.nodes:
        unknown = [n for n in request.nodes if n not in known]
        if unknown:
            raise InvalidInput(
                f"no such node in the snapshot: {_few(unknown)}: name nodes it holds",
                field="nodes",
            )
        return list(request.nodes)
    if request.selector:
        selector = parse_selector_text(request.selector)
        found = sorted(n.name for n in cluster.nodes if selector.matches(n.labels))
        if not found:
            raise InvalidInput(
                f"{request.selector!r} matches no node of the snapshot: check the labels",
                field="selector",
            )
        return found
    found = sorted(n.name for n in cluster.nodes if n.labels.get(ZONE_LABEL) == request.zone)
    if not found:
        zones = sorted({n.labels[ZONE_LABEL] for n in cluster.nodes if ZONE_LABEL in n.labels})
        raise InvalidInput(
            f"no node is in zone {request.zone!r} ({ZONE_LABEL})"
            + (f": the snapshot's zones are {_few(zones)}" if zones else ": no node has the label"),
            field="zone",
        )
    return found


def surge_names(cluster: Cluster, like: str, count: int) -> list[str]:
    names: list[str] = []
    i = 0
    while len(names) < count:
        i += 1
        name = f"{like}-surge-{i}"
        if name not in cluster.node_info_by_name:
            names.append(name)
    return names


def with_surge_nodes(cluster: Cluster, like: str, count: int) -> tuple[Cluster, list[str]]:
    """A view of ``cluster`` with ``count`` empty copies of node ``like`` (labels,
    capacity, taints; spec.unschedulable not copied: a new node is schedulable).
    The cluster itself, cached and shared, is not changed."""
    model = cluster.node_info_by_name.get(like)
    if model is None:
        raise InvalidInput(
            f"no such node in the snapshot: {like}: name a node to copy", field="add_nodes.like"
        )
    names = surge_names(cluster, like, count)
    view = copy.copy(cluster)
    view.nodes = list(cluster.nodes)
    view.node_infos = list(cluster.node_infos)
    view.node_info_by_name = dict(cluster.node_info_by_name)
    view.image_num_nodes = defaultdict(int, cluster.image_num_nodes)
    m = model.node
    for name in names:
        labels = dict(m.labels)
        if "kubernetes.io/hostname" in labels:
            labels["kubernetes.io/hostname"] = name
        node = Node(
            name,
            labels=labels,
            taints=[dict(t) for t in m.taints if t.get("key") != UNSCHEDULABLE_TAINT],
            allocatable=dict(m.allocatable),
            images=dict(m.images),
        )
        ni = NodeInfo(node)
        view.nodes.append(node)
        view.node_infos.append(ni)
        view.node_info_by_name[name] = ni
        for img in node.images:
            view.image_num_nodes[img] += 1
    return view, names
