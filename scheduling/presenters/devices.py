"""A pod that waits for DRA devices, and a workload run's devices per node, in the words
the result pages show.

Pure functions of the engine's typed records: the explanation's ``DeviceWait`` (who
holds the devices of each class the pod asks for, engine/dra/waiting.py) and the
device counts a workload run keeps per node. kube-scheduler v1.35 never preempts for
DRA devices, so the page lists the holders and what does work instead: fewer
devices, another class through ``firstAvailable`` (the advice kinds fewer-devices
and first-available prove either), or waiting for a holder to finish.
"""

from __future__ import annotations

from dataclasses import dataclass

from scheduling.analyses.workloads import NodeChange, WorkloadRun
from scheduling.engine import Explanation
from scheduling.engine.dra.waiting import ClassWait, noun


def _capital(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


@dataclass(frozen=True)
class HolderRow:
    """One running pod's claim holding devices the waiting pod could use."""

    name: str
    namespace: str
    priority: int
    lower_priority: bool
    node: str
    claim: str
    device_class: str
    devices: int
    owner: str | None


@dataclass(frozen=True)
class ClassLine:
    """What the pod asks of one device class, and how the class stands."""

    device_class: str
    text: str


@dataclass(frozen=True)
class DeviceCard:
    """The "Devices" card of a pod's result page."""

    sentence: str
    classes: list[ClassLine]
    holders: list[HolderRow]
    # What works instead, one sentence each.
    remedies: list[str]
    # The owners of the lower-priority holders (whom to ask to free the devices).
    owners: list[str]


def _split(key: str) -> tuple[str, str]:
    """ "namespace/name" of a pod key (a key without a namespace is in default)."""
    namespace, _, name = key.rpartition("/")
    return namespace or "default", name


def class_line(c: ClassWait) -> ClassLine:
    """ "Asks 4 GPUs of class a100: 8 held by other pods, 0 free"."""
    return ClassLine(
        device_class=c.device_class,
        text=(
            f"Asks {noun(c.device_class, c.wanted)} of class {c.device_class}: "
            f"{c.held} held by other pods, {c.free} free"
        ),
    )


def holder_rows(c: ClassWait) -> list[HolderRow]:
    rows = []
    for h in c.holders:
        namespace, name = _split(h.pod)
        rows.append(
            HolderRow(
                name=name,
                namespace=namespace,
                priority=h.priority,
                lower_priority=h.lower_priority,
                node=h.node,
                claim=_split(h.claim)[1],
                device_class=c.device_class,
                devices=h.devices,
                owner=h.owner,
            )
        )
    return rows


def remedies(classes: list[ClassWait]) -> list[str]:
    """What works where preemption does not, in the order a GPU team would try it."""
    wanted = sum(c.wanted for c in classes)
    free = sum(c.free for c in classes)
    out = []
    if wanted > 1 and free:
        # Nobody holds these; the counts are the cluster's, while one claim's devices
        # all come from one node (the advice proves a count on the real nodes).
        out.append(
            f"Ask for fewer devices: {free} {'is' if free == 1 else 'are'} free in the "
            "cluster, and a claim is allocated when one node that passes the pod's other "
            "filters has as many free as it asks."
        )
    out.append(
        "Ask for another device class as a fallback: list it under the claim's request "
        "firstAvailable, after the class it asks now; DynamicResources allocates the first "
        "that fits."
    )
    out.append(
        "Wait: the pod stays pending and is scheduled as soon as a holder's pod ends and "
        "its claim is deallocated, or ask the holders' owners to scale them down."
    )
    return out


def device_card(ex: Explanation) -> DeviceCard | None:
    """The card of a pod that waits for devices (None: it does not)."""
    wait = ex.devices
    if wait is None or not wait.sentence:
        return None
    holders = [row for c in wait.classes for row in holder_rows(c)]
    owners = sorted({h.owner for h in holders if h.owner and h.lower_priority})
    return DeviceCard(
        sentence=_capital(wait.sentence) + ".",
        classes=[class_line(c) for c in wait.classes],
        holders=holders,
        remedies=remedies(wait.classes),
        owners=owners,
    )


# --- a workload run: devices per node -----------------------------------------------------------


@dataclass(frozen=True)
class NodeDevices:
    """A node's DRA devices held by claims before the run and at its end."""

    node: str
    devices: int
    before: int
    after: int

    @property
    def free_after(self) -> int:
        return self.devices - self.after


def node_devices(run: WorkloadRun) -> list[NodeDevices]:
    """The run's nodes that have devices (empty: the run involved none)."""
    return [_node_devices(n) for n in run.nodes if n.devices]


def _node_devices(n: NodeChange) -> NodeDevices:
    return NodeDevices(
        node=n.node, devices=n.devices, before=n.devices_before, after=n.devices_after
    )
