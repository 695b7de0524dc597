"""The controllers bring the pods taken away back, as new pending pods in the run's
scheduling queue.

- A ReplicaSet (a Deployment's) or a Job counts a terminating pod as gone
  (FilterActivePods; a Job's podReplacementPolicy TerminatingOrFailed): the new pod,
  named by generateName (controllers.name_suffix), is created at the eviction itself,
  while the old one is still terminating.
- A StatefulSet makes the pod again under the same name, which it can only do once
  the old pod is gone from the API server; with OrderedReady (the default) it makes
  its missing pods in ordinal order, one at a time: a pod only while every lower
  ordinal runs (a lower one missing, pending or terminating: it waits).
- A bare pod is not made again; a DaemonSet's pod is never taken (it stays).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..objects import Pod
from ..simulate.scheduler import Scheduler
from ..simulate.simulation import Action, ActionKind
from .drain import owner_kind

_ORDINAL = re.compile(r"-(\d+)$")


def ordinal(pod: Pod) -> int:
    m = _ORDINAL.search(pod.name)
    return int(m.group(1)) if m else -1


@dataclass
class Return:
    """One pod made again for one taken away."""

    pod: str
    replaces: str
    owner: str
    created_at: int | None = None  # ms; None: its controller has not made it yet


@dataclass
class _StatefulWait:
    victim: Pod
    gone_at: int
    record: Return


@dataclass
class Returning:
    scheduler: Scheduler
    returns: list[Return] = field(default_factory=list)
    # StatefulSet pods whose controller has yet to make them again, by owner.
    stateful: dict[str, list[_StatefulWait]] = field(default_factory=dict)
    # Per StatefulSet, the ordinals taken and not running again yet; and which set and
    # ordinal each such pod is.
    missing: dict[str, set[int]] = field(default_factory=dict)
    which: dict[str, tuple[str, int]] = field(default_factory=dict)
    seen_actions: int = 0

    def taken(self, victim: Pod, at: int, gone_at: int) -> Return | None:
        """``victim`` was deleted at ``at`` (gone at ``gone_at``): its controller's move."""
        kind = owner_kind(victim)
        if kind in ("ReplicaSet", "Job"):
            return self._make(victim, at)
        if kind == "StatefulSet":
            owner = f"{victim.namespace}/{victim.owner}"
            record = Return(victim.key, victim.key, victim.owner or "")
            self.returns.append(record)
            self.stateful.setdefault(owner, []).append(_StatefulWait(victim, gone_at, record))
            self.missing.setdefault(owner, set()).add(ordinal(victim))
            self.which[victim.key] = (owner, ordinal(victim))
            return record
        return None

    def _make(self, victim: Pod, at: int, record: Return | None = None) -> Return | None:
        controllers = self.scheduler.controllers
        assert controllers is not None
        made = controllers.recreate(victim)
        if made is None:
            return None
        if made.pod.resource_claims:
            self.scheduler.generate_claims(made.pod)
        self.scheduler._enqueue(made.pod, recreated_from=victim.key)
        if record is None:
            record = Return(made.pod.key, victim.key, victim.owner or "")
            self.returns.append(record)
        record.created_at = at
        return record

    def _ready(self, owner: str) -> _StatefulWait | None:
        """The lowest ordinal to make again, when every lower ordinal of its set runs."""
        waits = self.stateful.get(owner)
        if not waits:
            return None
        first = min(waits, key=lambda w: ordinal(w.victim))
        n = ordinal(first.victim)
        if any(m < n for m in self.missing.get(owner, ())):
            return None
        return first

    def next_at(self) -> int | None:
        """When a StatefulSet controller next makes a pod (None: each waits for a lower
        ordinal to run, or has nothing to make)."""
        best: int | None = None
        for owner in self.stateful:
            first = self._ready(owner)
            if first is not None and (best is None or first.gone_at < best):
                best = first.gone_at
        return best

    def make_due(self, now: int) -> None:
        for owner in list(self.stateful):
            first = self._ready(owner)
            if first is None or first.gone_at > now:
                continue
            waits = self.stateful[owner]
            waits.remove(first)
            if not waits:
                del self.stateful[owner]
            self._make(first.victim, now, first.record)

    def observe(self, actions: Sequence[Action]) -> None:
        """A StatefulSet pod made again runs: the next ordinal may be made."""
        for a in actions[self.seen_actions :]:
            if a.kind is ActionKind.BIND and a.pod.key in self.which:
                owner, n = self.which.pop(a.pod.key)
                self.missing[owner].discard(n)
        self.seen_actions = len(actions)
