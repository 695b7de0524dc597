"""The "What if these go away?" form: nodes by name, a pool (a label selector) or a zone;
drained or lost; force, how many at once, nodes added first.

It builds the same body the API takes (scheduling/services/take_nodes_away.py reads both), so a
refusal shows beside the field it came from in the engine's own words.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django import forms

from clusters.models import Snapshot

ZONE_LABEL = "topology.kubernetes.io/zone"
# The labels that name a node pool on the common providers and autoscalers: offered as
# ready-made selectors ("a pool") beside the zones.
POOL_LABELS = (
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "alpha.eksctl.io/nodegroup-name",
    "karpenter.sh/nodepool",
    "kubernetes.azure.com/agentpool",
    "agentpool",
    "node.kubernetes.io/pool",
    "pool",
    "nodepool",
    "node-pool",
    "node.kubernetes.io/instance-type",
    "node-role.kubernetes.io/worker",
    "node-role.kubernetes.io/infra",
    "node-role.kubernetes.io/master",
    "node-role.kubernetes.io/control-plane",
)
# At most this many pools offered (the most nodes first): the rest are a selector away.
MAX_POOLS_OFFERED = 30
MAX_ADDED_NODES = 500
NAMES = re.compile(r"[\s,]+")


@dataclass(frozen=True)
class NodeGroup:
    """A zone or a pool of the snapshot's nodes: what to ask about, and how many it holds."""

    selector: str
    label: str
    nodes: int


def node_groups(snapshot: Snapshot) -> tuple[list[NodeGroup], list[NodeGroup]]:
    """(zones, pools) of the snapshot's nodes, the largest first, read from their labels."""
    zones: Counter[str] = Counter()
    pools: Counter[tuple[str, str]] = Counter()
    for labels in snapshot.nodes.values_list("labels", flat=True).iterator(chunk_size=2000):
        if not isinstance(labels, dict):
            continue
        if labels.get(ZONE_LABEL):
            zones[str(labels[ZONE_LABEL])] += 1
        for key in POOL_LABELS:
            if key in labels:
                pools[(key, str(labels[key]))] += 1
    zone_list = [
        NodeGroup(z, z, n) for z, n in sorted(zones.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    pool_list = [
        NodeGroup(f"{k}={v}" if v else k, f"{k}={v}" if v else k, n)
        for (k, v), n in sorted(pools.items(), key=lambda kv: (-kv[1], kv[0]))
    ][:MAX_POOLS_OFFERED]
    return zone_list, pool_list


class TakeNodesAwayForm(forms.Form):
    """One question: which nodes go (exactly one of names, a selector, a zone) and how."""

    nodes = forms.CharField(
        label="Nodes",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
        help_text="Names, one per line or separated by commas (the Nodes page fills them in).",
    )
    selector = forms.CharField(
        label="Or a pool: nodes whose labels match",
        required=False,
        help_text="A label selector as kubectl writes one: pool=batch,tier!=gold.",
    )
    zone = forms.CharField(
        label="Or a zone",
        required=False,
        help_text=f"Every node whose {ZONE_LABEL} label is this zone.",
    )
    how = forms.ChoiceField(
        label="How they go",
        choices=[
            ("drain", "Drained (kubectl drain: evictions through the PDBs)"),
            ("lost", "Lost (the nodes fail: every pod on them goes, no PDB asked)"),
        ],
        initial="drain",
        widget=forms.RadioSelect,
    )
    force = forms.BooleanField(
        label="Force (delete pods no controller recreates, as kubectl drain --force)",
        required=False,
    )
    max_unavailable = forms.IntegerField(
        label="Drained at once",
        required=False,
        min_value=1,
        help_text="Nodes drained at a time (empty: all at once).",
    )
    add_count = forms.IntegerField(
        label="Add nodes first",
        required=False,
        min_value=0,
        max_value=MAX_ADDED_NODES,
        help_text="New nodes ready before the drain (0: none).",
    )
    add_like = forms.CharField(
        label="Like node",
        required=False,
        help_text="The node they copy: allocatable, labels and taints, none of its pods.",
    )

    def __init__(self, *args: Any, snapshot: Snapshot, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.snapshot = snapshot
        self.body: dict[str, Any] = {}

    @staticmethod
    def initial_from(query: Any) -> dict[str, Any]:
        """The form's values from a link: ?nodes=a&nodes=b (the Nodes page's ticks),
        ?selector=pool%3Dbatch, ?zone=us-east-1a, ?how=lost, ?force=1, ?add_count=2&add_like=n."""
        initial: dict[str, Any] = {}
        names = [n for given in query.getlist("nodes") for n in NAMES.split(given) if n]
        if names:
            initial["nodes"] = "\n".join(names)
        for key in ("selector", "zone", "how", "add_like", "add_count", "max_unavailable"):
            if query.get(key):
                initial[key] = query[key]
        if query.get("force"):
            initial["force"] = True
        return initial

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        names = [n for n in NAMES.split(data.get("nodes") or "") if n]
        given = {
            k: v
            for k, v in (
                ("nodes", names),
                ("selector", (data.get("selector") or "").strip()),
                ("zone", (data.get("zone") or "").strip()),
            )
            if v
        }
        if len(given) != 1:
            self.add_error(
                None,
                "Name the nodes, or give a pool's selector, or a zone: exactly one of the three.",
            )
            return data
        body: dict[str, Any] = dict(given)
        body["how"] = data.get("how") or "drain"
        body["force"] = bool(data.get("force"))
        if data.get("max_unavailable"):
            body["max_unavailable"] = data["max_unavailable"]
        count = data.get("add_count") or 0
        like = (data.get("add_like") or "").strip()
        if count and not like:
            self.add_error("add_like", "Name the node the new ones copy.")
        elif like and not count:
            self.add_error("add_count", "How many nodes like it?")
        elif count:
            body["add_nodes"] = {"count": count, "like": like}
        self.body = body
        return data

    def refused(self, field: str, message: str) -> None:
        """A refusal of the body's ``field`` (scheduling/services/take_nodes_away.py), beside the
        form's field it came from."""
        if field == "add_nodes":
            field = "add_like" if "like" in message or "node" in message else "add_count"
        self.add_error(field if field in self.fields else None, message)
