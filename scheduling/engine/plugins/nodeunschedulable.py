"""NodeUnschedulable: cordoned nodes, unless the pod tolerates the unschedulable taint."""

from __future__ import annotations

from ..cluster import NodeInfo
from ..framework import SUCCESS, CycleState, Handle, Status, unresolvable
from ..objects import Pod
from . import names
from .tainttoleration import toleration_tolerates

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
_UNSCHEDULABLE_TAINT = {
    "key": "node.kubernetes.io/unschedulable",
    "value": "",
    "effect": "NoSchedule",
}


class NodeUnschedulable:
    name = names.NODE_UNSCHEDULABLE

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not node_info.node.unschedulable:
            return SUCCESS
        if any(toleration_tolerates(t, _UNSCHEDULABLE_TAINT) for t in pod.tolerations):
            return SUCCESS
        return unresolvable(ERR_REASON_UNSCHEDULABLE)
