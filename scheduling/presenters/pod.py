"""Turns the engine's Explanation into what the result page and the CLI text say.

Pure functions of the typed explanation: the page, the shared page, the CLI text
report and the tests use them alike, and none of them reads the snapshot. Words
for kube-scheduler's concepts come from the engine (criteria labels, reasons to
which preemption cannot help); the sentences are made here, once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from scheduling.constants import SVG_MAX_LABELLED_VICTIMS
from scheduling.engine import (
    CandidateRecord,
    CannotHelp,
    Criterion,
    EngineConfig,
    Explanation,
    HostSelection,
    HypotheticalClass,
    InputEffect,
    NodeResources,
    Outcome,
    VictimDetail,
)
from scheduling.engine.preemption.candidate import CRITERIA
from scheduling.engine.quantity import format_quantity
from scheduling.engine.words import NAMES_IN_A_SENTENCE, join_names, plural

# How many of the best-scored nodes the score table shows (every tied node is shown).
SCORE_TABLE_NODES = 5


# --- the headline ------------------------------------------------------------------------------


def is_score_tie(ex: Explanation) -> bool:
    return ex.host_selection == HostSelection.SCORED and len(ex.tied_nodes) > 1


def outcome_sentence(ex: Explanation) -> str:
    """What kube-scheduler would do, in one line."""
    if ex.outcome == Outcome.FITS:
        if is_score_tie(ex):
            return f"Fits on {join_names(ex.tied_nodes, conjunction='or')} (a tie kube-scheduler breaks at random)."
        if ex.host_selection == HostSelection.NOMINATED_NODE:
            return f"Fits on {ex.node}, its nominated node."
        others = len(ex.feasible_nodes) - 1
        tail = f" ({plural(others, 'other node')} would fit too)" if others > 0 else ""
        return f"Fits on {ex.node}{tail}."
    if ex.outcome == Outcome.PREEMPTS:
        text = f"Preempts {plural(len(ex.victims), 'pod')} on {ex.node}"
        if ex.pdb_violations:
            text += f", violating {plural(ex.pdb_violations, 'PodDisruptionBudget')}"
        return text + "."
    return "Cannot be scheduled, and preemption cannot help."


# --- why: one sentence under the headline ------------------------------------------------------


def why_sentence(ex: Explanation) -> str:
    if ex.outcome == Outcome.FITS:
        return why_it_fits(ex)
    if ex.outcome == Outcome.PREEMPTS:
        return f"{victims_clause(ex)}; {winner_clause(ex)}"
    return why_preemption_cannot_help(ex)


def score_tie_sentence(ex: Explanation) -> str:
    """ "node-3, node-4 or node-5: tied at 407, kube-scheduler picks one at random"."""
    total = ex.scores.nodes[0].total if ex.scores and ex.scores.nodes else 0
    return (
        f"{join_names(ex.tied_nodes, conjunction='or')}: tied at {total:,}, "
        "kube-scheduler picks one at random"
    )


def why_it_fits(ex: Explanation) -> str:
    if ex.host_selection == HostSelection.NOMINATED_NODE:
        return (
            f"Its status.nominatedNodeName {ex.node} passes every filter, so kube-scheduler "
            "binds it there without scoring the other nodes."
        )
    if ex.host_selection == HostSelection.SINGLE_FEASIBLE_NODE:
        return (
            f"{ex.node} is the only node that passes every filter, so kube-scheduler takes it "
            "without scoring."
        )
    if is_score_tie(ex):
        return f"{score_tie_sentence(ex)}; this analysis shows {ex.node}, the first by name."
    scores = ex.scores
    if scores is None or len(scores.nodes) < 2:
        return f"{ex.node} has the highest score."
    best, second = scores.nodes[0], scores.nodes[1]
    gaps = sorted(
        ((best.plugins.get(p, 0) - second.plugins.get(p, 0), p) for p in scores.plugins),
        reverse=True,
    )
    lead = f" ({gaps[0][1]} gives it {gaps[0][0]:,} more)" if gaps and gaps[0][0] > 0 else ""
    return (
        f"{best.node} has the highest score, {best.total:,} against {second.total:,} for "
        f"{second.node}{lead}."
    )


def victims_clause(ex: Explanation) -> str:
    """Who goes, and what their PodDisruptionBudgets say."""
    names = join_names(ex.victims, limit=NAMES_IN_A_SENTENCE)
    details = ex.victim_details
    covered = [v for v in details if v.pdbs]
    violating = [v for v in details if v.violates_pdb]
    if violating:
        budgets = sorted({p.pdb for v in violating for p in v.pdbs})
        state = (
            f"evicting {join_names([v.key for v in violating], limit=NAMES_IN_A_SENTENCE)} "
            f"breaks PodDisruptionBudget {join_names(budgets, limit=NAMES_IN_A_SENTENCE)}"
        )
    elif covered:
        budgets = sorted({p.pdb for v in covered for p in v.pdbs})
        state = (
            f"their PodDisruptionBudget {join_names(budgets, limit=NAMES_IN_A_SENTENCE)} allows it"
        )
    elif details:
        state = "no PodDisruptionBudget covers them"
    elif ex.pdb_violations:
        state = f"{plural(ex.pdb_violations, 'PodDisruptionBudget violation')}"
    else:
        state = "no PodDisruptionBudget is violated"
    return f"It evicts {names} ({state})"


def winner_clause(ex: Explanation) -> str:
    """Which criterion made the nominated node beat the runner-up."""
    if len(ex.candidates) <= 1:
        return f"{ex.node} is the only node where preemption makes room."
    if len(ex.tied_nodes) > 1:
        return (
            f"{join_names(ex.tied_nodes, conjunction='or', limit=NAMES_IN_A_SENTENCE)} are tied on "
            "every criterion; kube-scheduler picks one at random."
        )
    runner_up = ex.runner_up
    if runner_up is None or runner_up.eliminated_by is None:
        return f"{ex.node} wins the tie-break."
    crit = runner_up.eliminated_by
    return f"{ex.node} beat {runner_up.node} on {crit.label}: {crit.win_reason}."


def why_preemption_cannot_help(ex: Explanation) -> str:
    if ex.devices is not None and ex.devices.sentence:
        # The devices first: what a GPU team needs to read (the nodes' reasons follow).
        words = ex.devices.sentence
        return f"{words[0].upper()}{words[1:]}. {_why_preemption_cannot_help(ex)}"
    return _why_preemption_cannot_help(ex)


def _why_preemption_cannot_help(ex: Explanation) -> str:
    if not ex.num_nodes:
        return "The snapshot has no nodes to run it on."
    if not ex.eligible:
        never = any(r.cannot_help == CannotHelp.POLICY_NEVER for r in ex.rejected_nodes)
        reason = (
            "its preemptionPolicy is Never"
            if never
            else (ex.ineligible_reason or "it is not eligible").rstrip(".")
        )
        return (
            f"kube-scheduler does not try to preempt for it: {reason}; "
            f"{plural(len(ex.rejected_nodes), 'node')} fail a filter ({top_reasons(ex)})."
        )
    parts = [
        f"{plural(g.count, 'node')}: {g.cannot_help.label}"
        + (f" ({g.top_reasons})" if g.cannot_help != CannotHelp.NO_LOWER_PRIORITY_PODS else "")
        for g in cannot_help_summary(ex)
    ]
    return "Preemption cannot help on any node. " + "; ".join(parts) + "."


def top_reasons(ex: Explanation, limit: int = 2) -> str:
    counts = Counter(reason for r in ex.rejected_nodes for reason in r.filter.reasons)
    return "; ".join(reason for reason, _ in counts.most_common(limit))


@dataclass
class CannotHelpGroup:
    cannot_help: CannotHelp
    count: int
    top_reasons: str


def cannot_help_summary(ex: Explanation) -> list[CannotHelpGroup]:
    """The nodes where preemption cannot help, by why not (largest group first)."""
    nodes: dict[CannotHelp, list[str]] = {}
    reasons: dict[CannotHelp, Counter[str]] = {}
    for r in ex.other_rejected_nodes():
        if r.cannot_help is None:
            continue
        nodes.setdefault(r.cannot_help, []).append(r.node)
        shown = (
            r.preemption.reasons
            if r.cannot_help == CannotHelp.DOES_NOT_FIT and r.preemption
            else r.filter.reasons
        )
        reasons.setdefault(r.cannot_help, Counter()).update(shown)
    return [
        CannotHelpGroup(
            cannot_help=key,
            count=len(names),
            top_reasons="; ".join(reason for reason, _ in reasons[key].most_common(2)),
        )
        for key, names in sorted(nodes.items(), key=lambda kv: (-len(kv[1]), kv[0].value))
    ]


def event_message(ex: Explanation) -> tuple[str, str]:
    """(reason, message) of the event kube-scheduler would record for the pod."""
    if ex.outcome == Outcome.FITS:
        return "Scheduled", f"Successfully assigned {ex.pod} to {ex.node}"
    return "FailedScheduling", ex.message


# --- notices ------------------------------------------------------------------------------------


def input_notices(ex: Explanation) -> list[str]:
    """One sentence for every field of the submitted pod the answer drops or depends on."""
    out = []
    for n in ex.input_notices:
        verb = "was ignored" if n.effect == InputEffect.IGNORED else "was used"
        out.append(f"{n.field} ({n.value}) {verb}: {n.why}.")
    return out


def hypothetical_class_lines(classes: Sequence[HypotheticalClass]) -> list[str]:
    """One line for each PriorityClass the what-if carried: "hypothetical class cat-3 =
    30000", with what it replaced in the snapshot and what else it sets."""
    out = []
    for c in classes:
        line = f"hypothetical class {c.name} = {c.value}"
        extras = []
        if c.preemption_policy == "Never":
            extras.append("preemptionPolicy Never")
        if c.global_default:
            extras.append("the global default")
        if extras:
            line += f" ({', '.join(extras)})"
        if c.replaces is not None:
            line += f", replaces {c.name} = {c.replaces} in the snapshot"
        out.append(line)
    return out


SHARES_IN_A_SENTENCE = 3


def _percent(share: float) -> str:
    return f"{share * 100:.0f}%" if share >= 0.01 else "under 1%"


def sampling_notes(ex: Explanation) -> list[str]:
    notes = []
    pre = ex.preemption
    shares = ex.sampling
    if shares is not None and shares.offset is not None:
        notes.append(
            f"Answered as kube-scheduler's dry run from random offset {shares.offset:,}: it "
            f"looked at the potential nodes from there and stopped after "
            f"{shares.window:,} candidates, as DefaultPreemption does."
        )
    elif shares is not None and shares.varies:
        shown = [
            f"{n.node} for {_percent(n.share)}" for n in shares.nominated[:SHARES_IN_A_SENTENCE]
        ]
        rest = len(shares.nominated) - len(shown)
        notes.append(
            f"kube-scheduler dry-runs preemption on only about {shares.window:,} of the "
            f"{shares.potential_nodes:,} nodes where it could help, starting at a random one: "
            f"it nominates {join_names(shown, limit=SHARES_IN_A_SENTENCE)}"
            + (f" and {rest} other nodes for the rest" if rest else "")
            + f" of its random starting points. Looking at every node, as this answer does, "
            f"it would nominate {ex.node}."
        )
    elif pre is not None and pre.sampled:
        notes.append(
            f"kube-scheduler would have dry-run preemption on only "
            f"{pre.real_scheduler_would_sample:,} of the {pre.potential_nodes:,} nodes where it "
            "could help, starting at a random node; every starting point leads to the node "
            "this analysis chose."
        )
    filt = ex.filter_sampling
    if filt is not None and filt.sampled:
        notes.append(
            f"kube-scheduler would have stopped filtering after finding {filt.nodes_to_find:,} "
            f"feasible nodes of the {filt.nodes_evaluated:,} (percentageOfNodesToScore), starting "
            f"where its previous cycle stopped; this analysis scored all "
            f"{filt.feasible_nodes:,} feasible nodes, so the real scheduler may bind the pod to "
            "another node."
        )
    return notes


# --- the score table (a pod that fits) -------------------------------------------------------------


@dataclass
class ScoreRow:
    node: str
    scores: list[int]
    total: int
    top: bool
    chosen: bool


@dataclass
class ScoreTable:
    plugins: list[str]
    # Each plugin's weight as the profile configures it, aligned with ``plugins``.
    weights: list[int]
    rows: list[ScoreRow]
    # Feasible nodes left out of the table.
    more: int
    tie: str

    @property
    def plugin_weights(self) -> list[tuple[str, int]]:
        return list(zip(self.plugins, self.weights, strict=True))


def score_table(
    ex: Explanation, *, limit: int = SCORE_TABLE_NODES, weights: dict[str, int] | None = None
) -> ScoreTable | None:
    """The Score phase as a table; ``weights`` the profile's (None: the default's)."""
    scores = ex.scores
    # Only a scored choice is explained by the scores (a nominated or single feasible
    # node is taken without them).
    if scores is None or ex.outcome != Outcome.FITS or ex.host_selection != HostSelection.SCORED:
        return None
    top = set(scores.top)
    shown = max(limit, len(top))
    rows = [
        ScoreRow(
            node=n.node,
            scores=[n.plugins.get(p, 0) for p in scores.plugins],
            total=n.total,
            top=n.node in top,
            chosen=n.node == ex.node,
        )
        for n in scores.nodes[:shown]
    ]
    weights = weights if weights is not None else EngineConfig().weights
    return ScoreTable(
        plugins=list(scores.plugins),
        weights=[weights.get(p, 1) for p in scores.plugins],
        rows=rows,
        more=max(len(scores.nodes) - shown, 0),
        tie=score_tie_sentence(ex) if is_score_tie(ex) else "",
    )


# --- the tie-break table (preemption) ---------------------------------------------------------------


@dataclass
class Cell:
    value: int | str | None
    eliminator: bool = False


@dataclass
class CandidateRow:
    rank: int
    node: str
    winner: bool
    eliminated_by: Criterion | None
    victims: list[str]
    cells: list[Cell] = field(default_factory=list)


def criterion_value(c: CandidateRecord, crit: Criterion) -> int | str | None:
    """The candidate's figure for one criterion, as the table shows it."""
    match crit:
        case Criterion.PDB_VIOLATIONS:
            return c.pdb_violations
        case Criterion.HIGHEST_PRIORITY:
            return c.highest_victim_priority
        case Criterion.PRIORITY_SUM:
            return c.priority_sum
        case Criterion.VICTIM_COUNT:
            return c.victim_count
        case Criterion.START_TIME:
            return c.highest_victims_earliest_start
    return None


# The table's columns: the engine's criteria, in its order.
CRITERION_COLUMNS: list[Criterion] = [crit for crit, _ in CRITERIA]
# The criteria the page explains: the columns, then the final random pick.
CRITERIA_EXPLAINED: list[Criterion] = [*CRITERION_COLUMNS, Criterion.TIE]


def candidate_rows(candidates: Sequence[CandidateRecord], *, start: int = 0) -> list[CandidateRow]:
    rows = []
    for i, cand in enumerate(candidates):
        elim = cand.eliminated_by
        rows.append(
            CandidateRow(
                rank=start + i + 1,
                node=cand.node,
                winner=elim is None,
                eliminated_by=elim,
                victims=list(cand.victims),
                cells=[
                    Cell(criterion_value(cand, crit), eliminator=elim == crit)
                    for crit in CRITERION_COLUMNS
                ],
            )
        )
    return rows


def paginate(items: Sequence[object], *, page: str | int | None, per_page: int) -> Page[object]:
    return Paginator(items, per_page).get_page(page)


# --- other nodes, grouped --------------------------------------------------------------------------


@dataclass
class RejectedGroup:
    index: int
    reasons: list[str]
    # None: preemption could make room there (a candidate that lost the tie-break).
    cannot_help: CannotHelp | None
    nodes: list[str]

    @property
    def count(self) -> int:
        return len(self.nodes)

    @property
    def label(self) -> str:
        return "; ".join(self.reasons) or "no reason given"

    # does-not-fit: per resource, [what the pod requests, the most any node of the group
    # has free with every lower-priority pod gone].
    shortfall: dict[str, list[int]] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """What preemption could do there, in kube-scheduler's terms (with the numbers
        where the pod does not fit even without the lower-priority pods)."""
        if self.cannot_help is None:
            return "preemption could make room: a candidate that lost the tie-break"
        if not self.shortfall:
            return self.cannot_help.label
        numbers = "; ".join(
            f"{resource}: it requests {format_quantity(wanted, resource)}, at most "
            f"{format_quantity(max(free, 0), resource)} "
            + ("is" if resource != "pods" else "slots are")
            + " free"
            for resource, (wanted, free) in self.shortfall.items()
        )
        return f"{self.cannot_help.label} ({numbers})"


def rejected_groups(ex: Explanation) -> list[RejectedGroup]:
    """The nodes that failed a filter (the nominated node left out: preemption made room
    there), grouped by identical reasons and what preemption could do there.

    Largest groups first; the order is stable, so a group's index works in a URL. The
    page and the CLI text both count these groups.
    """
    groups: dict[tuple[tuple[str, ...], str], list[str]] = {}
    verdicts: dict[tuple[tuple[str, ...], str], CannotHelp | None] = {}
    shortfalls: dict[tuple[tuple[str, ...], str], dict[str, list[int]]] = {}
    for r in ex.other_rejected_nodes():
        key = (tuple(r.filter.reasons), r.cannot_help.value if r.cannot_help else "")
        groups.setdefault(key, []).append(r.node)
        verdicts[key] = r.cannot_help
        most = shortfalls.setdefault(key, {})
        for resource, (wanted, free) in r.shortfall.items():
            if resource not in most or free > most[resource][1]:
                most[resource] = [wanted, free]
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0][1], kv[0][0]))
    return [
        RejectedGroup(
            index=i,
            reasons=list(k[0]),
            cannot_help=verdicts[k],
            nodes=nodes,
            shortfall=shortfalls.get(k, {}),
        )
        for i, (k, nodes) in enumerate(ordered)
    ]


# --- quantities -------------------------------------------------------------------------------------


def format_requests(requests: dict[str, int] | None) -> str:
    if not requests:
        return "—"
    order = ["cpu", "memory", "ephemeral-storage"]
    keys = [k for k in order if k in requests] + sorted(k for k in requests if k not in order)
    return ", ".join(f"{k} {format_quantity(requests[k], k)}" for k in keys)


@dataclass
class VictimRow:
    victim: VictimDetail
    requests_text: str


def victim_notes(ex: Explanation) -> list[str]:
    """What evicting the victims really does: how long they take to go, how equally
    important ones were ordered, and the DaemonSet pods their owner puts straight back."""
    return [n for n in (grace_note(ex), equal_victims_note(ex), *daemon_notes(ex)) if n]


def grace_note(ex: Explanation) -> str:
    """Victims keep running, and holding their room, for their grace period after the
    deletion: the pod waits nominated meanwhile, and another may take the room."""
    graces = [(v.grace_seconds, v.key) for v in ex.victim_details if v.grace_seconds]
    if not graces or ex.node is None:
        return ""
    longest, who = max(graces)
    whose = (
        f"its grace period ({who}: terminationGracePeriodSeconds {longest})"
        if len(ex.victim_details) == 1
        else f"the longest grace period among them ({who}: terminationGracePeriodSeconds {longest})"
    )
    return (
        f"The victims take up to {duration_text(longest)} to go: each keeps running, and "
        f"keeps its room on {ex.node}, until {whose} ends. Meanwhile the pod waits, "
        f"nominated to {ex.node}, and binds once they are gone; a pod of higher priority "
        "submitted meanwhile may take the room first, and a pod of lower priority may land "
        "on another node. A workload what-if with “Keep time” shows when each pod runs."
    )


def equal_victims_note(ex: Explanation) -> str:
    """Victims of the same priority started in the same second: kube-scheduler's order
    among them (its cache's list order, then Go's sort.Slice) decided which were spared."""
    groups: dict[tuple[int, str], list[str]] = {}
    for v in ex.victim_details:
        if v.start_time:
            groups.setdefault((v.priority, v.start_time[:19]), []).append(v.key)
    ties = [(k, keys) for k, keys in groups.items() if len(keys) > 1]
    if not ties:
        return ""
    (priority, second), keys = max(ties, key=lambda t: len(t[1]))
    return (
        f"{len(keys)} victims have priority {priority} and started in the same second "
        f"({second.replace('T', ' ')}): {join_names(keys, limit=NAMES_IN_A_SENTENCE)}. "
        "kube-scheduler orders such equally important pods as its cache holds them (the "
        "API server's list order, by namespace and name, then in the order they were bound) "
        "reordered by Go's sort.Slice, which is not stable; which of them are spared "
        "follows that order, and this answer follows it too."
    )


def duration_text(seconds: float) -> str:
    """ "30 s", "2 min 5 s", "1 h 4 min": a wait as a reader says it."""
    s = round(seconds)
    if s < 60:
        return f"{seconds:.0f} s" if seconds >= 1 else f"{seconds * 1000:.0f} ms"
    if s < 3600:
        m, rest = divmod(s, 60)
        return f"{m} min {rest} s" if rest else f"{m} min"
    h, rest = divmod(s, 3600)
    return f"{h} h {rest // 60} min" if rest // 60 else f"{h} h"


def daemon_notes(ex: Explanation) -> list[str]:
    """A DaemonSet's pod is made again for the same node (it is pinned there), where the
    preemptor now holds the room, so it stays pending and the node loses its daemon."""
    daemons = [v for v in ex.victim_details if (v.owner or "").startswith("DaemonSet/")]
    if not daemons:
        return []
    if len(daemons) == 1:
        (v,) = daemons
        return [
            f"{v.key} belongs to {v.owner}: the DaemonSet makes it again for {ex.node} "
            "itself (its pods are pinned to their node), where it no longer fits while the "
            "preempting pod runs, so it stays pending and the node goes without that daemon."
        ]
    owners = join_names([(v.owner or "").removeprefix("DaemonSet/") for v in daemons], limit=4)
    return [
        f"{len(daemons)} victims belong to DaemonSets ({owners}): each DaemonSet makes its "
        f"pod again for {ex.node} itself (its pods are pinned to their node), where they no "
        "longer fit while the preempting pod runs, so they stay pending and the node goes "
        "without those daemons."
    ]


def victim_rows(ex: Explanation) -> list[VictimRow]:
    return [VictimRow(v, format_requests(v.requests)) for v in ex.victim_details]


# --- the before/after picture ----------------------------------------------------------------------


def _svg_resources(view: NodeResources) -> list[str]:
    alloc = view.allocatable
    pre = view.pod_requests
    names = ["cpu", "memory"]
    for k in sorted(pre):
        if k not in names and alloc.get(k):
            names.append(k)
    return [n for n in names if alloc.get(n) or pre.get(n)]


def capacity_svg(
    view: NodeResources | None, victims: Sequence[VictimDetail], *, outcome: Outcome
) -> SafeString:
    """Two bars per resource (before, after) of the chosen node: other pods, victims, the pod.

    Before: the pods as they run, victims highlighted. After: victims gone,
    the pending pod placed. Drawn on the server; no script needed.
    """
    if view is None:
        return mark_safe("")
    resources = _svg_resources(view)
    alloc = view.allocatable
    requested = view.requested_before
    pre = view.pod_requests
    victims = [v for v in victims if not v.missing]
    width, left, bar_w, bar_h, gap = 760, 150, 480, 22, 10
    row_h = 2 * bar_h + gap + 34
    height = 40 + row_h * len(resources) + 30
    parts = [
        format_html(
            '<svg class="capacity" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" '
            'width="100%" role="img" aria-labelledby="capacity-title">',
            width,
            height,
        ),
        format_html(
            '<title id="capacity-title">Node {} before and after: requests against allocatable</title>',
            view.node,
        ),
    ]
    legend = [("seg-other", "other pods")]
    if victims:
        legend.append(("seg-victim", "victims (evicted)"))
    legend += [("seg-pod", "the pending pod"), ("seg-free", "free")]
    x = left
    for cls, text in legend:
        parts.append(format_html('<rect class="{}" x="{}" y="8" width="12" height="12"/>', cls, x))
        parts.append(format_html('<text x="{}" y="18" class="legend">{}</text>', x + 16, text))
        x += 140
    y = 40
    for res in resources:
        cap = int(alloc.get(res) or 0)
        used = int(requested.get(res) or 0)
        victim_sum = sum(int(v.requests.get(res) or 0) for v in victims)
        pod = int(pre.get(res) or 0)
        scale_max = max(cap, used, used - victim_sum + pod, 1)

        def w(amount: int, scale: int = scale_max) -> float:
            return round(bar_w * max(amount, 0) / scale, 2)

        parts.append(
            format_html(
                '<text x="0" y="{}" class="res">{}</text><text x="0" y="{}" class="cap">'
                "allocatable {}</text>",
                y + 14,
                res,
                y + 30,
                format_quantity(cap, res),
            )
        )
        for label, segments, yy in (
            ("before", [("seg-other", used - victim_sum, "other pods")], y),
            (
                "after",
                [("seg-other", used - victim_sum, "other pods"), ("seg-pod", pod, "pending pod")],
                y + bar_h + gap,
            ),
        ):
            parts.append(
                format_html('<text x="{}" y="{}" class="when">{}</text>', left - 46, yy + 15, label)
            )
            parts.append(
                format_html(
                    '<rect class="track" x="{}" y="{}" width="{}" height="{}"/>',
                    left,
                    yy,
                    w(cap),
                    bar_h,
                )
            )
            cx = float(left)
            segs = list(segments)
            if label == "before":
                for v in victims[:SVG_MAX_LABELLED_VICTIMS]:
                    segs.append(("seg-victim", int(v.requests.get(res) or 0), v.key))
                rest = sum(
                    int(v.requests.get(res) or 0) for v in victims[SVG_MAX_LABELLED_VICTIMS:]
                )
                if rest:
                    segs.append(
                        (
                            "seg-victim",
                            rest,
                            f"{len(victims) - SVG_MAX_LABELLED_VICTIMS} more victims",
                        )
                    )
            for cls, amount, title in segs:
                if amount <= 0:
                    continue
                ww = w(amount)
                parts.append(
                    format_html(
                        '<rect class="{}" x="{}" y="{}" width="{}" height="{}">'
                        "<title>{}: {}</title></rect>",
                        cls,
                        cx,
                        yy,
                        ww,
                        bar_h,
                        title,
                        format_quantity(amount, res),
                    )
                )
                cx += ww
            total = (used - victim_sum) + (victim_sum if label == "before" else pod)
            over = cap and total > cap
            parts.append(
                format_html(
                    '<text x="{}" y="{}" class="total{}">{} / {}</text>',
                    left + bar_w + 8,
                    yy + 15,
                    " over" if over else "",
                    format_quantity(total, res),
                    format_quantity(cap, res),
                )
            )
        y += row_h
    if outcome == Outcome.PREEMPTS:
        caption = f"{plural(len(victims), 'victim')} evicted to make room"
    else:
        caption = "the pod fits without evicting anything"
    parts.append(format_html('<text x="0" y="{}" class="caption">{}</text>', height - 8, caption))
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(str(p) for p in parts))
