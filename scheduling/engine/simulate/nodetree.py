"""The scheduler cache's node order and where Filter starts (internal/cache/node_tree.go,
schedule_one.go findNodesThatPassFilters' nextStartNodeIndex).

A profile without Score plugins needs one feasible node only (numNodesToFind = 1):
the real Filter walks the nodes from nextStartNodeIndex in the node tree's order
(zones interleaved, each zone's nodes in the order the informer added them, by
name) and binds the first that fits; the next cycle starts after the nodes it
processed. With Score plugins every node is processed and the start never moves
(below 100 nodes), so only that case needs the walk.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..objects import Node

_ZONE = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
_REGION = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")


def _label(node: Node, keys: tuple[str, str]) -> str:
    for k in keys:
        if k in node.labels:
            return node.labels[k]
    return ""


def zone_key(node: Node) -> str:
    """utilnode.GetZoneKey."""
    zone, region = _label(node, _ZONE), _label(node, _REGION)
    return "" if not zone and not region else f"{region}:\x00:{zone}"


def node_tree_order(nodes: Sequence[Node]) -> list[str]:
    """nodeTree.list(): one node of each zone in turn, zones in the order their first
    node was added, the nodes added by name (the order a LIST returns them)."""
    tree: dict[str, list[str]] = {}
    for node in sorted(nodes, key=lambda n: n.name):
        tree.setdefault(zone_key(node), []).append(node.name)
    zones = list(tree.values())
    out: list[str] = []
    for i in range(max((len(z) for z in zones), default=0)):
        out.extend(z[i] for z in zones if i < len(z))
    return out


class FilterStart:
    """nextStartNodeIndex over the node tree's order."""

    def __init__(self, nodes: Sequence[Node]) -> None:
        self.order = node_tree_order(nodes)
        self.next = 0

    def first_feasible(self, feasible: Collection[str]) -> str:
        """The node a Filter pass that stops at the first feasible node binds, moving
        the start past the nodes it processed."""
        n = len(self.order)
        for i in range(n):
            name = self.order[(self.next + i) % n]
            if name in feasible:
                self.next = (self.next + i + 1) % n
                return name
        raise ValueError("no feasible node")
