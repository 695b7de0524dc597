"""NodeName: a pod with spec.nodeName only fits that node."""

from __future__ import annotations

from ..cluster import NodeInfo
from ..framework import SUCCESS, CycleState, Handle, Status, unresolvable
from ..objects import Pod
from . import names

ERR_REASON = "node(s) didn't match the requested node name"


class NodeName:
    name = names.NODE_NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if pod.node_name and pod.node_name != node_info.name:
            return unresolvable(ERR_REASON)
        return SUCCESS
