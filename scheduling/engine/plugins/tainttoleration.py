"""TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..cluster import NodeInfo
from ..framework import (
    MAX_NODE_SCORE,
    SUCCESS,
    CycleState,
    Handle,
    NodeScore,
    Status,
    default_normalize_score,
    unresolvable,
)
from ..objects import Pod
from . import names

ERR_REASON_NOT_MATCH = "node(s) had untolerated taint(s)"
_PRE_SCORE_KEY = "PreScore" + names.TAINT_TOLERATION


def toleration_tolerates(tol: Mapping[str, Any], taint: Mapping[str, str]) -> bool:
    """v1.Toleration.ToleratesTaint."""
    effect = tol.get("effect") or ""
    if effect and effect != taint["effect"]:
        return False
    key = tol.get("key") or ""
    if key and key != taint["key"]:
        return False
    op = tol.get("operator") or "Equal"
    if op == "Exists":
        return True
    if op == "Equal":
        return (tol.get("value") or "") == taint["value"]
    return False


class TaintToleration:
    name = names.TAINT_TOLERATION

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        for taint in node_info.node.taints:
            if taint["effect"] == "PreferNoSchedule":
                continue
            if not any(toleration_tolerates(t, taint) for t in pod.tolerations):
                return unresolvable(ERR_REASON_NOT_MATCH)
        return SUCCESS

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        prefer = [t for t in pod.tolerations if (t.get("effect") or "") in ("", "PreferNoSchedule")]
        state.write(_PRE_SCORE_KEY, prefer)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        tolerations = state.get(_PRE_SCORE_KEY, [])
        count = 0
        for taint in node_info.node.taints:
            if taint["effect"] != "PreferNoSchedule":
                continue
            if not any(toleration_tolerates(t, taint) for t in tolerations):
                count += 1
        return count

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> None:
        default_normalize_score(MAX_NODE_SCORE, True, scores)
