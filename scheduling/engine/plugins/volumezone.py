"""VolumeZone: a bound volume's zone and region labels must match the node's
(pkg/scheduler/framework/plugins/volumezone).

The labels may be GA (topology.kubernetes.io/...) or legacy
(failure-domain.beta.kubernetes.io/...); a legacy label on the volume also matches
the node's GA label, and a value ``a__b`` means any of those zones. Nodes without any
zone or region label (a single-zone cluster) pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..cluster import NodeInfo
from ..framework import SUCCESS, Code, CycleState, Handle, PreFilterResult, Status
from ..objects import Pod
from ..volumes.podvolumes import VolumeSource
from . import names

ERR_REASON_CONFLICT = "node(s) had no available volume zone"
STATE_KEY = "PreFilter" + names.VOLUME_ZONE

LABEL_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_REGION = "topology.kubernetes.io/region"
# topologyLabels, in the order the plugin reads them.
TOPOLOGY_LABELS = (LABEL_BETA_ZONE, LABEL_BETA_REGION, LABEL_ZONE, LABEL_REGION)
_GA_OF = {LABEL_BETA_ZONE: LABEL_ZONE, LABEL_BETA_REGION: LABEL_REGION}


class PVTopology(NamedTuple):
    pv_name: str
    key: str
    values: frozenset[str]


def label_zones(value: str) -> frozenset[str] | None:
    """LabelZonesToSet: "a__b" is {a, b}; an empty zone makes the label unreadable."""
    zones = [z.strip() for z in value.split("__")]
    if any(not z for z in zones):
        return None
    return frozenset(zones)


class ZoneState:
    __slots__ = ("topologies",)

    def __init__(self, topologies: list[PVTopology]) -> None:
        self.topologies = topologies


def node_zone_mismatch(
    topologies: Sequence[PVTopology], labels: dict[str, str]
) -> PVTopology | None:
    """The first volume topology the node's labels do not satisfy (None: all do, or the
    node carries no zone or region label at all)."""
    if not any(k in labels for k in TOPOLOGY_LABELS):
        return None
    for t in topologies:
        v = labels.get(t.key)
        if v is None:
            v = labels.get(_GA_OF.get(t.key, t.key))
        if v is None or v not in t.values:
            return t
    return None


class VolumeZone:
    name = names.VOLUME_ZONE

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def pv_topologies(self, pod: Pod) -> tuple[list[PVTopology], Status | None]:
        """getPVbyPod: the zone labels of every bound volume of the pod's claims."""
        storage = self.handle.cluster.storage
        out: list[PVTopology] = []
        for v in pod.volumes:
            if v.source is not VolumeSource.CLAIM or v.claim is None:
                continue
            claim = storage.claim(pod.namespace, v.claim)
            if claim is None:
                return [], Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                    f'persistentvolumeclaim "{v.claim}" not found',
                )
            if not claim.volume_name:
                if not claim.storage_class:
                    return [], Status(
                        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                        "PersistentVolumeClaim had no pv name and storageClass name",
                    )
                sc = storage.classes.get(claim.storage_class)
                if sc is None:
                    return [], Status(
                        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                        f'storageclass.storage.k8s.io "{claim.storage_class}" not found',
                    )
                if sc.wait_for_first_consumer:
                    continue  # not bound yet: VolumeBinding places it
                return [], Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolume had no name"
                )
            pv = storage.volumes.get(claim.volume_name)
            if pv is None:
                return [], Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                    f'persistentvolume "{claim.volume_name}" not found',
                )
            for key in TOPOLOGY_LABELS:
                value = pv.labels.get(key)
                if value is None:
                    continue
                zones = label_zones(value)
                if zones is not None:
                    out.append(PVTopology(pv.name, key, zones))
        return out, None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not self.handle.cluster.storage.collected:
            return None, Status(Code.SKIP)  # a snapshot taken without the storage kinds
        topologies, problem = self.pv_topologies(pod)
        if problem is not None:
            return None, problem
        if not topologies:
            return None, Status(Code.SKIP)
        state.write(STATE_KEY, ZoneState(topologies))
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s: ZoneState = state.read(STATE_KEY)
        if node_zone_mismatch(s.topologies, node_info.node.labels) is not None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        return SUCCESS
