"""What a take-nodes-away analysis is asked: which nodes, how they go, and the options.

The API body and the stored request share one shape (``from_dict`` / ``to_dict``):
``{"nodes": [...] | "selector": "k=v,..." | "zone": "...", "how": "drain"|"lost",
"force": bool, "max_unavailable": N, "add_nodes": {"count": N, "like": NODE}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..labels import parse_selector_text

DRAIN = "drain"
LOST = "lost"
HOWS = (DRAIN, LOST)
# The most surge nodes one what-if adds (a node pool's surge, not a second cluster).
MAX_ADD_NODES = 1000
_KEYS = ("nodes", "selector", "zone", "how", "force", "max_unavailable", "add_nodes")


def _count(value: Any, field: str, *, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"must be a whole number (got {value!r})", field=field)
    if value < least:
        raise InvalidInput(f"must be at least {least} (got {value})", field=field)
    return value


@dataclass(frozen=True)
class AddNodes:
    """Nodes made like an existing one before anything is taken (a managed upgrade's
    surge node): its labels, capacity and taints, no pods."""

    count: int
    like: str

    @classmethod
    def from_dict(cls, data: Any) -> AddNodes:
        if not isinstance(data, Mapping):
            raise InvalidInput('must be an object: {"count": N, "like": NODE}', field="add_nodes")
        unknown = sorted(set(data) - {"count", "like"})
        if unknown:
            raise InvalidInput(
                f"unknown keys {', '.join(unknown)}: only count and like", field="add_nodes"
            )
        count = _count(data.get("count"), "add_nodes.count", least=1)
        if count > MAX_ADD_NODES:
            raise InvalidInput(
                f"at most {MAX_ADD_NODES} nodes (got {count})", field="add_nodes.count"
            )
        like = data.get("like")
        if not isinstance(like, str) or not like:
            raise InvalidInput("name the node to copy", field="add_nodes.like")
        return cls(count, like)

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "like": self.like}


@dataclass(frozen=True)
class TakeNodesAway:
    """The request. Exactly one of ``nodes`` (taken in the order given), ``selector``
    (kubectl -l syntax, a node pool) or ``zone`` (topology.kubernetes.io/zone); the
    selector's and zone's nodes are taken by name."""

    nodes: tuple[str, ...] = ()
    selector: str = ""
    zone: str = ""
    how: str = DRAIN
    force: bool = False
    max_unavailable: int = 1
    add_nodes: AddNodes | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TakeNodesAway:
        if not isinstance(data, Mapping):
            raise InvalidInput("the request must be an object")
        unknown = sorted(set(data) - set(_KEYS))
        if unknown:
            raise InvalidInput(
                f"unknown keys {', '.join(unknown)}: use {', '.join(_KEYS)}", field=unknown[0]
            )
        given = [k for k in ("nodes", "selector", "zone") if data.get(k) not in (None, "", [])]
        if len(given) != 1:
            raise InvalidInput(
                "give exactly one of nodes (a list of names), selector (k=v,...) or zone"
                + (f" (got {', '.join(given)})" if given else ""),
                field="nodes",
            )
        nodes: tuple[str, ...] = ()
        selector = zone = ""
        if given[0] == "nodes":
            raw = data["nodes"]
            if not isinstance(raw, (list, tuple)):
                raise InvalidInput("must be a list of node names", field="nodes")
            for i, n in enumerate(raw):
                if not isinstance(n, str) or not n:
                    raise InvalidInput("must be a node name", field=f"nodes[{i}]")
            dupes = sorted({n for n in raw if raw.count(n) > 1})
            if dupes:
                raise InvalidInput(f"listed twice: {', '.join(dupes)}", field="nodes")
            nodes = tuple(raw)
        elif given[0] == "selector":
            selector = data["selector"]
            if not isinstance(selector, str):
                raise InvalidInput("must be a label selector such as pool=blue", field="selector")
            parse_selector_text(selector)  # refused here, before any cluster is read
        else:
            zone = data["zone"]
            if not isinstance(zone, str):
                raise InvalidInput("must be a zone name", field="zone")
        how = data.get("how", DRAIN)
        if how not in HOWS:
            raise InvalidInput(f"must be drain or lost (got {how!r})", field="how")
        force = data.get("force", False)
        if not isinstance(force, bool):
            raise InvalidInput("must be true or false", field="force")
        max_unavailable = _count(data.get("max_unavailable", 1), "max_unavailable", least=1)
        raw_add = data.get("add_nodes")
        add = AddNodes.from_dict(raw_add) if raw_add is not None else None
        return cls(nodes, selector, zone, how, force, max_unavailable, add)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.nodes:
            out["nodes"] = list(self.nodes)
        elif self.selector:
            out["selector"] = self.selector
        else:
            out["zone"] = self.zone
        out.update(how=self.how, force=self.force, max_unavailable=self.max_unavailable)
        out["add_nodes"] = self.add_nodes.to_dict() if self.add_nodes is not None else None
        return out
