"""Queueing hints: which cluster events may make a rejected pod schedulable again.

kube-scheduler (SchedulerQueueingHints, on by default) asks each plugin that rejected
a pod, through the QueueingHintFn it registered in EventsToRegister, whether an event
is worth a retry. Only the events a simulation produces are modelled: an assigned pod
added (a bind), an assigned pod deleted (a victim), and a pending pod that no longer
holds its nominated node (its nominatedNodeName changed: the event handler sends
UnscheduledPodDelete with the old pod to pods of lower or equal priority). Nodes never
change during a run; other updates of pending pods are UpdatePodOther, an event no
default plugin registers, so they never move a pod.

Each function below mirrors the plugin's Go function of the same name.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..cluster import Cluster
from ..dra.objects import ResourceClaim
from ..objects import Pod
from ..plugins import names
from ..plugins.dynamicresources import resolve_claims
from ..plugins.interpodaffinity import parse_pod_affinity, pod_matches_all_affinity_terms
from ..plugins.nodeports import ports_conflict
from ..plugins.podtopologyspread import PodTopologySpread
from ..volumes.podvolumes import VolumeSource


class Event(enum.Enum):
    """The ClusterEvents a simulation emits (framework.EventAssignedPodAdd/Delete)."""

    ASSIGNED_POD_ADD = "AssignedPodAdd"
    ASSIGNED_POD_DELETE = "AssignedPodDelete"
    # A bound pod leaves the unscheduled pods' informer: a nominated one gives its room
    # back to the pods its nomination kept out (EventUnscheduledPodDelete).
    UNSCHEDULED_POD_DELETE = "UnscheduledPodDelete"
    # A ResourceClaim added or its status updated (allocated at binding, deallocated by
    # DynamicResources' PostFilter or by the resourceclaim controller).
    RESOURCE_CLAIM_CHANGE = "ResourceClaim/Add|Update"


class Hint(enum.Enum):
    QUEUE = "Queue"
    QUEUE_SKIP = "QueueSkip"


# A hint function gets (the pending pod, the object the event is about: a Pod, or a
# ClaimChange).
HintFn = Callable[[Pod, Any], Hint]


@dataclass(frozen=True)
class ClaimChange:
    before: ResourceClaim | None
    after: ResourceClaim


class QueueingHints:
    """The default profile's EventsToRegister, by plugin and event."""

    def __init__(self, spread: PodTopologySpread, cluster: Cluster | None = None) -> None:
        self.spread = spread
        # Where DynamicResources' hint looks the pod's claims up (the run's claims).
        self.cluster = cluster
        self.registry: dict[str, dict[Event, HintFn]] = {
            # NodeResourcesFit: Pod/Delete (and UpdatePodScaleDown, which never happens here).
            names.NODE_RESOURCES_FIT: {
                Event.ASSIGNED_POD_DELETE: fit_after_pod_deleted,
                Event.UNSCHEDULED_POD_DELETE: fit_after_pod_deleted,
            },
            # NodePorts: Pod/Delete.
            names.NODE_PORTS: {Event.ASSIGNED_POD_DELETE: node_ports_after_pod_deleted},
            # InterPodAffinity: Pod/Add|UpdatePodLabel|Delete.
            names.INTER_POD_AFFINITY: {
                Event.ASSIGNED_POD_ADD: inter_pod_affinity_after_pod_added,
                Event.ASSIGNED_POD_DELETE: inter_pod_affinity_after_pod_deleted,
            },
            # PodTopologySpread: Pod/Add|UpdatePodLabel|Delete.
            names.POD_TOPOLOGY_SPREAD: {
                Event.ASSIGNED_POD_ADD: self.spread_after_pod_change,
                Event.ASSIGNED_POD_DELETE: self.spread_after_pod_change,
            },
            # VolumeRestrictions: Pod/Delete (and PVC/Add, Node/Add: never emitted here).
            names.VOLUME_RESTRICTIONS: {
                Event.ASSIGNED_POD_DELETE: volume_restrictions_after_pod_deleted,
                Event.UNSCHEDULED_POD_DELETE: volume_restrictions_after_pod_deleted,
            },
            # NodeVolumeLimits: Pod/Delete (and CSINode/Add, PVC/Add).
            names.NODE_VOLUME_LIMITS: {
                Event.ASSIGNED_POD_DELETE: node_volume_limits_after_pod_deleted,
                Event.UNSCHEDULED_POD_DELETE: node_volume_limits_after_pod_deleted,
            },
            # DynamicResources: ResourceClaim/Add|Update (nodes, classes and slices never
            # change during a run).
            names.DYNAMIC_RESOURCES: {
                Event.RESOURCE_CLAIM_CHANGE: self.dynamic_resources_after_claim_change
            },
            # VolumeBinding and VolumeZone register storage and node events only: a pod
            # event never helps them.
            # NodeName, NodeUnschedulable, NodeAffinity, TaintToleration register node
            # events (and updates of the pod itself) only: a pod event never helps them.
        }

    def worth_requeuing(
        self, pod: Pod, rejectors: frozenset[str], event: Event, other: Any
    ) -> bool:
        """isPodWorthRequeuing: Queue from any rejecting plugin moves the pod."""
        if not rejectors:
            return True  # no plugin to ask: a failure without one is retried after backoff
        for plugin in sorted(rejectors):
            fn = self.registry.get(plugin, {}).get(event)
            if fn is not None and fn(pod, other) is Hint.QUEUE:
                return True
        return False

    def dynamic_resources_after_claim_change(self, pod: Pod, change: ClaimChange) -> Hint:
        """DynamicResources.isSchedulableAfterClaimChange."""
        if self.cluster is None:
            return Hint.QUEUE
        claims, problem = resolve_claims(self.cluster.dra, pod)
        if problem is not None:
            return Hint.QUEUE_SKIP
        before, after = change.before, change.after
        if before is not None and before.allocation is not None and after.allocation is None:
            return Hint.QUEUE  # devices were freed
        if not any(c.uid == after.uid for c in claims):
            return Hint.QUEUE_SKIP
        if before is None:
            return Hint.QUEUE
        if (before.allocation, before.reserved_for) == (after.allocation, after.reserved_for):
            return Hint.QUEUE_SKIP
        return Hint.QUEUE

    def spread_after_pod_change(self, pod: Pod, other: Pod) -> Hint:
        """PodTopologySpread.isSchedulableAfterPodChange for an added or deleted pod."""
        # involvedInTopologySpreading: an assigned pod of the same namespace.
        if other.uid != pod.uid and (not other.node_name or other.namespace != pod.namespace):
            return Hint.QUEUE_SKIP
        constraints = self.spread.hard_constraints(pod)
        if any(c.selector.matches(other.labels) for c in constraints):
            return Hint.QUEUE
        return Hint.QUEUE_SKIP


def fit_after_pod_deleted(pod: Pod, deleted: Pod) -> Hint:
    """Fit.isSchedulableAfterPodEvent: a deleted scheduled (or nominated) pod frees room."""
    if not deleted.node_name and not deleted.nominated_node_name:
        return Hint.QUEUE_SKIP
    return Hint.QUEUE


def node_ports_after_pod_deleted(pod: Pod, deleted: Pod) -> Hint:
    """NodePorts.isSchedulableAfterPodDeleted: only a deleted pod holding a wanted port."""
    if not deleted.node_name:
        return Hint.QUEUE_SKIP
    used = {hp: 1 for hp in deleted.host_ports}
    return Hint.QUEUE if ports_conflict(used, pod.host_ports) else Hint.QUEUE_SKIP


def inter_pod_affinity_after_pod_added(pod: Pod, added: Pod) -> Hint:
    """InterPodAffinity.isSchedulableAfterPodChange, pod added: it matches all the pod's
    required affinity terms (anti-affinity of existing pods is not consulted)."""
    if not added.node_name:
        return Hint.QUEUE_SKIP
    terms = parse_pod_affinity(pod).required_affinity
    return Hint.QUEUE if pod_matches_all_affinity_terms(terms, added) else Hint.QUEUE_SKIP


def inter_pod_affinity_after_pod_deleted(pod: Pod, deleted: Pod) -> Hint:
    """InterPodAffinity.isSchedulableAfterPodChange, pod deleted: it matches all the pod's
    required anti-affinity terms."""
    if not deleted.node_name:
        return Hint.QUEUE_SKIP
    terms = parse_pod_affinity(pod).required_anti_affinity
    return Hint.QUEUE if pod_matches_all_affinity_terms(terms, deleted) else Hint.QUEUE_SKIP


def volume_restrictions_after_pod_deleted(pod: Pod, deleted: Pod) -> Hint:
    """VolumeRestrictions.isSchedulableAfterPodDeleted: a pod of the namespace whose inline
    disk conflicted, or that used one of the pod's claims (ReadWriteOncePod), is gone."""
    if deleted.namespace != pod.namespace:
        return Hint.QUEUE_SKIP
    for v in pod.volumes:
        if v.disk is not None and any(
            ov.disk is not None and v.disk.conflicts(ov.disk) for ov in deleted.volumes
        ):
            return Hint.QUEUE
    claims = {v.claim for v in pod.volumes if v.source is VolumeSource.CLAIM}
    if any(v.source is VolumeSource.CLAIM and v.claim in claims for v in deleted.volumes):
        return Hint.QUEUE
    return Hint.QUEUE_SKIP


def node_volume_limits_after_pod_deleted(pod: Pod, deleted: Pod) -> Hint:
    """CSILimits.isSchedulableAfterPodDeleted: a scheduled pod with a claim, an ephemeral
    volume or a migratable inline volume is gone (an attach slot may be free)."""
    if not deleted.volumes or not deleted.node_name:
        return Hint.QUEUE_SKIP
    if any(v.claim is not None or v.in_tree is not None for v in deleted.volumes):
        return Hint.QUEUE
    return Hint.QUEUE_SKIP
