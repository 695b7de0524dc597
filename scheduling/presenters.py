"""Turns a stored result (the contract) into what the result page shows.

Pure functions of the stored JSON: the page, the shared page and the tests
use them alike, and none of them reads the snapshot.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.core.paginator import Page, Paginator
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from scheduling.constants import CRITERIA, SVG_MAX_LABELLED_VICTIMS


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


# --- the outcome in one sentence ------------------------------------------------------


def why_preemption_cannot_help(result: dict[str, Any]) -> str:
    """The 'because ...' of an unschedulable outcome."""
    if not result.get("eligible", True):
        reason = (result.get("ineligible_reason") or "it is not eligible").rstrip(".")
        if reason.startswith("not eligible"):
            reason = "the pod is " + reason
        return reason
    rejected = result.get("rejected_nodes") or []
    if not rejected:
        return "the snapshot has no nodes to run it on"
    hopeless = [r for r in rejected if not r.get("preemption_can_help")]
    if len(hopeless) == len(rejected):
        top = Counter(reason for r in hopeless for reason in r.get("reasons") or [])
        common = "; ".join(reason for reason, _ in top.most_common(2))
        return (
            f"every node fails for a reason evicting pods cannot fix ({common})"
            if common
            else "every node fails for a reason evicting pods cannot fix"
        )
    return (
        "even with every lower-priority pod removed, no node where it could help "
        "would have room for it"
    )


def outcome_sentence(result: dict[str, Any]) -> str:
    outcome = result.get("outcome")
    node = result.get("node")
    if outcome == "fits":
        others = len(result.get("feasible_nodes") or []) - 1
        tail = f" ({_plural(others, 'other node')} would fit too)" if others > 0 else ""
        return f"Fits on {node}{tail}."
    if outcome == "preempts":
        victims = len(result.get("victims") or [])
        text = f"Preempts {_plural(victims, 'pod')} on {node}"
        pdb = int(result.get("pdb_violations") or 0)
        if pdb:
            text += f", violating {_plural(pdb, 'PodDisruptionBudget')}"
        return text + "."
    return f"Cannot be scheduled, and preemption would not help because {why_preemption_cannot_help(result)}."


def event_message(result: dict[str, Any]) -> tuple[str, str]:
    """(reason, message) of the event kube-scheduler would record for the pod."""
    if result.get("outcome") == "fits":
        return "Scheduled", f"Successfully assigned {result.get('pod')} to {result.get('node')}"
    return "FailedScheduling", result.get("message") or ""


# --- the tie-break table ------------------------------------------------------------------


@dataclass
class Cell:
    value: Any
    eliminator: bool = False


@dataclass
class CandidateRow:
    rank: int
    node: str
    winner: bool
    eliminated_by: str | None
    eliminated_label: str
    victims: list[str]
    cells: list[Cell] = field(default_factory=list)


CRITERION_COLUMNS = [c for c in CRITERIA if c[2]]
CRITERION_LABELS = {c[0]: c[1] for c in CRITERIA}


def candidate_rows(candidates: list[dict[str, Any]], *, start: int = 0) -> list[CandidateRow]:
    rows = []
    for i, cand in enumerate(candidates):
        elim = cand.get("eliminated_by")
        row = CandidateRow(
            rank=start + i + 1,
            node=cand.get("node", ""),
            winner=elim is None,
            eliminated_by=elim,
            eliminated_label=CRITERION_LABELS.get(elim or "", elim or ""),
            victims=list(cand.get("victims") or []),
        )
        for key, _label, attr, _text in CRITERION_COLUMNS:
            row.cells.append(Cell(cand.get(attr), eliminator=(elim == key)))
        rows.append(row)
    return rows


def criteria_help() -> list[dict[str, str]]:
    return [{"key": k, "label": label, "text": text} for k, label, _attr, text in CRITERIA]


def paginate(items: list[Any], *, page: Any, per_page: int) -> Page[Any]:
    return Paginator(items, per_page).get_page(page)


# --- other nodes, grouped by reason ----------------------------------------------------------


@dataclass
class RejectedGroup:
    index: int
    reasons: list[str]
    preemption_can_help: bool
    nodes: list[str]

    @property
    def count(self) -> int:
        return len(self.nodes)

    @property
    def label(self) -> str:
        return "; ".join(self.reasons) or "no reason given"


def rejected_groups(result: dict[str, Any]) -> list[RejectedGroup]:
    """Nodes that failed a filter, grouped by identical reasons and whether preemption helps.

    The chosen node is left out (it failed, but preemption made room there).
    Largest groups first; the order is stable, so a group's index works in a URL.
    """
    chosen = result.get("node") if result.get("outcome") == "preempts" else None
    groups: dict[tuple[tuple[str, ...], bool], list[str]] = {}
    for r in result.get("rejected_nodes") or []:
        if r.get("node") == chosen:
            continue
        key = (tuple(r.get("reasons") or ()), bool(r.get("preemption_can_help")))
        groups.setdefault(key, []).append(r.get("node", ""))
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0][1], kv[0][0]))
    return [
        RejectedGroup(index=i, reasons=list(k[0]), preemption_can_help=k[1], nodes=nodes)
        for i, (k, nodes) in enumerate(ordered)
    ]


# --- the sampling note ------------------------------------------------------------------------


def sampling_notes(details: dict[str, Any] | None) -> list[str]:
    notes = []
    details = details or {}
    pre = details.get("preemption") or {}
    if pre.get("sampled"):
        potential = len(pre.get("potential_nodes") or [])
        notes.append(
            f"kube-scheduler would have dry-run preemption on only "
            f"{pre.get('real_scheduler_would_sample', 0):,} of the {potential:,} nodes where it "
            "could help, starting at a random node; this analysis evaluated all of them, so the "
            "real scheduler may nominate a different (possibly worse) node."
        )
    host = details.get("host_selection")
    if isinstance(host, str) and host:
        notes.append(host)
    elif isinstance(host, dict) and host.get("sampled"):
        notes.append(
            "kube-scheduler would have stopped filtering after finding "
            f"{host.get('nodes_to_find', '?')} feasible nodes (percentageOfNodesToScore); "
            "this analysis scored every feasible node."
        )
    return notes


# --- quantities ----------------------------------------------------------------------------------

_BINARY = (("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024))
BYTE_RESOURCES = {"memory", "ephemeral-storage"}


def format_quantity(value: Any, resource: str) -> str:
    if value is None or value == "":
        return "—"
    n = int(value)
    if resource == "cpu":
        if n % 1000 == 0:
            return str(n // 1000)
        return f"{n}m"
    if resource in BYTE_RESOURCES or resource.startswith("hugepages-"):
        for suffix, size in _BINARY:
            if abs(n) >= size:
                q = n / size
                return f"{q:.0f}{suffix}" if q == int(q) else f"{q:.1f}{suffix}"
        return str(n)
    return f"{n:,}"


def format_requests(requests: dict[str, int] | None) -> str:
    if not requests:
        return "—"
    order = ["cpu", "memory", "ephemeral-storage"]
    keys = [k for k in order if k in requests] + sorted(k for k in requests if k not in order)
    return ", ".join(f"{k} {format_quantity(requests[k], k)}" for k in keys)


# --- the before/after picture ----------------------------------------------------------------------


def _svg_resources(view: dict[str, Any]) -> list[str]:
    alloc = view.get("allocatable") or {}
    pre = view.get("preemptor_requests") or {}
    names = ["cpu", "memory"]
    for k in sorted(pre):
        if k not in names and alloc.get(k):
            names.append(k)
    return [n for n in names if alloc.get(n) or pre.get(n)]


def capacity_svg(view: dict[str, Any] | None, *, outcome: str) -> SafeString:
    """Two bars per resource (before, after) of the chosen node: other pods, victims, the pod.

    Before: the pods as they run, victims highlighted. After: victims gone,
    the pending pod placed. Drawn on the server; no script needed.
    """
    if not view:
        return mark_safe("")
    resources = _svg_resources(view)
    alloc = view.get("allocatable") or {}
    requested = view.get("requested") or {}
    pre = view.get("preemptor_requests") or {}
    victims = [v for v in view.get("victims") or [] if not v.get("missing")]
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
            view.get("node", ""),
        ),
    ]
    legend = [
        ("seg-other", "other pods"),
        ("seg-victim", "victims (evicted)"),
        ("seg-pod", "the pending pod"),
        ("seg-free", "free"),
    ]
    x = left
    for cls, text in legend:
        parts.append(format_html('<rect class="{}" x="{}" y="8" width="12" height="12"/>', cls, x))
        parts.append(format_html('<text x="{}" y="18" class="legend">{}</text>', x + 16, text))
        x += 140
    y = 40
    for res in resources:
        cap = int(alloc.get(res) or 0)
        used = int(requested.get(res) or 0)
        victim_sum = sum(int((v.get("requests") or {}).get(res) or 0) for v in victims)
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
                labelled = victims[:SVG_MAX_LABELLED_VICTIMS]
                for v in labelled:
                    amt = int((v.get("requests") or {}).get(res) or 0)
                    segs.append(("seg-victim", amt, v.get("key", "")))
                rest = sum(
                    int((v.get("requests") or {}).get(res) or 0)
                    for v in victims[SVG_MAX_LABELLED_VICTIMS:]
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
    if outcome == "preempts":
        caption = f"{len(victims)} victim(s) evicted to make room"
    else:
        caption = "the pod fits without evicting anything"
    parts.append(format_html('<text x="0" y="{}" class="caption">{}</text>', height - 8, caption))
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(str(p) for p in parts))
