"""kubectl drain's rules, pure: cordon, which pods go and how, and the eviction API's
answer for one pod.

The drain is ``kubectl drain --ignore-daemonsets --delete-emptydir-data [--force]``:
emptyDir data is deleted, as managed node-pool upgrades do (GKE, EKS and AKS drain
that way), so a pod with local storage is evicted like any other.

kubectl (staging/src/k8s.io/kubectl/pkg/drain/filters.go, GetPodsForDeletion) runs
its filters over the node's pods in this order: skipDeletedFilter, daemonSetFilter,
mirrorPodFilter, localStorageFilter, unreplicatedFilter. A filter's error on any pod
refuses the whole node before a single eviction is issued ("cannot delete Pods that
declare no controller (use --force to override): ns/name"); only then is every pod
left evicted, each in its own goroutine that retries a 429 every 5 s and then waits
for the pod to be gone (waitForDelete).

The eviction API (pkg/registry/core/pod/storage/eviction.go) deletes without looking
at budgets a pod that is Succeeded, Failed, Pending or already terminating
(canIgnorePDB); refuses a pod more than one budget selects (500: "This pod has more
than one PodDisruptionBudget, which the eviction subresource does not support."); a
budget with an empty selector selects nothing there. Otherwise the one budget must
allow a disruption: status.disruptionsAllowed > 0 (then decremented) or 429 "Cannot
evict pod as it would violate the pod's disruption budget." A running pod that is
not ready is evicted under unhealthyPodEvictionPolicy; a snapshot's pods carry no
readiness here, so every Running pod counts as ready and healthy.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..objects import Node, Pod

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
# kubectl's filters' words.
UNREPLICATED_MESSAGE = "cannot delete Pods that declare no controller (use --force to override)"
TOO_MANY_BUDGETS = (
    "This pod has more than one PodDisruptionBudget, which the eviction subresource "
    "does not support."
)
BUDGET_VIOLATED = "Cannot evict pod as it would violate the pod's disruption budget."
# evictPods: a refused eviction (429) is retried after this long.
EVICTION_RETRY_MS = 5_000


class Fate(enum.Enum):
    """What the drain does with one pod of the node."""

    LEFT = "left"  # a DaemonSet's or a mirror pod: stays on the cordoned node
    DELETE = "delete"  # finished (Succeeded/Failed): deleted, nothing comes back
    EVICT = "evict"  # through the eviction API
    BARE = "bare"  # no controller: evicted with --force, else the node is refused


def cordoned(node: Node) -> Node:
    """kubectl cordon: spec.unschedulable set; the node lifecycle controller then adds
    the node.kubernetes.io/unschedulable:NoSchedule taint (TaintNodeByCondition)."""
    taints = [t for t in node.taints if t.get("key") != UNSCHEDULABLE_TAINT]
    taints.append({"key": UNSCHEDULABLE_TAINT, "value": "", "effect": "NoSchedule"})
    return Node(
        node.name,
        labels=node.labels,
        taints=taints,
        unschedulable=True,
        allocatable=node.allocatable,
        images=node.images,
    )


def owner_kind(pod: Pod) -> str:
    return (pod.owner or "").partition("/")[0]


def is_mirror(pod: Pod) -> bool:
    """mirrorPodFilter keys on the kubernetes.io/config.mirror annotation; the kubelet
    also makes a mirror pod's controller its Node (since 1.17), which is what the
    snapshot's pods keep of it."""
    return owner_kind(pod) == "Node"


def fate(pod: Pod) -> Fate:
    """The filters of GetPodsForDeletion for one pod (not yet terminating)."""
    if pod.phase in ("Succeeded", "Failed"):
        return Fate.DELETE
    kind = owner_kind(pod)
    if kind == "DaemonSet":
        return Fate.LEFT  # --ignore-daemonsets
    if kind == "Node":
        return Fate.LEFT  # a mirror pod: only its kubelet can remove it
    if not pod.owner:
        return Fate.BARE
    return Fate.EVICT


def can_ignore_budget(pod: Pod) -> bool:
    """canIgnorePDB: nothing to disrupt in a pod that does not run or is already going."""
    return pod.phase in ("Succeeded", "Failed", "Pending") or pod.terminating


@dataclass(frozen=True)
class Refusal:
    """The eviction API's no: the budget(s) and the words; ``final`` when retrying can
    never help (more than one budget)."""

    pdbs: tuple[str, ...]
    message: str
    final: bool
