"""The ladder as a picture: one rung per PriorityClass, highest value on top, each with
the share of the cluster's allocatable cpu and memory its pods request."""

from __future__ import annotations

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from planning.plan import Plan
from planning.reports import absorbed_words, in_line
from scheduling.engine.plan.apps import app_name
from scheduling.engine.plan.first_in_line import FirstInLine
from scheduling.engine.words import plural
from scheduling.presenters.workload import text_width

_BAR_W = 420
_ROW_H = 40
_TOP = 34


def _pct(share: float) -> str:
    if share <= 0:
        return "0%"
    return "<1%" if share < 0.01 else f"{share * 100:.0f}%"


def ladder_svg(plan: Plan) -> SafeString:
    """Classes by value (the system ones too), then the pods naming a deleted class and
    the pods without one, each a rung; two bars a rung: cpu (dark), memory (light)."""
    rungs: list[tuple[str, str, float, float, str, str]] = []  # label, value, cpu, mem, note, css
    for c in plan.ladder.by_value():
        notes = []
        if c.global_default:
            notes.append("default")
        if c.preemption_policy == "Never":
            notes.append("never preempts")
        notes.append(plural(c.pods, "pod"))
        rungs.append(
            (
                c.name,
                str(c.value),
                c.cpu_share,
                c.memory_share,
                " · ".join(notes),
                "rung-system" if c.builtin else "rung",
            )
        )
    for m in plan.ladder.missing:
        values = ", ".join(str(p) for p in m.priorities)
        rungs.append(
            (
                m.class_name,
                values,
                0.0,
                0.0,
                f"deleted class · {plural(m.pods, 'pod')}",
                "rung-ghost",
            )
        )
    for u in plan.ladder.unclassed:
        label = f"no class → {u.resolved_class}" if u.resolved_class else "no class"
        rungs.append((label, str(u.priority), 0.0, 0.0, plural(u.pods, "pod"), "rung-ghost"))
    if not rungs:
        return mark_safe("")
    label_w = max(160, max(text_width(r[0], 12) for r in rungs) + 12)
    value_w = max(90, max(text_width(r[1], 12) for r in rungs) + 12)
    bars_x = label_w + value_w
    width = bars_x + _BAR_W + 250
    height = _TOP + _ROW_H * len(rungs) + 10
    rows = []
    for i, (label, value, cpu, mem, note, css) in enumerate(rungs):
        y = _TOP + i * _ROW_H
        rows.append(
            format_html(
                '<g class="{}"><title>{} ({}): {} of the cpu, {} of the memory</title>'
                '<text x="0" y="{}" class="class-name">{}</text>'
                '<text x="{}" y="{}" class="class-value">{}</text>'
                '<rect class="track" x="{}" y="{}" width="{}" height="12"/>'
                '<rect class="bar-cpu" x="{}" y="{}" width="{}" height="12"/>'
                '<rect class="track" x="{}" y="{}" width="{}" height="12"/>'
                '<rect class="bar-memory" x="{}" y="{}" width="{}" height="12"/>'
                '<text x="{}" y="{}" class="share">{} cpu · {} memory</text>'
                '<text x="{}" y="{}" class="note">{}</text></g>',
                css,
                label,
                value,
                _pct(cpu),
                _pct(mem),
                y + 16,
                label,
                label_w,
                y + 16,
                value,
                bars_x,
                y + 4,
                _BAR_W,
                bars_x,
                y + 4,
                round(_BAR_W * min(cpu, 1.0), 1),
                bars_x,
                y + 18,
                _BAR_W,
                bars_x,
                y + 18,
                round(_BAR_W * min(mem, 1.0), 1),
                bars_x + _BAR_W + 10,
                y + 14,
                _pct(cpu),
                _pct(mem),
                bars_x + _BAR_W + 10,
                y + 28,
                note,
            )
        )
    head = format_html(
        '<svg class="ladder" id="ladder-svg" xmlns="http://www.w3.org/2000/svg" '
        'viewBox="0 0 {} {}" width="100%" role="img" aria-labelledby="ladder-title">'
        '<title id="ladder-title">The PriorityClass ladder: each class by value, with the '
        "share of the cluster's allocatable cpu and memory its pods request</title>"
        '<text x="0" y="14" class="head">class</text>'
        '<text x="{}" y="14" class="head">value</text>'
        '<rect class="bar-cpu" x="{}" y="4" width="14" height="10"/>'
        '<text x="{}" y="14" class="head">cpu requested</text>'
        '<rect class="bar-memory" x="{}" y="4" width="14" height="10"/>'
        '<text x="{}" y="14" class="head">memory requested (share of allocatable)</text>',
        round(width),
        height,
        label_w,
        bars_x,
        bars_x + 20,
        bars_x + 130,
        bars_x + 150,
    )
    return mark_safe(head + format_html_join("", "{}", ((r,) for r in rows)) + "</svg>")


# --- first in line -------------------------------------------------------------------

# Apps drawn; the table lists them all.
LINE_APPS_DRAWN = 30
# An app is labelled "namespace/name" (its kind, and the whole reference, in the row's
# <title>). Past this many characters the name is shortened at its front, never the
# namespace: "openshift-monitoring/…-monitoring-operator". The end of a name is what
# tells an operator's apps apart (…-operator, …-controller, …-webhook).
_LINE_NAME_CHARS = 44
# The least of a name's end kept, however long the namespace.
_LINE_TAIL_CHARS = 16
# How far the cut moves to fall on a word's edge ('-' or '.') rather than inside a word.
_LINE_EDGE_SLACK = 4
_LINE_BAR_W = 460
_LINE_ROW_H = 22


def app_label(app: str, chars: int = _LINE_NAME_CHARS, *, least: int = _LINE_TAIL_CHARS) -> str:
    """ "Deployment openshift-monitoring/cluster-monitoring-operator" ->
    "openshift-monitoring/…-monitoring-operator": the namespace whole, then as much of
    the name's end as ``chars`` leaves (at least ``least`` characters), the cut moved to
    a '-' or '.' when one is a few characters away."""
    namespace, name = app_name(app)
    whole = f"{namespace}/{name}"
    if len(whole) <= chars:
        return whole
    start = len(name) - max(chars - len(namespace) - 2, least)
    if start <= 0:
        return whole
    # A word's edge just before the cut (keep a little more), else just after it.
    edge = max(
        name.rfind("-", start - _LINE_EDGE_SLACK, start),
        name.rfind(".", start - _LINE_EDGE_SLACK, start),
    )
    if edge < 0:
        after = [
            i
            for i in (
                name.find("-", start, start + _LINE_EDGE_SLACK),
                name.find(".", start, start + _LINE_EDGE_SLACK),
            )
            if i >= 0
        ]
        edge = min(after, default=start)
    return whole if edge <= 0 else f"{namespace}/…{name[edge:]}"


def app_labels(apps: list[str]) -> dict[str, str]:
    """:func:`app_label` of each app, a longer end kept where two labels would read the
    same ("…-operator" twice in one namespace)."""
    least = _LINE_TAIL_CHARS
    labels = {a: app_label(a) for a in apps}
    while True:
        seen: dict[str, list[str]] = {}
        for a, label in labels.items():
            seen.setdefault(label, []).append(a)
        clashing = [a for same in seen.values() if len(same) > 1 for a in same]
        if not clashing or least > max(len(a) for a in clashing):
            return labels
        least += _LINE_EDGE_SLACK
        for a in clashing:
            labels[a] = app_label(a, least=least)


def first_in_line_svg(line: FirstInLine) -> SafeString:
    """A bar per app (the first LINE_APPS_DRAWN, in rank order) of the probe replicas it
    absorbs, on one scale up to the limit; an app beyond the limit gets a full, hatched
    bar marked "> limit", one out of reach a note instead of a bar."""
    apps = line.apps[:LINE_APPS_DRAWN]
    if not apps:
        return mark_safe("")
    labels = app_labels([a.app for a in apps])
    label_w = max(200, max(text_width(labels[a.app], 12) for a in apps) + 12)
    bars_x = label_w
    width = bars_x + _LINE_BAR_W + 170
    height = _TOP + _LINE_ROW_H * len(apps) + 8
    rows = []
    for i, a in enumerate(apps):
        y = _TOP + i * _LINE_ROW_H
        words = absorbed_words(a, line)
        said = f"absorbs {words} probe replicas"
        if a.absorbed is not None:
            w, css = _LINE_BAR_W * a.absorbed / line.limit, "absorbed"
        elif in_line(a, line):
            w, css = _LINE_BAR_W, "beyond"
        else:
            # Out of reach, or no probe fits at its level: no bar, as nothing was placed.
            w, css, said = 0, "unreachable", words
        hit = a.first_hit
        where = f", first hit by replica {hit.replica} on {hit.node}" if hit else ""
        rows.append(
            format_html(
                '<g class="{}"><title>{} (priority {}): {}{}</title>'
                '<text x="0" y="{}" class="app-name">{}</text>'
                '<rect class="track" x="{}" y="{}" width="{}" height="12"/>'
                '<rect class="bar" x="{}" y="{}" width="{}" height="12"/>'
                '<text x="{}" y="{}" class="count">{}</text></g>',
                css,
                a.app,
                str(a.priority),
                said,
                where,
                y + 12,
                labels[a.app],
                bars_x,
                y + 2,
                _LINE_BAR_W,
                bars_x,
                y + 2,
                round(w, 1),
                bars_x + _LINE_BAR_W + 10,
                y + 12,
                words,
            )
        )
    head = format_html(
        '<svg class="first-in-line" id="first-in-line-svg" xmlns="http://www.w3.org/2000/svg" '
        'viewBox="0 0 {} {}" width="100%" role="img" aria-labelledby="first-in-line-title">'
        '<title id="first-in-line-title">The first {} apps preemption reaches: the probe '
        "replicas each absorbs before one of its pods is a victim, up to {}</title>"
        '<defs><pattern id="beyond-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="3" height="6" class="hatch"/></pattern></defs>'
        '<text x="0" y="14" class="head">app</text>'
        '<text x="{}" y="14" class="head">probe replicas absorbed (0 to {})</text>',
        round(width),
        height,
        len(apps),
        line.limit,
        bars_x,
        line.limit,
    )
    return mark_safe(head + format_html_join("", "{}", ((r,) for r in rows)) + "</svg>")
