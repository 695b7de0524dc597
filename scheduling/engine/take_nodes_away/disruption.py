"""The budgets as the eviction API reads them while nodes are taken away, kept up to
date as the disruption controller keeps them (pkg/controller/disruption).

A budget starts at the snapshot's status.disruptionsAllowed; each eviction takes one
(checkAndDecrement). Once a pod it selects changes (evicted, gone, a replacement
running), the controller's next sync recomputes it: currentHealthy (the selected pods
running and not terminating) minus desiredHealthy (minAvailable, or the expected count
less maxUnavailable, percentages of the expected count rounded up; the expected count
is the workload's scale, which a steady snapshot's running pods are). So a budget at 0
allows a disruption again once a replacement runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..budgets import desired_healthy
from ..cluster import Cluster
from ..objects import Pod
from ..simulate.simulation import Action, ActionKind
from .drain import BUDGET_VIOLATED, TOO_MANY_BUDGETS, Refusal, can_ignore_budget


def _healthy(pod: Pod) -> bool:
    return pod.phase == "Running" and not pod.terminating


class Budgets:
    def __init__(self, base: Cluster) -> None:
        self.base = base
        self.pdbs = base.pdbs
        # Per budget (index) once first read: running selected pods, desiredHealthy.
        self.healthy: dict[int, int] = {}
        self.desired: dict[int, int] = {}
        # Budgets still at their snapshot status (no selected pod changed yet): allowed.
        self.status: dict[int, int] = {}
        self.seen_actions = 0

    def name(self, i: int) -> str:
        return f"{self.pdbs[i].namespace}/{self.pdbs[i].name}"

    def selecting(self, pod: Pod) -> list[int]:
        """The budgets the eviction API finds for the pod (an empty selector: none)."""
        return [i for i in self.base.pdbs_for_pod(pod) if self.pdbs[i].matches(pod)]

    def preload(self, pods: Sequence[Pod]) -> None:
        """Read now, before anything changes, the budgets of every pod that may be
        evicted (a budget first read later is counted from the snapshot)."""
        for pod in pods:
            for i in self.selecting(pod):
                self._load(i)

    def _load(self, i: int) -> None:
        if i in self.healthy:
            return
        pdb = self.pdbs[i]
        pods = self.base.bound_pods_by_namespace().get(pdb.namespace, ())
        healthy = sum(1 for _, p in pods if _healthy(p) and pdb.matches(p))
        self.healthy[i] = healthy
        self.desired[i] = desired_healthy(pdb, healthy)
        self.status[i] = pdb.disruptions_allowed

    def allowed(self, i: int) -> int:
        self._load(i)
        if i in self.status:
            return self.status[i]
        return max(0, self.healthy[i] - self.desired[i])

    def observe(self, actions: Sequence[Action]) -> bool:
        """Read the run's changes since last time; True when a budget read so far moved."""
        moved = False
        for a in actions[self.seen_actions :]:
            if a.kind is ActionKind.BIND:
                delta = 1
            elif a.kind is ActionKind.TERMINATE or (
                # gone without a deletion issued first (grace period 0)
                a.kind is ActionKind.DELETE and not a.pod.terminating
            ):
                delta = -1
            else:
                continue
            for i in self.selecting(a.pod):
                if i in self.healthy:
                    self.healthy[i] += delta
                    self.status.pop(i, None)
                    moved = True
        self.seen_actions = len(actions)
        return moved

    def check(self, pod: Pod) -> tuple[Refusal | None, int | None]:
        """The eviction API's answer for ``pod``: (None, budget taken or None) when it
        evicts, else the refusal."""
        if can_ignore_budget(pod):
            return None, None
        found = self.selecting(pod)
        if len(found) > 1:
            return Refusal(tuple(self.name(i) for i in found), TOO_MANY_BUDGETS, True), None
        if not found:
            return None, None
        i = found[0]
        if self.allowed(i) <= 0:
            return Refusal((self.name(i),), BUDGET_VIOLATED, False), None
        if i in self.status:
            self.status[i] -= 1
        return None, i
