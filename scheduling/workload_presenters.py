"""What the workload result page shows of a stored run: the sentence, the PDB report in
words, the victims by owner, the picture of the run. The page, the shared page and
``whatif --format text`` all read these, so they say the same thing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from scheduling.constants import VICTIMS_LISTED_PER_GROUP, WORKLOAD_SVG_MAX_CYCLES
from scheduling.engine.simulate import CycleResult, PDBReport
from scheduling.presenters import format_quantity, join_names, plural
from scheduling.workloads import NodeChange, VictimInfo, WorkloadRun


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


def run_svg(run: WorkloadRun, *, max_cycles: int = WORKLOAD_SVG_MAX_CYCLES) -> SafeString:
    """The run cycle by cycle: one row a cycle, one column a node; a filled dot where a
    pod was bound, a ring on the node it preempted on (with its victims), a cross for a
    cycle that found nothing. Drawn on the server; no script needed."""
    cycles = run.cycles[:max_cycles]
    nodes = sorted(
        {y.node for y in cycles if y.node} | {y.nominated_node for y in cycles if y.nominated_node}
    )
    col = {n: i for i, n in enumerate(nodes)}
    left, top, col_w, row_h = 260, 70, 90, 24
    width = left + col_w * max(len(nodes), 1) + 220
    height = top + row_h * len(cycles) + 30
    parts = [
        format_html(
            '<svg class="run" id="run-svg" xmlns="http://www.w3.org/2000/svg" '
            'viewBox="0 0 {} {}" width="100%" role="img" aria-labelledby="run-title">',
            width,
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
    for n, i in col.items():
        parts.append(
            format_html(
                '<text class="node" x="{}" y="{}" text-anchor="middle">{}</text>',
                left + i * col_w + col_w // 2,
                top - 14,
                n,
            )
        )
    for r, y in enumerate(cycles):
        cy = top + r * row_h + row_h // 2
        parts.append(
            format_html(
                '<g class="cycle" data-cycle="{}"><text x="0" y="{}" class="label">'
                "cycle {} · {}{}</text>",
                y.cycle,
                cy + 4,
                y.cycle,
                _short(y.pod),
                f" (try {y.attempt})" if y.attempt > 1 else "",
            )
        )
        if y.result is CycleResult.BOUND and y.node in col:
            cx = left + col[y.node] * col_w + col_w // 2
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
            cx = left + col[y.nominated_node] * col_w + col_w // 2
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
                    left + col_w * max(len(nodes), 1) + 8,
                    cy + 4,
                    join_names([_short(v) for v in y.victims], limit=3),
                )
            )
        else:
            parts.append(
                format_html(
                    '<text class="dot-fail" x="{}" y="{}">&#215; {}</text>',
                    left,
                    cy + 4,
                    y.message[:90],
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
    """Each touched node's CPU requests before the run and at its end, against allocatable."""
    if not nodes:
        return mark_safe("")
    left, bar_w, bar_h, gap = 150, 440, 16, 4
    row_h = 2 * bar_h + gap + 14
    height = 10 + row_h * len(nodes)
    parts = [
        format_html(
            '<svg class="capacity" id="nodes-svg" xmlns="http://www.w3.org/2000/svg" '
            'viewBox="0 0 {} {}" width="100%" role="img" aria-label="CPU requests per node '
            'before and after the run">',
            left + bar_w + 200,
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
            yy = y + j * (bar_h + gap)
            parts.append(
                format_html(
                    '<text x="{}" y="{}" class="when">{}</text><rect class="track" x="{}" '
                    'y="{}" width="{}" height="{}"/><rect class="{}" x="{}" y="{}" width="{}" '
                    'height="{}"/><text x="{}" y="{}" class="total">cpu {} / {} · {}</text>',
                    left - 46,
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
