"""Where a volume decided, in the words the result pages and the CLI reports share.

Pure functions of the engine's typed records: the explanation's volume pins and the
attach counts on the nodes NodeVolumeLimits rejected, a workload run's assumptions
and the claims it bound. The sentences of the engine ("pinned to eu-west-1a by its
volume data-kafka-0", "this node has 25 of 25 attachments of ebs.csi.aws.com in
use") are used as they are, with what kube-scheduler does because of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine import Explanation
from scheduling.engine.explanation import AttachmentCount, NodeVerdict, StatusRecord
from scheduling.engine.plugins import names
from scheduling.presenters.pod import RejectedGroup

# kube-scheduler's four volume filter plugins: a node one of them rejected is
# rejected for its volumes.
VOLUME_PLUGINS = frozenset(
    {names.VOLUME_RESTRICTIONS, names.NODE_VOLUME_LIMITS, names.VOLUME_BINDING, names.VOLUME_ZONE}
)


def _capital(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


# --- the pod: pinned by its volumes -----------------------------------------------------------


def pin_sentences(ex: Explanation) -> list[str]:
    """One sentence per bound volume that confines the pod, with what it does to the
    answer: "Pinned to eu-west-1a by its volume data-kafka-0 (PersistentVolume
    pv-data-kafka-0): VolumeBinding rejects every node outside eu-west-1a as
    unresolvable, so no preemption can move it there."

    The plugin named is the one that rejected nodes for it: VolumeBinding reads the
    volume's node affinity, VolumeZone its zone labels."""
    deciding = sorted(
        {
            s.plugin
            for r in ex.rejected_nodes
            for s in (r.filter, r.preemption)
            if s is not None and s.plugin in (names.VOLUME_BINDING, names.VOLUME_ZONE)
        }
    )
    out = []
    for pin in ex.volume_pins:
        where = " or ".join(pin.values)
        outside = f"every node outside {where}" if pin.kind == "zone" else "every other node"
        head = f"{_capital(pin.sentence)} (PersistentVolume {pin.volume})"
        if deciding:
            verb = "rejects" if len(deciding) == 1 else "reject"
            out.append(
                f"{head}: {' and '.join(deciding)} {verb} {outside} as unresolvable, so no "
                "preemption can move it there."
            )
        else:
            out.append(f"{head}: it can only run {'in' if pin.kind == 'zone' else 'on'} {where}.")
    return out


# --- a node: the volume plugin that rejected it, and its attach counts ------------------------


def attachment_sentence(a: AttachmentCount) -> str:
    """ "this node has 25 of 25 attachments of ebs.csi.aws.com in use; the pod needs 1 more"."""
    return f"{a.sentence}; the pod needs {a.adding} more"


@dataclass
class NodeVolumes:
    """A node a volume plugin rejected: the plugin, kube-scheduler's reasons, and the
    attach counts where NodeVolumeLimits decided."""

    node: str
    plugin: str
    reasons: list[str]
    attachments: list[AttachmentCount] = field(default_factory=list)

    @property
    def sentences(self) -> list[str]:
        """What the tables show of it: the counts where NodeVolumeLimits decided (its
        reason says no more), else the plugin's own reasons."""
        if self.attachments:
            return [attachment_sentence(a) for a in self.attachments]
        return list(self.reasons)

    @property
    def text(self) -> str:
        return f"{self.plugin}: {'; '.join(self.sentences)}"


def _volume_status(r: NodeVerdict) -> StatusRecord | None:
    """The status of a volume plugin's rejection of the node, as the cluster stands or
    in the dry run with the lower-priority pods gone."""
    for status in (r.filter, r.preemption):
        if status is not None and status.plugin in VOLUME_PLUGINS:
            return status
    return None


def node_volumes(ex: Explanation) -> dict[str, NodeVolumes]:
    """The nodes a volume plugin rejected (the nominated node among them), by name."""
    out = {}
    for r in ex.rejected_nodes:
        status = _volume_status(r)
        if status is None and not r.attachments:
            continue
        out[r.node] = NodeVolumes(
            node=r.node,
            plugin=status.plugin if status and status.plugin else names.NODE_VOLUME_LIMITS,
            reasons=list(status.reasons) if status else [],
            attachments=list(r.attachments),
        )
    return out


@dataclass
class PluginRejections:
    """Nodes a volume plugin rejected for the same reasons (no attach counts to show)."""

    plugin: str
    reasons: list[str]
    nodes: list[str]

    @property
    def text(self) -> str:
        return f"{self.plugin}: {'; '.join(self.reasons)}"


def volume_rejections(
    ex: Explanation,
) -> tuple[list[NodeVolumes], list[PluginRejections]]:
    """What the reports say of the volume plugins' rejections: each node at an attach
    limit with its counts, and the other nodes grouped by plugin and reasons (a
    PreFilter rejection names every node alike: once, with the count)."""
    counted: list[NodeVolumes] = []
    grouped: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for v in node_volumes(ex).values():
        if v.attachments:
            counted.append(v)
        else:
            grouped.setdefault((v.plugin, tuple(v.reasons)), []).append(v.node)
    others = [
        PluginRejections(plugin, list(reasons), nodes)
        for (plugin, reasons), nodes in sorted(grouped.items(), key=lambda kv: -len(kv[1]))
    ]
    return counted, others


# How many nodes of a group have their attach counts listed; the rest are counted.
ATTACH_NODES_PER_GROUP = 5


@dataclass
class GroupVolumes:
    """What the volume plugins said of one group of other nodes."""

    plugins: list[str]
    # (node, its attach sentences), at most ATTACH_NODES_PER_GROUP of them.
    attachments: list[tuple[str, list[str]]]
    more: int

    @property
    def headline(self) -> str:
        return f"Rejected for its volumes by {' and '.join(self.plugins)}."


def group_volumes(ex: Explanation, groups: list[RejectedGroup]) -> dict[int, GroupVolumes]:
    """The groups of other nodes a volume plugin rejected, by group index."""
    by_node = node_volumes(ex)
    out = {}
    for g in groups:
        found = [by_node[n] for n in g.nodes if n in by_node]
        if not found:
            continue
        counted = [v for v in found if v.attachments]
        out[g.index] = GroupVolumes(
            plugins=sorted({v.plugin for v in found}),
            attachments=[(v.node, v.sentences) for v in counted[:ATTACH_NODES_PER_GROUP]],
            more=max(len(counted) - ATTACH_NODES_PER_GROUP, 0),
        )
    return out


# --- a workload run: what it assumed, and the claims it bound --------------------------------


def assumption_sentences(run: WorkloadRun) -> list[str]:
    """What the run assumed where nothing offline can say, as sentences."""
    return [f"Assumed: {a}." for a in run.assumptions]


def bound_claim_sentences(run: WorkloadRun) -> list[str]:
    """ "default/data-kafka-2 bound on node-b1, where its first pod landed"."""
    return [
        f"{b.claim} bound on {b.node}, where its first pod landed; it pins the pods using it "
        "from then on"
        for b in run.bound_claims
    ]
