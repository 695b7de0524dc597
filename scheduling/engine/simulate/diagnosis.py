"""A template's Diagnosis kept up to date node by node, for its replicas' failed cycles.

Every replica that fits nowhere reports the same three things of every node's status:
Diagnosis.NodeToStatus, the FitError histogram (the FailedScheduling message) and
Diagnosis.UnschedulablePlugins (which events may make the pod schedulable). On a
5,000-node cluster, walking every status for each of them was most of a cycle, while
only the few nodes changed since the last cycle have a new status. So the counts
behind the histogram and the plugins move as each status is replaced, and the map
is rebuilt only when its order would no longer be the nodes' order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import TypeVar

from ..framework import Status

K = TypeVar("K", bound=Hashable)


class LiveDiagnosis:
    """Every node's filter status (None: feasible), in ClusterState.node_infos order."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.statuses: list[Status | None] = [None] * len(self.names)
        self.feasible = len(self.names)
        # How many nodes give each list of reasons, and reject the pod with each plugin.
        self.reason_lists: Counter[tuple[str, ...]] = Counter()
        self.rejectors: Counter[str] = Counter()
        self._map: dict[str, Status] = {}
        # The highest index in _map: a node appended below it breaks the nodes' order.
        self._top = -1
        self._in_order = True

    def set(self, i: int, status: Status | None) -> None:
        old = self.statuses[i]
        if old is None and status is None:
            return
        self.statuses[i] = status
        name = self.names[i]
        if old is None:
            self.feasible -= 1
        else:
            _move(self.reason_lists, tuple(old.reasons), -1)
            if old.plugin and old.is_rejected():
                _move(self.rejectors, old.plugin, -1)
        if status is None:
            self.feasible += 1
            del self._map[name]
            return
        _move(self.reason_lists, tuple(status.reasons), 1)
        if status.plugin and status.is_rejected():
            _move(self.rejectors, status.plugin, 1)
        if old is None and i < self._top:
            self._in_order = False
        self._top = max(self._top, i)
        self._map[name] = status

    def node_to_status(self) -> dict[str, Status]:
        """A copy of the map, in node order as the filter loop fills it."""
        if not self._in_order:
            self._map, self._top = {}, -1
            for i, s in enumerate(self.statuses):
                if s is not None:
                    self._map[self.names[i]] = s
                    self._top = i
            self._in_order = True
        return dict(self._map)

    def unschedulable_plugins(self) -> frozenset[str]:
        """Diagnosis.UnschedulablePlugins: every plugin that rejected the pod on some node."""
        return frozenset(self.rejectors)


def _move(counts: Counter[K], key: K, by: int) -> None:
    # A count that reaches 0 goes: the histogram must not show "0 <reason>".
    n = counts[key] + by
    if n:
        counts[key] = n
    else:
        del counts[key]
