"""Nodes lost (a zone, or nodes, failing): what the node lifecycle controller and the
taint manager do to their pods, pure.

Time zero is the moment the node lifecycle controller marks the nodes unreachable: it
taints them node.kubernetes.io/unreachable, NoSchedule and NoExecute (after
node-monitor-grace-period, which is before time zero here). The taint manager
(pkg/controller/tainteviction) then deletes each pod after its toleration of that
NoExecute taint: at once when no toleration matches, after the least
tolerationSeconds of those that do, never when one matching has no seconds (a
DaemonSet's pods). A pod without any such toleration in a dump is given 300 s, as the
DefaultTolerationSeconds admission plugin adds to every pod it admits. No eviction API,
no budget.

Then a lost pod stays Terminating (no kubelet confirms it) until its Node object is
deleted: a zone lost in a cloud has its Nodes deleted by the cloud node lifecycle
controller once the instances are gone, and PodGC then force-deletes the pods of nodes
that no longer exist. The engine takes that path and counts the pod gone at its
deletion: a ReplicaSet's replacement is made then anyway, and a StatefulSet's pod
(which cannot be made again before its old self is gone) returns at the same time,
after its toleration seconds, as the cluster's would once its Node is deleted.
"""

from __future__ import annotations

from typing import Any

from ..objects import Node, Pod

UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
# DefaultTolerationSeconds admission: --default-unreachable-toleration-seconds.
DEFAULT_TOLERATION_SECONDS = 300


def unreachable(node: Node) -> Node:
    taints = [t for t in node.taints if t.get("key") != UNREACHABLE_TAINT]
    taints.append({"key": UNREACHABLE_TAINT, "value": "", "effect": "NoSchedule"})
    taints.append({"key": UNREACHABLE_TAINT, "value": "", "effect": "NoExecute"})
    return Node(
        node.name,
        labels=node.labels,
        taints=taints,
        unschedulable=node.unschedulable,
        allocatable=node.allocatable,
        images=node.images,
    )


def _tolerates(t: dict[str, Any]) -> bool:
    """ToleratesTaint for unreachable:NoExecute (no value)."""
    effect = t.get("effect") or ""
    if effect and effect != "NoExecute":
        return False
    key = t.get("key") or ""
    op = t.get("operator") or "Equal"
    if op == "Exists":
        return not key or key == UNREACHABLE_TAINT
    return key == UNREACHABLE_TAINT and not (t.get("value") or "")


def has_unreachable_toleration(pod: Pod) -> bool:
    """Whether any toleration names the taint (DefaultTolerationSeconds adds its own only
    to a pod that has none for it)."""
    return any(_tolerates(t) for t in pod.tolerations)


def toleration_seconds(pod: Pod) -> int | None:
    """How long the pod stays on the unreachable node (None: for good).
    getMinTolerationTime over the matching tolerations."""
    matching = [t for t in pod.tolerations if _tolerates(t)]
    if not matching:
        # A pod of the snapshot always went through admission; a dump without the
        # toleration stands for one that got the default.
        return DEFAULT_TOLERATION_SECONDS
    least: int | None = None
    for t in matching:
        s = t.get("tolerationSeconds")
        if isinstance(s, bool) or not isinstance(s, int):
            continue
        if s <= 0:
            return 0
        least = s if least is None else min(least, s)
    return least
