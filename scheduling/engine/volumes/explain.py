"""Where a volume decided: the sentences and typed records the explanation shows
("pinned to eu-west-1a by its volume data-kafka-0"; "this node has 25 of 25
attachments of ebs.csi.aws.com in use")."""

from __future__ import annotations

from ..cluster import Cluster, NodeInfo
from ..objects import Pod
from ..plugins.nodevolumelimits import LookupError_, volume_counts
from .objects import PersistentVolume
from .storage import Storage

# The zone keys a volume's node affinity or labels may pin it by (GA, legacy, and the
# CSI drivers' own topology keys).
ZONE_KEYS = (
    "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/zone",
    "topology.ebs.csi.aws.com/zone",
    "topology.gke.io/zone",
    "topology.disk.csi.azure.com/zone",
)
HOSTNAME = "kubernetes.io/hostname"


def volume_place(pv: PersistentVolume) -> tuple[str, list[str]] | None:
    """("zone" | "node", the values) a volume is confined to, None when it is not."""
    if pv.node_affinity is not None:
        zones: list[str] = []
        hosts: list[str] = []
        for term in pv.node_affinity.terms:
            for key, op, values in term.expressions:
                if op != "In":
                    continue
                if key in ZONE_KEYS:
                    zones.extend(values)
                elif key == HOSTNAME:
                    hosts.extend(values)
        if zones:
            return "zone", sorted(set(zones))
        if hosts:
            return "node", sorted(set(hosts))
    for key in ZONE_KEYS[:2]:
        value = pv.labels.get(key)
        if value:
            return "zone", sorted(z for z in value.split("__") if z)
    return None


def pins(storage: Storage, pod: Pod) -> list[tuple[str, str, str, list[str]]]:
    """(claim, volume, "zone"|"node", values) for each bound claim that confines the pod."""
    out = []
    for v in pod.volumes:
        if v.claim is None:
            continue
        claim = storage.claim(pod.namespace, v.claim)
        if claim is None or not claim.bound:
            continue
        pv = storage.volumes.get(claim.volume_name)
        place = volume_place(pv) if pv is not None else None
        if place is not None:
            out.append((claim.name, pv.name if pv else "", place[0], place[1]))
    return out


def pin_sentence(claim: str, kind: str, values: list[str]) -> str:
    where = " or ".join(values)
    return f"pinned to {'node ' if kind == 'node' else ''}{where} by its volume {claim}"


def attach_counts(cluster: Cluster, pod: Pod, node: NodeInfo) -> list[tuple[str, int, int, int]]:
    """(driver, in use, limit, the pod's new ones) per driver the node limits."""
    try:
        counts = volume_counts(cluster.storage, pod, node)
    except LookupError_:
        return []
    return [(c.driver, c.in_use, c.limit, c.new) for c in counts]


def attach_sentence(driver: str, in_use: int, limit: int) -> str:
    return f"this node has {in_use} of {limit} attachments of {driver} in use"
