"""The controllers that make a preempted pod again (recreate_victims).

A ReplicaSet, Job or DaemonSet creates a new pod from its template, named by
generateName (the owner's name, a dash, five random characters: here derived from
the victim, so a run is repeatable); a StatefulSet recreates the pod under the same
name; a DaemonSet pins it to the node it ran on (required node affinity on
metadata.name, as the DaemonSet controller writes it). The template is the victim's
spec: what a controller would stamp out again, scheduling-wise.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from dataclasses import dataclass

from ..labels import NodeSelector
from ..objects import NO_START_TIME, Pod
from .result import Recreated
from .state import ClusterState

# utilrand.String's alphabet: no vowels, no 0/1/3 (names never spell words).
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
SUFFIX_LENGTH = 5
RECREATING_KINDS = ("ReplicaSet", "Job", "StatefulSet", "DaemonSet")
# On a pending pod: "namespace/name" of the pod its controller waits for before creating
# this one (a StatefulSet's OrderedReady: pod N+1 once pod N runs and is ready).
CREATED_AFTER = "preemptlab.io/created-after"


def name_suffix(seed: str) -> str:
    """Five characters of the alphabet generateName uses, derived from ``seed``."""
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in digest[:SUFFIX_LENGTH])


def pin_to_node(pod: Pod, node: str) -> None:
    """The DaemonSet controller's node affinity: matchFields metadata.name In [node]."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
    required = {"nodeSelectorTerms": [term]}
    affinity = dict(pod.affinity or {})
    node_affinity = dict(affinity.get("nodeAffinity") or {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = required
    affinity["nodeAffinity"] = node_affinity
    pod.affinity = affinity
    pod.required_node_affinity = NodeSelector.parse(required, "spec.affinity.nodeAffinity")


@dataclass
class Remade:
    pod: Pod
    record: Recreated


class ControllerManager:
    def __init__(self, state: ClusterState) -> None:
        self.state = state
        self.made = 0

    def recreate(self, victim: Pod) -> Remade | None:
        if not victim.owner:
            return None
        kind, _, owner_name = victim.owner.partition("/")
        if kind not in RECREATING_KINDS:
            return None
        self.made += 1
        pod = copy.copy(victim)
        if kind == "StatefulSet":
            name = victim.name
        else:
            name = f"{owner_name}-{name_suffix(f'{victim.key}#{self.made}')}"
        pod.name = name
        pod.key = f"{victim.namespace}/{name}"
        pod.uid = f"recreated-{self.made}-{victim.uid}"
        pod.node_name = None
        pod.nominated_node_name = None
        pod.phase = "Pending"
        pod.start_time = None
        pod.start_ns = NO_START_TIME
        pod.deletion_timestamp = None
        pod.terminating = False
        pod.terminating_by_preemption = False
        pod.labels = dict(victim.labels)
        # Claims made from a template belonged to the victim: the new pod gets its own
        # (Scheduler.generate_claims); claims it names stay shared.
        pod.resource_claims = tuple(
            dataclasses.replace(r, generated=None) if r.template_name else r
            for r in victim.resource_claims
        )
        # A new pod goes through admission again: a class the what-if gives another value
        # gives it that value (the victim kept the one it was created with).
        changed = {c.name: c for c in self.state.hypothetical_classes}
        new_class = changed.get(victim.priority_class_name or "")
        if new_class is not None:
            pod.priority = new_class.value
            pod.preemption_policy = new_class.preemption_policy
        if kind == "DaemonSet" and victim.node_name:
            pin_to_node(pod, victim.node_name)
        return Remade(pod, Recreated(victim.key, pod.key, victim.owner))
