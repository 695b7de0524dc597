"""What the workload result page shows of a stored run: the sentence, the PDB report in
words, the victims by owner, the picture of the run. The page, the shared page and
``whatif --format text`` all read these, so they say the same thing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from scheduling.analyses.workloads import NodeChange, VictimInfo, WorkloadRun
from scheduling.constants import VICTIMS_LISTED_PER_GROUP, WORKLOAD_SVG_MAX_CYCLES
from scheduling.engine.quantity import format_quantity
from scheduling.engine.simulate import CycleResult, PDBReport
from scheduling.engine.words import join_names, plural


def app_of(victim: VictimInfo) -> str:
    """What a reader calls an app: the victim's owner in its namespace, or the pod itself."""
    return f"{victim.namespace}/{victim.owner}" if victim.owner else victim.pod


def workload_sentence(run: WorkloadRun) -> str:
    """ "9 of 10 replicas run; 14 pods of 3 apps evicted; PDB default/web-pdb exceeded by 4"."""
    total = len(run.submitted)
    parts = [f"{run.bound_count} of {plural(total, 'replica')} run"]
    if run.victims:
        apps = {app_of(v) for v in run.victims}
        parts.append(f"{plural(len(run.victims), 'pod')} of {plural(len(apps), 'app')} evicted")
    else:
        parts.append("nothing evicted")
    for r in run.exceeded_pdbs:
        parts.append(f"PDB {r.pdb} exceeded by {r.overrun}")
    sentence = "; ".join(parts)
    if run.stop_reason.value == "cycle-limit":
        sentence += " (stopped at the cycle limit)"
    return sentence


def cascade_sentence(run: WorkloadRun) -> str:
    """With the victims recreated: the owners that ended with fewer pods running than
    they had, the key fact of a cascade ("router-default 2 -> 0 running"), for the
    headline; "" without the cascade or when every owner got its pods back."""
    if not run.recreate_victims:
        return ""
    lost = [o for o in run.owners if o.after < o.before]
    if not lost:
        return "With the victims recreated by their controllers, every owner ends as it began."
    shown = join_names(
        [f"{o.namespace}/{o.owner} {o.before} → {o.after} running" for o in lost], limit=4
    )
    return f"With the victims recreated by their controllers, {plural(len(lost), 'owner')} end with fewer pods running: {shown}."


def stop_reason_text(run: WorkloadRun) -> str:
    reason = run.stop_reason.value
    if reason == "queue-empty":
        return "The run ended with the scheduling queue empty: every pod was bound."
    if reason == "no-progress-after-flush":
        return (
            "The run ended when nothing could make progress: the pods left pending were "
            "moved back by the 5-minute leftover flush and failed again."
        )
    return (
        f"The run stopped at the cycle limit after {plural(len(run.cycles), 'cycle')}: a "
        "cascade of recreated victims would otherwise go on. Its result up to there is "
        "shown; it is not a failure."
    )


# kube-scheduler's own words a reader meets on a workload page, and what they mean.
_GLOSSARY = (
    (
        "5-minute leftover flush",
        "kube-scheduler moves a pod that has waited 5 minutes in its unschedulable queue "
        "back for another try, whether or not the cluster changed (the flush).",
    ),
    (
        "no new claims to deallocate",
        "the DynamicResources plugin's part of every v1.35 FailedScheduling message: no "
        "pod here uses devices (ResourceClaims), so there is nothing it could free.",
    ),
    (
        "untolerated taint",
        "the node carries a taint (control-plane nodes do, not-ready nodes get one) that "
        "the pod does not tolerate, so it is never a candidate, with or without preemption.",
    ),
)


def glossary(run: WorkloadRun) -> list[tuple[str, str]]:
    """The words of _GLOSSARY that this run's page shows, with what they mean."""
    shown = stop_reason_text(run) + " ".join(y.message for y in run.cycles if y.message)
    return [(term, meaning) for term, meaning in _GLOSSARY if term in shown]


def pdb_paragraph(report: PDBReport) -> str:
    """Why the scheduler counted 0 violations while the budget was exceeded, in words."""
    allowed = report.disruptions_allowed
    deleted = len(report.deleted_matching_victims)
    head = (
        f"PDB {report.pdb} allowed {plural(allowed, 'disruption')}; the run deleted "
        f"{deleted} of its pods"
    )
    if not report.exceeded:
        return head + ", within the budget."
    counted = [b.pdb_violations for b in report.cycles_beyond_budget]
    cycles = join_names([str(b.cycle) for b in report.cycles_beyond_budget])
    counted_text = (
        "0 violations"
        if not any(counted)
        else f"{sum(counted)} violation{'s' if sum(counted) != 1 else ''} in all"
    )
    return (
        f"{head}: {report.overrun} beyond the budget. In cycle"
        f"{'s' if len(report.cycles_beyond_budget) != 1 else ''} {cycles}, which took it past "
        f"the budget, the scheduler counted {counted_text}: preemption reads "
        "status.disruptionsAllowed, and the disruption controller had not updated it "
        "between fast cycles, so every cycle saw the budget of "
        f"{allowed} still untouched. Each preemption looked within budget on its own; "
        f"together they exceeded it by {report.overrun}."
    )


@dataclass
class VictimGroup:
    namespace: str
    owner: str
    victims: list[VictimInfo]
    pdbs: list[str]
    classes: list[str]

    @property
    def label(self) -> str:
        return self.owner or "pods without an owner"

    @property
    def listed(self) -> list[VictimInfo]:
        """The victims named on the page; the rest are counted (the cycles table has all)."""
        return self.victims[:VICTIMS_LISTED_PER_GROUP]

    @property
    def unlisted(self) -> int:
        return max(0, len(self.victims) - VICTIMS_LISTED_PER_GROUP)


def victim_groups(run: WorkloadRun) -> list[VictimGroup]:
    """The victims by namespace and owner, largest group first, with their PDBs."""
    groups: dict[tuple[str, str], list[VictimInfo]] = {}
    for v in run.victims:
        groups.setdefault((v.namespace, v.owner), []).append(v)
    out = [
        VictimGroup(
            namespace=ns,
            owner=owner,
            victims=vs,
            pdbs=sorted({p for v in vs for p in v.pdbs}),
            classes=sorted({v.priority_class or str(v.priority) for v in vs}),
        )
        for (ns, owner), vs in groups.items()
    ]
    out.sort(key=lambda g: (-len(g.victims), g.namespace, g.owner))
    return out


def _short(key: str) -> str:
    return key.split("/", 1)[-1]


# Width of a label in SVG units: the pictures lay out from their labels' lengths, so a
# 40-character node name gets the room it needs instead of being printed over its
# neighbour. A generous per-character width for the sans-serif at these sizes (bold
# included): a label is a little narrower than estimated, never wider.
def text_width(text: str, size: float = 12) -> float:
    return len(text) * size * 0.62


_SEPARATORS = "-."


def column_labels(names: Sequence[str], *, max_chars: int = 24) -> dict[str, str]:
    """A short label per node name that still tells them apart: the part every name
    shares at the start or the end (up to a '-' or '.') replaced by "…"
    ("ci-ln-i7gzws2-8c773-jn5dn-worker-c547l" -> "…worker-c547l" beside its siblings),
    cut in the middle beyond ``max_chars``. The whole name goes in a <title>."""
    if len(names) < 2:
        return {n: _middle_cut(n, max_chars) for n in names}
    suffix = _shared_prefix([n[::-1] for n in names])[::-1]
    # The shared end goes first ("….ec2.internal"); the shared start only if still long.
    prefix = (
        "" if max(len(n) - len(suffix) for n in names) + 1 <= max_chars else _shared_prefix(names)
    )
    out: dict[str, str] = {}
    for n in names:
        core = n[len(prefix) : len(n) - len(suffix)] if len(prefix) + len(suffix) < len(n) else n
        label = ("…" if prefix and core != n else "") + core + ("…" if suffix and core != n else "")
        out[n] = _middle_cut(label, max_chars)
    if len(set(out.values())) < len(out):  # cutting made two alike: plain cuts instead
        out = {n: _middle_cut(n, max_chars) for n in names}
    return out


def _shared_prefix(names: Sequence[str]) -> str:
    """The longest start every name shares, ending just after a separator, leaving
    a few characters of the segment that tells them apart."""
    first = min(names)
    last = max(names)
    i = 0
    while i < len(first) and i < len(last) and first[i] == last[i]:
        i += 1
    cut = max((j + 1 for j in range(i) if first[j] in _SEPARATORS), default=0)
    # Keep the last shared segment when it is short: "worker-c547l" reads better than "c547l".
    seg_start = max((j + 1 for j in range(cut - 1) if first[j] in _SEPARATORS), default=0)
    if cut - seg_start <= 8:
        cut = seg_start
    return first[:cut]


def _shortened(message: str, limit: int = 90) -> str:
    """A FailedScheduling message cut at a word within ``limit`` characters, with "…" (the
    whole of it is the label's <title>)."""
    if len(message) <= limit:
        return message
    return message[:limit].rsplit(" ", 1)[0].rstrip(",.:;") + " …"


def _middle_cut(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    keep = max_chars - 1
    return text[: keep // 2] + "…" + text[len(text) - (keep - keep // 2) :]


# Beyond this many nodes the run picture gives the busiest their own column and the
# rest one shared column (60 columns would shrink every label past reading).
RUN_SVG_MAX_NODE_COLUMNS = 12


def run_svg(run: WorkloadRun, *, max_cycles: int = WORKLOAD_SVG_MAX_CYCLES) -> SafeString:
    """The run cycle by cycle: one row a cycle, one column a node; a filled dot where a
    pod was bound, a ring on the node it preempted on (with its victims), a cross for a
    cycle that found nothing. Drawn on the server; no script needed. Laid out from its
    labels' lengths: no label is printed over another, none is cut at the edge."""
    cycles = run.cycles[:max_cycles]
    touched: Counter[str] = Counter()
    for y in cycles:
        where = y.node or y.nominated_node
        if where:
            touched[where] += 1
    nodes = sorted(touched)
    others: list[str] = []
    if len(nodes) > RUN_SVG_MAX_NODE_COLUMNS:
        # The busiest nodes get a column each; the rest share the last one, and say so.
        busiest = sorted(touched, key=lambda n: (-touched[n], n))[: RUN_SVG_MAX_NODE_COLUMNS - 1]
        others = sorted(set(nodes) - set(busiest))
        nodes = sorted(busiest)
    col = {n: i for i, n in enumerate(nodes)}
    labels = column_labels(nodes)
    if others:
        other_label = f"+{len(others)} other nodes"
        for n in others:
            col[n] = len(nodes)
        labels[other_label] = other_label
    row_texts = [
        f"cycle {y.cycle} · {_short(y.pod)}" + (f" (try {y.attempt})" if y.attempt > 1 else "")
        for y in cycles
    ]
    top, row_h = 70, 24
    left = max(260, max((text_width(t) for t in row_texts), default=0) + 16)
    col_w = max(90, max((text_width(lb, 12) for lb in labels.values()), default=0) + 14)
    columns = len(nodes) + (1 if others else 0)
    grid_right = left + col_w * max(columns, 1)
    right_texts = [
        "evicts " + join_names([_short(v) for v in y.victims], limit=3)
        for y in cycles
        if y.result is CycleResult.PREEMPTED
    ]
    fail_texts = [
        f"x {_shortened(y.message)}"
        for y in cycles
        if y.result not in (CycleResult.BOUND, CycleResult.PREEMPTED)
    ]
    width = max(
        grid_right + 20 + max((text_width(t) for t in right_texts), default=0),
        left + max((text_width(t) for t in fail_texts), default=0) + 10,
        480,
    )
    height = top + row_h * len(cycles) + 30
    parts = [
        format_html(
            '<svg class="run" id="run-svg" xmlns="http://www.w3.org/2000/svg" '
            'viewBox="0 0 {} {}" width="100%" role="img" aria-labelledby="run-title">',
            round(width),
            height,
        ),
        mark_safe(
            '<title id="run-title">The run cycle by cycle: where each replica went and '
            "whom it preempted</title>"
        ),
        mark_safe(
            '<circle class="dot-bound" cx="10" cy="12" r="6"/><text x="20" y="16" '
            'class="legend">bound</text><circle class="dot-preempt" cx="90" cy="12" r="6"/>'
            '<text x="100" y="16" class="legend">preempted (nominated)</text>'
            '<text x="260" y="16" class="legend dot-fail">&#215; unschedulable</text>'
        ),
    ]
    headers = [(n, labels[n], i) for i, n in enumerate(nodes)]
    if others:
        headers.append((", ".join(others), f"+{len(others)} other nodes", len(nodes)))
    for title, label, i in headers:
        parts.append(
            format_html(
                '<text class="node" x="{}" y="{}" text-anchor="middle"><title>{}</title>{}</text>',
                round(left + i * col_w + col_w / 2, 1),
                top - 14,
                title,
                label,
            )
        )
    for r, y in enumerate(cycles):
        cy = top + r * row_h + row_h // 2
        parts.append(
            format_html(
                '<g class="cycle" data-cycle="{}"><text x="0" y="{}" class="label">{}</text>',
                y.cycle,
                cy + 4,
                row_texts[r],
            )
        )
        if y.result is CycleResult.BOUND and y.node in col:
            cx = round(left + col[y.node] * col_w + col_w / 2, 1)
            parts.append(
                format_html(
                    '<circle class="dot-bound" cx="{}" cy="{}" r="7"><title>{} bound to {} '
                    "({})</title></circle>",
                    cx,
                    cy,
                    y.pod,
                    y.node,
                    y.host_selection or "",
                )
            )
        elif y.result is CycleResult.PREEMPTED and y.nominated_node in col:
            cx = round(left + col[y.nominated_node] * col_w + col_w / 2, 1)
            parts.append(
                format_html(
                    '<circle class="dot-preempt" cx="{}" cy="{}" r="7"><title>{} preempts on '
                    "{}: {}</title></circle>"
                    '<text class="victims" x="{}" y="{}">evicts {}</text>',
                    cx,
                    cy,
                    y.pod,
                    y.nominated_node,
                    ", ".join(y.victims),
                    round(grid_right + 8, 1),
                    cy + 4,
                    join_names([_short(v) for v in y.victims], limit=3),
                )
            )
        else:
            parts.append(
                format_html(
                    '<text class="dot-fail" x="{}" y="{}"><title>{}</title>&#215; {}</text>',
                    round(left, 1),
                    cy + 4,
                    y.message,
                    _shortened(y.message),
                )
            )
        parts.append(mark_safe("</g>"))
    if len(run.cycles) > max_cycles:
        parts.append(
            format_html(
                '<text class="caption" x="0" y="{}">The first {} of {} cycles; the table '
                "below lists them all.</text>",
                height - 8,
                max_cycles,
                len(run.cycles),
            )
        )
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(str(p) for p in parts))


def nodes_svg(nodes: Sequence[NodeChange]) -> SafeString:
    """Each touched node's CPU requests before the run and at its end, against
    allocatable: its name on a line of its own above its two bars, whatever its length."""
    if not nodes:
        return mark_safe("")
    left, bar_w, bar_h, gap, name_h = 60, 440, 16, 4, 18
    row_h = name_h + 2 * bar_h + gap + 14
    height = 10 + row_h * len(nodes)
    totals = [
        f"cpu {format_quantity(used, 'cpu')} / {format_quantity(n.cpu_allocatable, 'cpu')} · "
        + plural(count, "pod")
        for n in nodes
        for used, count in ((n.cpu_before, n.pods_before), (n.cpu_after, n.pods_after))
    ]
    width = max(
        left + bar_w + 8 + max(text_width(t, 13) for t in totals) + 6,
        max(text_width(n.node, 13) for n in nodes) + 10,
    )
    parts = [
        format_html(
            '<svg class="capacity" id="nodes-svg" xmlns="http://www.w3.org/2000/svg" '
            'viewBox="0 0 {} {}" width="100%" role="img" aria-label="CPU requests per node '
            'before and after the run">',
            round(width),
            height,
        )
    ]
    for i, n in enumerate(nodes):
        y = 10 + i * row_h
        cap = max(n.cpu_allocatable, n.cpu_before, n.cpu_after, 1)
        parts.append(format_html('<text x="0" y="{}" class="res">{}</text>', y + 12, n.node))
        for j, (label, used, cls) in enumerate(
            (("before", n.cpu_before, "seg-other"), ("after", n.cpu_after, "seg-pod"))
        ):
            yy = y + name_h + j * (bar_h + gap)
            parts.append(
                format_html(
                    '<text x="{}" y="{}" class="when">{}</text><rect class="track" x="{}" '
                    'y="{}" width="{}" height="{}"/><rect class="{}" x="{}" y="{}" width="{}" '
                    'height="{}"/><text x="{}" y="{}" class="total">cpu {} / {} · {}</text>',
                    0,
                    yy + 12,
                    label,
                    left,
                    yy,
                    round(bar_w * n.cpu_allocatable / cap, 2),
                    bar_h,
                    cls,
                    left,
                    yy,
                    round(bar_w * used / cap, 2),
                    bar_h,
                    left + bar_w + 8,
                    yy + 12,
                    format_quantity(used, "cpu"),
                    format_quantity(n.cpu_allocatable, "cpu"),
                    plural(n.pods_before if j == 0 else n.pods_after, "pod"),
                )
            )
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(str(p) for p in parts))
