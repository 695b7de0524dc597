"""What the "how many fit?" page shows of a capacity answer: the sentence, the cost curve
(server-side SVG, as the other pictures), the replicas' rows and the every-class table.
The page, the shared page and the analyses list (its summary) read these."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from scheduling.engine.capacity import Capacity, CurvePoint, Placement, RoomByClass
from scheduling.engine.message import read_fit_error
from scheduling.engine.quantity import size_words
from scheduling.engine.words import join_names, plural
from scheduling.presenters.workload import text_width

# Fills of the victims' classes in the curve, lowest-priority class first (as stacked).
CLASS_FILLS = ("#d9534f", "#f0ad4e", "#8e6bbf", "#3a9d8f", "#5b6474", "#c2185b")


size_text = size_words  # "2 CPU, 4Gi": the one way a pod's size is written


def template_text(answer: Capacity) -> str:
    """ "this 2 CPU, 4Gi cat-3 pod"."""
    t = answer.template
    klass = t.priority_class or f"priority {t.priority}"
    return f"this {size_text(dict(t.requests))} {klass} pod"


def classes_text(classes: Sequence[str]) -> str:
    return join_names(list(classes), limit=4)


def capacity_sentence(answer: Capacity) -> str:
    """ "12 replicas of this 2 CPU, 4Gi cat-3 pod fit as the cluster stands; 20 more fit by
    preempting 31 pods of cat-1 and cat-2, exceeding 2 PDBs; 68 cannot be placed within the
    limit of 100"."""
    what = template_text(answer)
    if answer.fit_now:
        parts = [f"{plural(answer.fit_now, 'replica')} of {what} fit as the cluster stands"]
    else:
        parts = [f"No replica of {what} fits as the cluster stands"]
    last = answer.curve[-1] if answer.curve else None
    if answer.fit_by_preempting and last is not None:
        more = "more " if answer.fit_now else ""
        placed_by = f"{answer.fit_by_preempting} {more}fit by preempting"
        if last.victims_total:
            classes = [c for c in answer.victim_classes[::-1] if last.victims_by_class.get(c)]
            placed_by += f" {plural(last.victims_total, 'pod')} of {classes_text(classes)}"
        else:
            placed_by += " (on room earlier preemptions left free)"
        if last.pdbs_exceeded:
            placed_by += f", exceeding {plural(last.pdbs_exceeded, 'PDB')}"
        parts.append(placed_by)
    elif answer.fit_now and answer.template.preemption_policy == "Never":
        parts.append("none more by preempting (its preemptionPolicy is Never)")
    elif answer.fit_now:
        parts.append("none more by preempting")
    if answer.unplaced:
        left = f"{answer.unplaced} cannot be placed within the limit of {answer.limit}"
        if answer.unplaced_reasons:
            # kube-scheduler's own words for most of them: "0/4 nodes are available: ...".
            left += f" ({answer.unplaced_reasons[0].filters})"
        parts.append(left)
    else:
        parts.append(f"all {answer.limit} asked for were placed: raise the limit to find the end")
    sentence = "; ".join(parts)
    wasted = answer.wasted_victims
    if wasted:
        sentence += (
            f" ({plural(len(wasted), 'more pod')} were preempted by replicas that then "
            "found no room)"
        )
    return sentence


def room_sentence(table: RoomByClass) -> str:
    """The every-class table in one line, for the lists and the API's summary."""
    if not table.rows:
        # Only a table stored before the no-class row was asked has no row.
        return "The snapshot has no PriorityClass of its users' own to compare."
    size = f"{table.size.cpu} CPU, {table.size.memory}"
    best = max(table.rows, key=lambda r: (r.fit_now + r.fit_by_preempting, r.value))
    placed = best.fit_now + best.fit_by_preempting
    classes = plural(sum(1 for r in table.rows if r.priority_class), "class", "classes")
    if len(table.rows) == 1 and table.rows[0].priority_class is None:
        # A cluster without classes of its own: the one tier is the default priority's.
        sentence = (
            f"Room for a {size} pod naming no class (priority {best.value}: the snapshot has "
            f"no PriorityClass of its own), up to {table.limit} replicas: {best.fit_now} fit "
            f"as the cluster stands, {best.fit_by_preempting} more by preempting"
        )
    else:
        where = classes if table.rows[-1].priority_class else f"{classes} and with no class"
        sentence = (
            f"Room for a {size} pod in {where}, up to {table.limit} replicas each: "
            f"{best.fit_now} fit as the cluster stands; {best.tier} places the most, "
            f"{placed} ({best.fit_by_preempting} by preempting "
            f"{plural(best.victims_total, 'pod')})"
        )
    if best.unplaced and best.unplaced_why:
        read = read_fit_error(best.unplaced_why)
        sentence += f"; {best.unplaced} left ({read.filters if read else best.unplaced_why})"
    return sentence


def room_unplaced(table: RoomByClass) -> list[tuple[list[str], str]]:
    """The by-class table's reasons for the replicas left: each FailedScheduling message
    with the tiers whose replicas most ended on it, in the table's order."""
    tiers: dict[str, list[str]] = {}
    for r in table.rows:
        if r.unplaced and r.unplaced_why:
            tiers.setdefault(r.unplaced_why, []).append(r.tier)
    return [(names, message) for message, names in tiers.items()]


def stop_text(answer: Capacity) -> str:
    if answer.stop_reason == "queue-empty":
        return "The run ended with every replica placed."
    if answer.stop_reason == "no-progress-after-flush":
        return (
            "The run ended when nothing more could move: the replicas left pending were "
            "retried after the 5-minute leftover flush and failed again."
        )
    return (
        f"The run stopped at the cycle limit after {plural(answer.cycles, 'cycle')}; the "
        "replicas placed by then are shown."
    )


@dataclass(frozen=True)
class ReplicaRow:
    point: CurvePoint
    new_pdbs: bool  # this replica took one more PDB past its budget

    @property
    def now(self) -> bool:
        return self.point.placement is Placement.NOW


def replica_rows(answer: Capacity) -> list[ReplicaRow]:
    rows, before = [], 0
    for p in answer.curve:
        rows.append(ReplicaRow(p, p.pdbs_exceeded > before))
        before = p.pdbs_exceeded
    return rows


def class_fills(answer: Capacity) -> list[tuple[str, str]]:
    """(class, fill) for each victim class, lowest priority first (the stacking order)."""
    return [
        (c, CLASS_FILLS[i % len(CLASS_FILLS)]) for i, c in enumerate(answer.victim_classes[::-1])
    ]


def _clears(x: float, previous: float, label: str, size: float = 12) -> bool:
    """Whether a label centred at ``x`` stands clear of one as wide centred at ``previous``."""
    return x - previous >= text_width(label, size) + 6


def curve_svg(answer: Capacity) -> SafeString:
    """The cost curve: replicas placed on x (up to the limit), the victims taken so far on
    y, stacked by their class (lowest priority at the bottom); a band over the replicas
    that fit as the cluster stands, a dashed line where a PDB went past its budget. Laid
    out from its labels' lengths."""
    fills = class_fills(answer)
    last = answer.curve[-1] if answer.curve else None
    top_victims = last.victims_total if last else 0
    y_max = max(top_victims, 1)
    legend = [("fits as the cluster stands", "#dce7fb"), *fills]
    legend_w = [text_width(label, 12) + 28 for label, _ in legend]
    caption = (
        "replicas placed, in binding order (grey bar: placed; red: cannot be placed within "
        f"the limit of {answer.limit}) · dashed line: a PDB taken past its budget"
    )
    left, right, top, plot_h = 56, 24, 40, 260
    plot_w = max(640.0, sum(legend_w) - left, text_width(caption, 12) + 10)
    width = left + plot_w + right
    height = top + plot_h + 66
    step = plot_w / max(answer.limit, 1)
    parts = [
        format_html(
            '<svg class="curve" id="curve-svg" xmlns="http://www.w3.org/2000/svg" '
            'viewBox="0 0 {} {}" width="100%" role="img" aria-labelledby="curve-title">'
            '<title id="curve-title">Replicas placed (x) against the pods preempted to place '
            "them (y), by class</title>",
            round(width),
            height,
        )
    ]
    x = 0.0
    for (label, fill), w in zip(legend, legend_w, strict=True):
        parts.append(
            format_html(
                '<rect x="{}" y="6" width="14" height="14" fill="{}"/>'
                '<text class="legend" x="{}" y="18"{}>{}</text>',
                round(x, 1),
                fill,
                round(x + 18, 1),
                format_html(' data-class="{}"', label) if label in dict(fills) else "",
                label,
            )
        )
        x += w
    base = top + plot_h

    def y_of(n: float) -> float:
        return round(base - plot_h * n / y_max, 2)

    # Axes and the y ticks.
    ticks = sorted({0, y_max, *(round(y_max * k / 4) for k in range(1, 4))})
    for t in ticks:
        parts.append(
            format_html(
                '<line class="grid" x1="{}" x2="{}" y1="{}" y2="{}"/>'
                '<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>',
                left,
                round(left + plot_w, 1),
                y_of(t),
                y_of(t),
                left - 6,
                y_of(t) + 4,
                t,
            )
        )
    if answer.fit_now:
        parts.append(
            format_html(
                '<rect class="now" x="{}" y="{}" width="{}" height="{}" fill="#dce7fb">'
                "<title>{} fit as the cluster stands</title></rect>",
                left,
                top,
                round(step * answer.fit_now, 2),
                plot_h,
                plural(answer.fit_now, "replica"),
            )
        )
    for p in answer.curve:
        x0 = round(left + step * (p.replica - 1), 2)
        w = max(round(step, 2), 0.5)
        y0 = 0
        title = (
            f"replica {p.replica}: {p.pod} on {p.node}; {plural(p.victims_total, 'pod')} "
            f"preempted so far, {plural(p.apps_hit, 'app')} hit, "
            f"{plural(p.pdbs_exceeded, 'PDB')} exceeded"
        )
        parts.append(
            format_html('<g class="replica" data-replica="{}"><title>{}</title>', p.replica, title)
        )
        for klass, fill in fills:
            n = p.victims_by_class.get(klass, 0)
            if not n:
                continue
            parts.append(
                format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" fill="{}" data-class="{}"/>',
                    x0,
                    y_of(y0 + n),
                    w,
                    round(y_of(y0) - y_of(y0 + n), 2),
                    fill,
                    klass,
                )
            )
            y0 += n
        parts.append(
            format_html(
                '<rect class="placed" x="{}" y="{}" width="{}" height="4"/></g>',
                x0,
                base + 2,
                w,
            )
        )
    last_label = -100.0
    for row in replica_rows(answer):
        if not row.new_pdbs:
            continue
        xm = round(left + step * row.point.replica - step / 2, 2)
        parts.append(
            format_html(
                '<line class="pdb-mark" x1="{}" x2="{}" y1="{}" y2="{}" data-replica="{}">'
                "<title>replica {}: {} exceeded so far</title></line>",
                xm,
                xm,
                top,
                base,
                row.point.replica,
                row.point.replica,
                plural(row.point.pdbs_exceeded, "PDB"),
            )
        )
        # The count above the line, unless the previous count stands too close (the line
        # keeps its title).
        label = str(row.point.pdbs_exceeded)
        if _clears(xm, last_label, label):
            last_label = xm
            parts.append(
                format_html(
                    '<text class="pdb-mark" x="{}" y="{}" text-anchor="middle">{}</text>',
                    xm,
                    top - 4,
                    label,
                )
            )
    if answer.unplaced:
        x0 = left + step * len(answer.curve)
        parts.append(
            format_html(
                '<rect class="unplaced" x="{}" y="{}" width="{}" height="4"/>',
                round(x0, 2),
                base + 2,
                round(step * answer.unplaced, 2),
            )
        )
    # The x axis: replica numbers at the ends and where the free room ends.
    marks = sorted({1, answer.limit, *([answer.fit_now] if answer.fit_now else [])})
    if answer.curve and len(answer.curve) not in marks:
        marks.append(len(answer.curve))
    last_x = -100.0
    for m in sorted(marks):
        xm = left + step * m - step / 2
        if not _clears(xm, last_x, str(answer.limit), size=11):
            continue
        last_x = xm
        parts.append(
            format_html(
                '<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>',
                round(xm, 1),
                base + 20,
                m,
            )
        )
    parts.append(
        format_html('<text class="caption" x="{}" y="{}">{}</text>', left, base + 44, caption)
    )
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(str(p) for p in parts))
