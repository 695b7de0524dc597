"""Rules where storage and priority meet."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from ...cluster import NodeInfo
from ...objects import PODS, Pod
from ...volumes.explain import pins
from ...volumes.objects import READ_WRITE_ONCE_POD
from ...volumes.podvolumes import VolumeSource
from ...words import NAMES_IN_A_SENTENCE, join_names, plural
from ..context import AuditContext
from ..finding import Draft

ZONE_LABEL = "topology.kubernetes.io/zone"
BETA_ZONE_LABEL = "failure-domain.beta.kubernetes.io/zone"


def rwop_held_by_lower_priority(ctx: AuditContext) -> Iterator[Draft]:
    """A pending pod whose ReadWriteOncePod claim a running pod of lower priority holds:
    only that pod's node can ever take it, and only by preempting the holder."""
    index = ctx.index
    storage = index.cluster.storage
    holders: dict[str, Pod] = {}
    for pod in index.live:
        if pod.node_name:
            for v in pod.volumes:
                if v.source is VolumeSource.CLAIM and v.claim is not None:
                    holders.setdefault(f"{pod.namespace}/{v.claim}", pod)
    for pod in index.live:
        if pod.node_name:
            continue
        for v in pod.volumes:
            if v.source is not VolumeSource.CLAIM or v.claim is None:
                continue
            claim = storage.claim(pod.namespace, v.claim)
            holder = holders.get(f"{pod.namespace}/{v.claim}")
            if (
                claim is None
                or READ_WRITE_ONCE_POD not in claim.access_modes
                or holder is None
                or holder.priority >= pod.priority
            ):
                continue
            yield Draft(
                f"Pending pod {pod.key} (priority {pod.priority}) needs ReadWriteOncePod claim "
                f"{claim.key}, held by {holder.key} (priority {holder.priority}) on node "
                f"{holder.node_name}: it can only run there, by preempting the holder",
                (f"Pod {pod.key}", f"Pod {holder.key}", f"PersistentVolumeClaim {claim.key}"),
                f"# Stop the holder first, or give the claim to one pod only:\n"
                f"kubectl -n {holder.namespace} delete pod {holder.name}\n",
            )


def _room_by_preemption(node: NodeInfo, pod: Pod) -> bool:
    """Whether the node could take ``pod`` once every lower-priority pod is evicted
    (resources and pod count only: the plan's rough cut, not a dry run)."""
    if node.node.unschedulable:
        return False
    alloc = node.node.allocatable
    kept = [p for p in node.pods if p.priority >= pod.priority]
    if len(kept) + 1 > alloc.get(PODS, 0):
        return False
    for resource, want in pod.requests.items():
        used = sum(p.requests.get(resource, 0) for p in kept)
        if want > alloc.get(resource, 0) - used:
            return False
    return True


def stateful_zone_without_room(ctx: AuditContext) -> Iterator[Draft]:
    """A high-priority StatefulSet replica whose volume pins it to a zone where no other
    node could take it, even by preempting: if its node goes, it stays pending."""
    index = ctx.index
    cluster = index.cluster
    storage = cluster.storage
    by_zone: dict[str, list[NodeInfo]] = defaultdict(list)
    for ni in cluster.node_infos:
        zone = ni.node.labels.get(ZONE_LABEL) or ni.node.labels.get(BETA_ZONE_LABEL)
        if zone:
            by_zone[zone].append(ni)
    stuck: dict[str, list[tuple[Pod, str, str]]] = defaultdict(list)
    for pod in index.live:
        if not pod.node_name or not pod.owner or not pod.owner.startswith("StatefulSet/"):
            continue
        if not ctx.is_high(pod):
            continue
        for claim, _pv, kind, zones in pins(storage, pod):
            if kind != "zone":
                continue
            others = [ni for z in zones for ni in by_zone.get(z, ()) if ni.name != pod.node_name]
            if not any(_room_by_preemption(ni, pod) for ni in others):
                owner = f"StatefulSet {pod.namespace}/{pod.owner.split('/', 1)[1]}"
                stuck[owner].append((pod, claim, " or ".join(zones)))
    for owner in sorted(stuck):
        cases = stuck[owner]
        names = [f"{p.name} ({claim} in {zone})" for p, claim, zone in cases]
        yield Draft(
            f"{owner}: {plural(len(cases), 'replica')} "
            f"{join_names(names, limit=NAMES_IN_A_SENTENCE)} "
            "cannot come back if their node goes: no other node of their volume's zone has "
            "room for them, even by preempting every lower-priority pod",
            (owner,),
            "# Keep a node's worth of room for this tier in each zone its volumes use, or\n"
            "# add a node there:\n"
            f"# kubectl get nodes -l {ZONE_LABEL}={cases[0][2].split(' or ')[0]}\n",
        )
