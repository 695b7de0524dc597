"""The cluster as the scheduler's cache sees it while a simulation runs.

A loaded ``Cluster`` never changes; ``ClusterState`` is a ``Cluster`` of its own that
starts as the same objects and changes node by node (copy-on-write): binding a pod,
deleting a victim, nominating a pending pod. The plugins read it through the same
``Handle`` as in a single what-if, so every filter and score is the engine's own.
"""

from __future__ import annotations

from collections import defaultdict

from ..cluster import Cluster, NodeInfo
from ..dra.allocator import ClaimAllocation
from ..dra.objects import Allocation, ResourceClaim, node_name_selector
from ..objects import Node, Pod
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
        # The ResourceClaims as the API server holds them during the run (claims are
        # replaced, never changed: the base cluster's stay as loaded).
        if base.dra:
            self.dra = base.dra.with_claims(dict(base.dra.claims))

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

    def update_node(self, node: Node) -> None:
        """The Node object changed (cordoned, tainted): the node's info holds the new one.
        Only ever less room for pending pods, so no queued pod moves on it."""
        self._writable(node.name).node = node
        self._touch(node.name)

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

    # ResourceClaims --------------------------------------------------------------
    def reserve_claims(
        self, pod: Pod, node_name: str, claims: list[ResourceClaim], made: list[ClaimAllocation]
    ) -> list[ResourceClaim]:
        """Reserve + PreBind: the claims the scheduler allocated for the pod on the node
        get their allocation, and every claim of the pod lists it in reservedFor.
        Returns the claims as written."""
        allocations = {a.claim.key: a for a in made}
        selector = node_name_selector(node_name)
        written: list[ResourceClaim] = []
        for claim in claims:
            current = self.dra.claims.get(claim.key, claim)
            a = allocations.get(claim.key)
            allocation = (
                Allocation(a.results, selector, node_name) if a is not None else current.allocation
            )
            assert allocation is not None
            new = current.with_allocation(allocation, pod.name, pod.uid)
            self.dra.claims[claim.key] = new
            written.append(new)
        return written

    def deallocate(self, claim: ResourceClaim) -> ResourceClaim:
        """DynamicResources' PostFilter: allocation and reservations cleared."""
        new = self.dra.claims.get(claim.key, claim).without_allocation()
        self.dra.claims[claim.key] = new
        return new

    def release_claims(self, pod: Pod) -> list[tuple[ResourceClaim, ResourceClaim]]:
        """The resourceclaim controller once a pod is gone: the pod leaves reservedFor of
        its claims; a claim reserved for nobody is deallocated, then deleted when it was
        made for that pod. Returns each claim's status update (before, after)."""
        if not self.dra:
            return []
        changed: list[tuple[ResourceClaim, ResourceClaim]] = []
        for key, claim in list(self.dra.claims.items()):
            if not claim.reserved_for_pod(pod.uid):
                continue
            new = claim.without_consumer(pod.uid)
            if not new.reserved_for:
                new = new.without_allocation()
            changed.append((claim, new))
            if not new.reserved_for and claim.owner is not None and claim.owner[2] == pod.uid:
                del self.dra.claims[key]
            else:
                self.dra.claims[key] = new
        return changed

    def add_claim(self, claim: ResourceClaim) -> None:
        self.dra.claims[claim.key] = claim
