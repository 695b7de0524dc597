"""Rules where storage and priority meet."""

from __future__ import annotations

from collections.abc import Iterator

from ...objects import Pod
from ...volumes.objects import READ_WRITE_ONCE_POD
from ...volumes.podvolumes import VolumeSource
from ..context import AuditContext
from ..finding import Draft


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
