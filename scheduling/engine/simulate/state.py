"""The cluster as the scheduler's cache sees it while a simulation runs.

A loaded ``Cluster`` never changes; ``ClusterState`` is a ``Cluster`` of its own that
starts as the same objects and changes node by node (copy-on-write): binding a pod,
deleting a victim, nominating a pending pod. The plugins read it through the same
``Handle`` as in a single what-if, so every filter and score is the engine's own.
"""

from __future__ import annotations

from collections import defaultdict

from ..cluster import Cluster, NodeInfo
from ..objects import Pod
from ..plugins import podindex


class ClusterState(Cluster):
    """A Cluster whose NodeInfos may be replaced by changed copies."""

    def __init__(self, base: Cluster) -> None:
        # Share everything that does not change during a run; copy the containers that do.
        self.__dict__.update(base.__dict__)
        self.base = base
        self.node_infos = list(base.node_infos)
        self.node_info_by_name = dict(base.node_info_by_name)
        self.nominated = defaultdict(list, {n: list(p) for n, p in base.nominated.items() if p})
        self.index_of = {ni.name: i for i, ni in enumerate(self.node_infos)}
        self._owned: set[str] = set()
        # uid -> node of every pending pod this run nominated (the nominator's own map).
        self.nomination_of: dict[str, str] = {
            p.uid: n for n, pods in self.nominated.items() for p in pods
        }
        # Every node whose pods, or the pods nominated to it, changed, in order: an
        # answer computed for a node holds until the node shows up here again.
        self.changes: list[str] = []

    # Nodes -------------------------------------------------------------------
    def _writable(self, node_name: str) -> NodeInfo:
        ni = self.node_info_by_name[node_name]
        if node_name not in self._owned:
            ni = ni.clone()
            self.node_infos[self.index_of[node_name]] = ni
            self.node_info_by_name[node_name] = ni
            self._owned.add(node_name)
        return ni

    def _touch(self, node_name: str) -> None:
        self.changes.append(node_name)

    def copied_nodes(self) -> list[str]:
        """The nodes whose NodeInfo is this run's copy; every other node's is the base's
        own, unchanged."""
        return sorted(self._owned)

    def bind(self, pod: Pod, node_name: str) -> None:
        """``pod`` (a bound copy: spec.nodeName set) runs on the node from now on."""
        assert pod.node_name == node_name
        self._writable(node_name).add_pod(pod)
        podindex.note_bound(self, pod, node_name)
        self._touch(node_name)

    def replace(self, pod: Pod) -> None:
        """The running pod of the same uid is updated to ``pod`` (its deletion issued):
        the cache's updatePod removes the old one (the node's last pod takes its place)
        and appends the new one, so the node's pod order changes as the real one does."""
        node_name = pod.node_name
        assert node_name is not None
        ni = self._writable(node_name)
        old = next(p for p in ni.pods if p.uid == pod.uid)
        ni.remove_pod(old)
        podindex.note_removed(self, old, node_name)
        ni.add_pod(pod)
        podindex.note_bound(self, pod, node_name)
        self._touch(node_name)

    def delete(self, pod: Pod) -> None:
        """A pod is gone: a victim whose grace period ended (at once when it is 0)."""
        node_name = pod.node_name
        assert node_name is not None
        self._writable(node_name).remove_pod(pod)
        podindex.note_removed(self, pod, node_name)
        self._touch(node_name)

    # The nominator -------------------------------------------------------------
    def nominate(self, pod: Pod, node_name: str | None) -> None:
        """status.nominatedNodeName set (or cleared with None) and the nominator updated."""
        old = self.nomination_of.pop(pod.uid, None)
        if old:
            lst = self.nominated.get(old)
            if lst is not None:
                lst[:] = [p for p in lst if p is not pod]
            self._touch(old)
        if node_name:
            self.nomination_of[pod.uid] = node_name
            self.nominated[node_name].append(pod)
            self._touch(node_name)

    def nominated_pods(self, node_name: str) -> list[Pod]:
        return list(self.nominated.get(node_name, ()))
