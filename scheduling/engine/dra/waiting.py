"""A pod that waits for devices, in words a GPU team reads, with who holds them.

kube-scheduler v1.35 never preempts for DRA devices (every DynamicResources rejection
is UnschedulableAndUnresolvable and the devices in use are fixed at PreFilter): when a
pod's claims cannot be allocated on any node, the pods holding the matching devices
keep them, whatever their priority. ``device_wait`` names those pods per device class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from .objects import DraObjects, ExactRequest

if TYPE_CHECKING:
    from ..cluster import Cluster
    from ..objects import Pod


class DeviceHolder(msgspec.Struct, kw_only=True):
    """A running pod whose claim holds devices the waiting pod could use."""

    pod: str
    priority: int
    node: str
    claim: str
    devices: int
    owner: str | None = None
    lower_priority: bool = True


class ClassWait(msgspec.Struct, kw_only=True):
    device_class: str
    wanted: int  # devices the pod asks for of this class (its first choice)
    held: int  # devices of the class held by other pods
    free: int  # devices of the class nobody holds
    holders: list[DeviceHolder] = msgspec.field(default_factory=list)

    @property
    def lower_holders(self) -> list[DeviceHolder]:
        return [h for h in self.holders if h.lower_priority]


class DeviceWait(msgspec.Struct, kw_only=True):
    sentence: str
    classes: list[ClassWait] = msgspec.field(default_factory=list)


def noun(device_class: str, n: int) -> str:
    """GPUs for a class that says it is one, devices otherwise."""
    word = "GPU" if "gpu" in device_class.lower() or _gpu_like(device_class) else "device"
    return f"{n} {word}" + ("" if n == 1 else "s")


def _gpu_like(name: str) -> bool:
    lowered = name.lower()
    return any(m in lowered for m in ("nvidia", "a100", "h100", "h200", "l4", "mi300", "b200"))


def _first_choices(dra: DraObjects, pod: Pod) -> list[ExactRequest]:
    from ..plugins.dynamicresources import resolve_claims

    claims, _ = resolve_claims(dra, pod)
    out: list[ExactRequest] = []
    for claim in claims:
        if claim.allocation is not None:
            continue
        for req in claim.spec.requests:
            if req.alternatives:
                out.append(req.alternatives[0])
    return out


def device_wait(cluster: Cluster, pod: Pod) -> DeviceWait | None:
    """Who holds the devices of the classes the pod asks for (None: the pod claims no
    devices to allocate)."""
    from .cel import CelError, selector_matches

    dra = cluster.dra
    if not dra or not pod.resource_claims:
        return None
    wanted: dict[str, int] = {}
    for req in _first_choices(dra, pod):
        wanted[req.device_class] = wanted.get(req.device_class, 0) + req.count
    if not wanted:
        return None
    held = dra.allocated_devices()
    pods = {p.uid: p for ni in cluster.node_infos for p in ni.pods}
    classes: list[ClassWait] = []
    for name, count in sorted(wanted.items()):
        cls = dra.classes.get(name)
        if cls is None:
            continue
        holders: dict[tuple[str, str], DeviceHolder] = {}
        n_held = n_free = 0
        for device in dra.devices:
            try:
                if not all(selector_matches(e, device) for e in cls.selectors):
                    continue
            except CelError:
                continue
            claim = held.get(device.id)
            if claim is None:
                n_free += 1
                continue
            n_held += 1
            for consumer in claim.reserved_for:
                holder = pods.get(consumer.uid)
                if holder is None:
                    continue
                key = (holder.key, claim.key)
                h = holders.get(key)
                if h is None:
                    h = holders[key] = DeviceHolder(
                        pod=holder.key,
                        priority=holder.priority,
                        node=holder.node_name or "",
                        claim=claim.key,
                        devices=0,
                        owner=holder.owner,
                        lower_priority=holder.priority < pod.priority,
                    )
                h.devices += 1
        classes.append(
            ClassWait(
                device_class=name,
                wanted=count,
                held=n_held,
                free=n_free,
                holders=sorted(holders.values(), key=lambda h: (h.priority, h.pod)),
            )
        )
    if not classes:
        return None
    return DeviceWait(sentence=wait_sentence(classes), classes=classes)


def wait_sentence(classes: list[ClassWait]) -> str:
    parts: list[str] = []
    for c in classes:
        lower = {h.pod for h in c.lower_holders}
        if not lower:
            continue
        pods = f"{len(lower)} pod{'' if len(lower) == 1 else 's'} of lower priority"
        if c.held >= c.wanted:
            verb = "is" if c.wanted == 1 else "are"
            parts.append(
                f"{noun(c.device_class, c.wanted)} of class {c.device_class} {verb} held by {pods}"
            )
        else:
            # Fewer are held than the pod asks: saying "8 are held" would overstate it.
            # Every device of one claim comes from one node, so free devices spread over
            # nodes may still leave the pod waiting.
            verb = "is" if c.held == 1 else "are"
            parts.append(
                f"{noun(c.device_class, c.held)} of class {c.device_class} {verb} held by "
                f"{pods} (the pod asks for {c.wanted} on one node; {c.free} are free in "
                "the cluster)"
            )
    if not parts:
        return ""
    return (
        "; ".join(parts)
        + "; kube-scheduler v1.35 does not preempt for DRA devices: these pods keep them"
    )
