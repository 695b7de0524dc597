"""NodePorts: a host port already used on the node (same protocol, overlapping IP)."""

from __future__ import annotations

from collections.abc import Sequence

from ..cluster import NodeInfo
from ..framework import SUCCESS, Code, CycleState, Handle, PreFilterResult, Status, unschedulable
from ..objects import Pod
from . import names

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


def ports_conflict(
    used: dict[tuple[str, str, int], int], wanted: list[tuple[str, str, int]]
) -> bool:
    """HostPortInfo.CheckConflict: 0.0.0.0 conflicts with every IP of the same protocol/port."""
    for ip, proto, port in wanted:
        for uip, uproto, uport in used:
            if (
                uport == port
                and uproto == proto
                and (ip in (uip, DEFAULT_BIND_ALL_HOST_IP) or uip == DEFAULT_BIND_ALL_HOST_IP)
            ):
                return True
    return False


class NodePorts:
    name = names.NODE_PORTS

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not pod.host_ports:
            return None, Status(Code.SKIP)
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if pod.host_ports and ports_conflict(node_info.used_ports, pod.host_ports):
            return unschedulable(ERR_REASON)
        return SUCCESS
