"""Per-cluster indexes shared by InterPodAffinity and PodTopologySpread.

Both plugins count the pods of one namespace node by node (a spread constraint only
counts pods of the incoming pod's namespace; an affinity term names its namespaces).
A loaded Cluster never changes, so the index is built once per Cluster, on first
use, and dropped with it. Nodes that are copies (nominated pods, preemption dry runs)
are scanned instead, since their pods differ from the loaded ones.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence

from ..cluster import Cluster, NodeInfo
from ..objects import Pod

PodsByNode = dict[str, list[Pod]]

_BY_NAMESPACE: weakref.WeakKeyDictionary[Cluster, dict[str, PodsByNode]] = (
    weakref.WeakKeyDictionary()
)
_EMPTY: PodsByNode = {}


def pods_by_namespace(cluster: Cluster) -> Mapping[str, PodsByNode]:
    """namespace -> node name -> the pods of that namespace bound to that node."""
    index = _BY_NAMESPACE.get(cluster)
    if index is None:
        index = {}
        for ni in cluster.node_infos:
            for p in ni.pods:
                index.setdefault(p.namespace, {}).setdefault(ni.name, []).append(p)
        _BY_NAMESPACE[cluster] = index
    return index


def is_loaded(cluster: Cluster, node_info: NodeInfo) -> bool:
    """Whether node_info is the cluster's own NodeInfo (not a modified copy)."""
    return cluster.node_info_by_name.get(node_info.name) is node_info


def node_pods_in_namespace(cluster: Cluster, node_info: NodeInfo, namespace: str) -> Sequence[Pod]:
    """The pods of ``namespace`` on the node, from the index when the node is the loaded one."""
    if is_loaded(cluster, node_info):
        return pods_by_namespace(cluster).get(namespace, _EMPTY).get(node_info.name, ())
    return [p for p in node_info.pods if p.namespace == namespace]


def note_bound(cluster: Cluster, pod: Pod, node_name: str) -> None:
    """Keep a built index true when a simulation binds a pod to one of its nodes."""
    index = _BY_NAMESPACE.get(cluster)
    if index is not None:
        index.setdefault(pod.namespace, {}).setdefault(node_name, []).append(pod)


def note_removed(cluster: Cluster, pod: Pod, node_name: str) -> None:
    """Keep a built index true when a simulation deletes a pod from one of its nodes."""
    index = _BY_NAMESPACE.get(cluster)
    if index is None:
        return
    pods = index.get(pod.namespace, {}).get(node_name)
    if pods is not None:
        pods[:] = [p for p in pods if p is not pod]
