"""What the take-nodes-away page (and its text and Markdown reports) shows of the answer:
the stored result (the engine's NodesTakenAway.to_dict(), DESIGN.md "Taking nodes
away") read once into typed rows, the per-node picture of pods leaving and arriving, and
which advice applies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from scheduling.engine.preemption.candidate import Criterion
from scheduling.engine.words import plural
from scheduling.presenters.pod import CRITERION_COLUMNS, CandidateRow, Cell

# Pods drawn one block each on a node's row of the picture; more are counted.
BLOCKS_PER_ROW = 48


def _pods(value: Any) -> tuple[str, ...]:
    """A list of pods as "namespace/name" (a pod written as an object names its "pod")."""
    if not isinstance(value, Sequence) or isinstance(value, str):
        return ()
    out = []
    for item in value:
        if isinstance(item, Mapping):
            out.append(str(item.get("pod") or item.get("name") or ""))
        else:
            out.append(str(item))
    return tuple(p for p in out if p)


@dataclass(frozen=True)
class Blocked:
    """An eviction a PodDisruptionBudget refused: the pod and the budget."""

    pod: str
    pdb: str
    message: str = ""


@dataclass(frozen=True)
class NodeTaken:
    """One node taken away: what left it and how, what stayed, what stopped the drain."""

    node: str
    evicted: tuple[str, ...]
    deleted: tuple[str, ...]
    left: tuple[str, ...]
    blocked: tuple[Blocked, ...]
    stopped_at: str | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NodeTaken:
        blocked = []
        for b in d.get("blocked") or []:
            if isinstance(b, Mapping):
                blocked.append(
                    Blocked(
                        str(b.get("pod") or ""),
                        str(b.get("pdb") or ""),
                        str(b.get("message") or ""),
                    )
                )
            else:
                blocked.append(Blocked(str(b), ""))
        return cls(
            node=str(d.get("node") or ""),
            evicted=_pods(d.get("evicted")),
            deleted=_pods(d.get("deleted")),
            left=_pods(d.get("left")),
            blocked=tuple(blocked),
            stopped_at=str(d["stopped_at"]) if d.get("stopped_at") else None,
        )

    @property
    def gone(self) -> int:
        return len(self.evicted) + len(self.deleted)


@dataclass(frozen=True)
class Returning:
    """A pod a controller recreates for one evicted: where it runs, or why it waits."""

    pod: str
    replaces: str | None
    node: str | None
    reason: str | None
    preempted: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Returning:
        return cls(
            pod=str(d.get("pod") or ""),
            replaces=str(d["replaces"]) if d.get("replaces") else None,
            node=str(d["node"]) if d.get("node") else None,
            reason=str(d["reason"]) if d.get("reason") else None,
            preempted=_pods(d.get("victims") or d.get("preempted")),
        )


@dataclass(frozen=True)
class Candidate:
    """A node the preemptor could have preempted on, and the criterion that ruled it out
    (None: the one chosen), as the result pages' tie-break table shows it."""

    node: str
    victims: tuple[str, ...]
    pdb_violations: int
    highest_victim_priority: int | None
    priority_sum: int | None
    victim_count: int
    earliest_start: str | None
    eliminated_by: Criterion | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Candidate:
        victims = _pods(d.get("victims"))
        elim = str(d.get("eliminated_by") or "")
        return cls(
            node=str(d.get("node") or ""),
            victims=victims,
            pdb_violations=int(d.get("pdb_violations") or 0),
            highest_victim_priority=d.get("highest_victim_priority"),
            priority_sum=d.get("priority_sum"),
            victim_count=int(d.get("victim_count") or len(victims)),
            earliest_start=d.get("highest_victims_earliest_start"),
            eliminated_by=Criterion(elim) if elim in Criterion._value2member_map_ else None,
        )

    def value(self, crit: Criterion) -> int | str | None:
        """Its figure for one criterion, as the result pages' tie-break table shows it."""
        return {
            Criterion.PDB_VIOLATIONS: self.pdb_violations,
            Criterion.HIGHEST_PRIORITY: self.highest_victim_priority,
            Criterion.PRIORITY_SUM: self.priority_sum,
            Criterion.VICTIM_COUNT: self.victim_count,
            Criterion.START_TIME: self.earliest_start,
        }.get(crit)


def tie_rows(p: Preemption) -> list[CandidateRow]:
    """The tie-break of one preemption in the rows the pod page's table draws."""
    return [
        CandidateRow(
            rank=i + 1,
            node=c.node,
            winner=c.eliminated_by is None,
            eliminated_by=c.eliminated_by,
            victims=list(c.victims),
            cells=[
                Cell(c.value(crit), eliminator=c.eliminated_by == crit)
                for crit in CRITERION_COLUMNS
            ],
        )
        for i, c in enumerate(p.candidates)
    ]


@dataclass(frozen=True)
class Preemption:
    """One preemption the returning pods caused: who, where, whom; and the tie-break
    between the nodes it could have chosen, when the engine recorded it."""

    preemptor: str
    node: str
    victims: tuple[str, ...]
    candidates: tuple[Candidate, ...]
    pdb_violations: int
    victim_classes: Mapping[str, str] = field(default_factory=dict)
    tied_nodes: tuple[str, ...] = ()
    cycle: int | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Preemption:
        classes: dict[str, str] = {}
        for v in d.get("victims") or []:
            if isinstance(v, Mapping) and v.get("priority_class"):
                classes[str(v.get("pod"))] = str(v["priority_class"])
        for k, c in (
            (d.get("victim_classes") or {}).items()
            if isinstance(d.get("victim_classes"), Mapping)
            else ()
        ):
            classes[str(k)] = str(c)
        tie = d.get("candidates") or []
        return cls(
            preemptor=str(d.get("preemptor") or ""),
            node=str(d.get("node") or ""),
            victims=_pods(d.get("victims")),
            candidates=tuple(Candidate.from_dict(c) for c in tie if isinstance(c, Mapping)),
            pdb_violations=int(d.get("pdb_violations") or 0),
            victim_classes=classes,
            tied_nodes=tuple(str(n) for n in d.get("tied_nodes") or ()),
            cycle=d.get("cycle") if isinstance(d.get("cycle"), int) else None,
        )

    @property
    def tie_sentence(self) -> str:
        """The last step of the tie-break, when it came to that: the nodes still level on
        every criterion, of which kube-scheduler picks one at random (the engine, and so
        this answer, by name)."""
        others = [n for n in self.tied_nodes if n != self.node]
        if not others:
            return ""
        return (
            f"{self.node} tied with {', '.join(others[:5])}"
            + (f" and {len(others) - 5} more" if len(others) > 5 else "")
            + " on every criterion (PDB violations, highest victim priority, sum of "
            "priorities, number of victims, start time): kube-scheduler picks one at "
            "random; this answer takes the first by name."
        )


@dataclass(frozen=True)
class NodesAway:
    """The answer, typed: the question's how, the verdict and its sentence, and the lists."""

    how: str
    verdict: str
    sentence: str
    nodes: tuple[NodeTaken, ...]
    returning: tuple[Returning, ...]
    preemptions: tuple[Preemption, ...]
    pdbs_exceeded: tuple[str, ...]
    pending: tuple[str, ...]
    added: tuple[str, ...]
    raw: Mapping[str, Any]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NodesAway:
        exceeded = []
        for p in d.get("pdbs_exceeded") or []:
            exceeded.append(str(p.get("pdb") if isinstance(p, Mapping) else p))
        added = d.get("added_nodes") or d.get("added") or []
        return cls(
            how=str(d.get("how") or "drain"),
            verdict=str(d.get("verdict") or ""),
            sentence=str(d.get("sentence") or ""),
            nodes=tuple(NodeTaken.from_dict(n) for n in d.get("nodes") or []),
            returning=tuple(Returning.from_dict(r) for r in d.get("returning") or []),
            preemptions=tuple(Preemption.from_dict(p) for p in d.get("preemptions") or []),
            pdbs_exceeded=tuple(exceeded),
            pending=_pods(d.get("pending")),
            added=tuple(
                str(a.get("name") if isinstance(a, Mapping) else a)
                for a in added
                if isinstance(added, Sequence)
            ),
            raw=d,
        )

    @property
    def victims(self) -> tuple[str, ...]:
        return tuple(v for p in self.preemptions for v in p.victims)

    @property
    def blocked(self) -> tuple[Blocked, ...]:
        return tuple(b for n in self.nodes for b in n.blocked)

    @property
    def stopped_at(self) -> tuple[str, ...]:
        return tuple(n.stopped_at for n in self.nodes if n.stopped_at)

    def victims_of(self, returning: Returning) -> tuple[str, ...]:
        """The pods a returning pod preempted (its own entry, else the preemptions')."""
        if returning.preempted:
            return returning.preempted
        return tuple(v for p in self.preemptions if p.preemptor == returning.pod for v in p.victims)


# --- words --------------------------------------------------------------------------------

VERDICT_WORDS = {
    "completes": "The drain completes",
    "blocked": "The drain is blocked",
    "stopped": "The drain stops",
}


def counts_line(answer: NodesAway) -> str:
    """ "2 nodes · 3 pods evicted, 1 deleted, 1 left · 2 return, 1 pending · 1 preemption"."""
    evicted = sum(len(n.evicted) for n in answer.nodes)
    deleted = sum(len(n.deleted) for n in answer.nodes)
    left = sum(len(n.left) for n in answer.nodes)
    placed = sum(1 for r in answer.returning if r.node)
    parts = [
        plural(len(answer.nodes), "node") + (" lost" if answer.how == "lost" else " drained"),
        f"{evicted} evicted, {deleted} deleted, {left} left",
        f"{placed} of {plural(len(answer.returning), 'returning pod')} placed",
        f"{len(answer.pending)} pending",
        plural(len(answer.preemptions), "preemption"),
    ]
    if answer.blocked:
        parts.append(plural(len(answer.blocked), "eviction") + " blocked")
    return " · ".join(parts)


def advice_lines(answer: NodesAway, *, like: str | None = None) -> list[str]:
    """Which advice applies, in words (the advice app answers pods and workloads; for a
    drain the page says which single change would help and where to try it)."""
    lines = []
    if answer.blocked:
        pdbs = sorted({b.pdb for b in answer.blocked if b.pdb})
        lines.append(
            "Blocked by "
            + ", ".join(pdbs or ["a PodDisruptionBudget"])
            + ": it allows no eviction until another of its pods runs elsewhere: one more "
            "replica first (with room for it), or a budget that allows one; with several "
            "nodes holding its pods, drain fewer at once (max_unavailable)."
        )
    if answer.stopped_at:
        lines.append(
            f"Stopped at {answer.stopped_at[0]}, a pod no controller recreates: run it under "
            "a controller, or drain with force (it is then deleted and does not come back)."
        )
    if answer.pending or answer.preemptions:
        model = like or (answer.nodes[0].node if answer.nodes else "")
        lines.append(
            f"Add nodes like {model} before taking these away (add_nodes), so the returning "
            "pods find room without preempting or waiting."
        )
    if answer.preemptions:
        lines.append(
            "Protect the pods preempted: a higher PriorityClass for them, or fewer replicas "
            "of the workloads that come back."
        )
    return lines


# --- the picture ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    kind: str  # evicted, deleted, left, blocked, arrived, preempted
    pod: str


@dataclass(frozen=True)
class NodeRow:
    node: str
    taken: bool
    leaving: tuple[Block, ...]
    arriving: tuple[Block, ...]


def node_rows(answer: NodesAway) -> list[NodeRow]:
    """Each node the answer touches: the nodes taken (pods leaving, staying, blocked),
    then the nodes receiving pods (arriving, and those preempted to make room)."""
    rows = []
    blocked_pods = {b.pod for b in answer.blocked}
    for n in answer.nodes:
        leaving = (
            [Block("evicted", p) for p in n.evicted if p not in blocked_pods]
            + [Block("deleted", p) for p in n.deleted]
            + [Block("blocked", b.pod) for b in n.blocked]
            + [Block("left", p) for p in n.left]
        )
        rows.append(NodeRow(n.node, True, tuple(leaving), ()))
    taken = {n.node for n in answer.nodes}
    receiving: dict[str, list[Block]] = {}
    for r in answer.returning:
        if r.node and r.node not in taken:
            receiving.setdefault(r.node, []).append(Block("arrived", r.pod))
    for p in answer.preemptions:
        receiving.setdefault(p.node, []).extend(Block("preempted", v) for v in p.victims)
    for node in sorted(receiving, key=lambda k: (-len(receiving[k]), k)):
        blocks = receiving[node]
        rows.append(
            NodeRow(
                node,
                False,
                tuple(b for b in blocks if b.kind == "preempted"),
                tuple(b for b in blocks if b.kind == "arrived"),
            )
        )
    return rows


BLOCK_WORDS = {
    "evicted": "evicted",
    "deleted": "deleted",
    "left": "stays",
    "blocked": "blocked by a PDB",
    "arrived": "arrives",
    "preempted": "preempted",
}


def _blocks(blocks: Sequence[Block]) -> SafeString:
    shown = blocks[:BLOCKS_PER_ROW]
    html = format_html_join(
        "",
        '<span class="pod-block {}" title="{}: {}"></span>',
        ((b.kind, b.pod, BLOCK_WORDS[b.kind]) for b in shown),
    )
    more = len(blocks) - len(shown)
    if more > 0:
        html = format_html('{}<span class="more">+{}</span>', html, more)
    return html


def picture(answer: NodesAway, *, max_nodes: int) -> SafeString:
    """Per node, one block per pod: on the nodes taken, those leaving (evicted, deleted)
    and those that stay or are blocked; on the nodes receiving, those arriving and those
    preempted for them. HTML and CSS (static/css/analyses.css): a 40-character node name
    wraps on its own line above its blocks, so the picture never widens the page."""
    rows = node_rows(answer)
    if not rows:
        return mark_safe("")
    parts = []
    for row in rows[:max_nodes]:
        counts: dict[str, int] = {}
        for b in (*row.leaving, *row.arriving):
            counts[b.kind] = counts.get(b.kind, 0) + 1
        summary = ", ".join(f"{n} {BLOCK_WORDS[k]}" for k, n in counts.items()) or "no pods"
        parts.append(
            format_html(
                '<li class="node-flow {}" data-node="{}"><div class="flow-name"><code>{}</code> '
                '<span class="hint">{}{}</span></div><div class="flow-blocks">{}{}{}</div></li>',
                "taken" if row.taken else "receiving",
                row.node,
                row.node,
                "taken away · " if row.taken else "",
                summary,
                _blocks(row.leaving),
                mark_safe('<span class="flow-arrow" aria-hidden="true">→</span>')
                if row.arriving and row.leaving
                else "",
                _blocks(row.arriving),
            )
        )
    more = len(rows) - max_nodes
    tail = (
        format_html(
            '<li class="hint">and {} more (the tables list them)</li>', plural(more, "node")
        )
        if more > 0
        else ""
    )
    return format_html(
        '<ul class="node-flows" id="nodes-picture" aria-label="pods leaving and arriving, per '
        'node">{}{}</ul>',
        mark_safe("".join(str(p) for p in parts)),
        tail,
    )
