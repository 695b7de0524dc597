"""What a workload page shows of a run that kept time (simulate(timeline=True)): when
each pod runs and why it waited, and the picture of the run on a clock (one lane per
node: victims terminating as bars, pods bound as dots, nominations as arrows)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine.simulate import (
    Cycle,
    CycleResult,
    Nomination,
    PodOutcome,
    Termination,
)
from scheduling.engine.simulate.clock import rfc3339
from scheduling.engine.simulate.scheduler import EPOCH
from scheduling.engine.words import join_names
from scheduling.presenters.pod import duration_text
from scheduling.presenters.workload import column_labels, text_width

# Below this a pod "runs at once": the queue's own steps are milliseconds.
AT_ONCE_SECONDS = 1.0
# Lanes in the picture; the busiest nodes get one each, the rest are named below it.
TIMELINE_MAX_LANES = 12
# Groups of pods with the same wait named in the headline.
WAIT_GROUPS_SHOWN = 4


def time_zero_sentence(run: WorkloadRun) -> str:
    """When the run's clock starts, and the one rule that set it (the engine's
    clock_origin, said alike in the README); "" for a run that kept no time."""
    if run.timeline is None:
        return ""
    return (
        f"Time zero is {run.timeline.clock_origin}, the second after the snapshot's latest "
        f"pod start ({rfc3339(EPOCH)} when no pod in it has started)"
    )


@dataclass(frozen=True)
class PodWait:
    """When one submitted pod arrived and ran, and what it waited for."""

    pod: str
    arrived_at: float | None
    bound_at: float | None
    reason: str  # the end of "runs 30 s after it was submitted, <reason>"

    @property
    def waited(self) -> float | None:
        if self.arrived_at is None or self.bound_at is None:
            return None
        return self.bound_at - self.arrived_at

    @property
    def name(self) -> str:
        return self.pod.split("/", 1)[-1]

    def sentence(self) -> str:
        """ "web-0 runs 30 s after it was submitted, once its victims' grace periods end"."""
        if self.arrived_at is None:
            return f"{self.name} is never created: its controller waits for an earlier pod"
        if self.bound_at is None:
            return f"{self.name} never runs: it is still pending when the run ends"
        return f"{self.name} {self.clause()}"

    def when(self) -> str:
        """The replicas table's words, the pod named in its own column."""
        if self.arrived_at is None:
            return "never created: its controller waits for an earlier pod"
        if self.bound_at is None:
            return "still pending when the run ends"
        return self.clause().removeprefix("runs ")

    def clause(self, plural: bool = False) -> str:
        waited = self.waited or 0.0
        verb = "run" if plural else "runs"
        if waited < AT_ONCE_SECONDS:
            return f"{verb} as soon as {'they are' if plural else 'it is'} submitted"
        whose = "they were" if plural else "it was"
        return f"{verb} {duration_text(waited)} after {whose} submitted, {self.reason}"


def _reason(run: WorkloadRun, p: PodOutcome) -> str:
    """Why a bound pod waited: its own victims, pods others preempted on its node, or
    the queue's retries."""
    assert p.bound_at is not None
    own = [t for t in run.terminations if t.preemptor == p.pod and t.gone_at <= p.bound_at + 0.01]
    if own:
        return (
            "once its victim's grace period ends"
            if len(own) == 1
            else "once its victims' grace periods end"
        )
    # Gone within the second before it bound: the room it took was theirs.
    freed = [
        t
        for t in run.terminations
        if t.node == p.node and 0 <= p.bound_at - t.gone_at <= AT_ONCE_SECONDS
    ]
    if freed:
        return f"once the pods terminating on {p.node} are gone"
    tries = [y for y in run.cycles if y.pod == p.pod]
    if tries and tries[-1].after_flush:
        return "when the 5-minute leftover flush retries it"
    return "once there is room on " + (p.node or "a node")


def pod_waits(run: WorkloadRun) -> list[PodWait]:
    """Each of the workload's own pods, in submission order (empty for a run without a
    clock)."""
    if run.timeline is None:
        return []
    return [
        PodWait(
            p.pod,
            p.arrived_at,
            p.bound_at,
            _reason(run, p) if p.bound_at is not None else "",
        )
        for p in run.submitted
    ]


def waits_sentences(run: WorkloadRun, waits: list[PodWait] | None = None) -> list[str]:
    """The headline's words on time: pods that waited alike said together, longest wait
    first ("web-0, web-1 run 30 s after they were submitted, once their victims' grace
    periods end"). ``waits``: pod_waits(run), when the caller has it already."""
    if waits is None:
        waits = pod_waits(run)
    groups: dict[tuple[str, str], list[PodWait]] = {}
    for w in waits:
        if w.bound_at is None:
            continue
        groups.setdefault((w.clause(), ""), []).append(w)
    ordered = sorted(groups.values(), key=lambda ws: -(ws[0].waited or 0))
    out = []
    for ws in ordered[:WAIT_GROUPS_SHOWN]:
        names = join_names([w.name for w in ws], limit=3)
        if len(ws) == 1:
            out.append(ws[0].sentence() + ".")
        else:
            clause = (
                ws[0]
                .clause(plural=True)
                .replace(
                    "once its victim's grace period ends", "once their victims' grace periods end"
                )
                .replace("once its", "once their")
            )
            out.append(f"{names} {clause}.")
    if len(ordered) > WAIT_GROUPS_SHOWN:
        out.append("The replicas table gives every pod's times.")
    pending = [w for w in waits if w.bound_at is None]
    if pending and run.timeline is not None:
        out.append(
            f"{join_names([w.name for w in pending], limit=3)} "
            f"{'is' if len(pending) == 1 else 'are'} still pending when the run ends, "
            f"{duration_text(run.timeline.duration)} after it began."
        )
    return out


def _step(duration: float) -> float:
    """A tick every 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 30 min... about 6 to 10 ticks."""
    for step in (0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 43200):
        if duration / step <= 10:
            return step
    # Whole days: a timed run covers at most 7 days, and never more than 10 ticks.
    return 86400 * max(1, math.ceil(duration / 86400 / 10))


def timeline_svg(run: WorkloadRun) -> SafeString:
    """The run on a clock: a lane per node where something happened; a victim's grace
    period as a bar from its deletion to its end, a pod bound as a dot, a nomination as
    an arrow down into the lane. Laid out from its labels' lengths."""
    if run.timeline is None:
        return mark_safe("")
    # What each lane draws, gathered once.
    bars_on: dict[str, list[Termination]] = defaultdict(list)
    arrows_on: dict[str, list[Nomination]] = defaultdict(list)
    binds_on: dict[str, list[Cycle]] = defaultdict(list)
    for t in run.terminations:
        bars_on[t.node].append(t)
    for n in run.nominations:
        if n.to_node and n.at is not None:
            arrows_on[n.to_node].append(n)
    for c in run.cycles:
        if c.result is CycleResult.BOUND and c.node and c.at is not None:
            binds_on[c.node].append(c)
    activity = Counter(
        {
            n: len(bars_on[n]) + len(arrows_on[n]) + len(binds_on[n])
            for n in {*bars_on, *arrows_on, *binds_on}
        }
    )
    if not activity:
        return mark_safe("")
    lanes = sorted(sorted(activity, key=lambda n: (-activity[n], n))[:TIMELINE_MAX_LANES])
    hidden = len(activity) - len(lanes)
    labels = column_labels(lanes, max_chars=28)
    lane_of = {n: i for i, n in enumerate(lanes)}
    # The picture ends soon after the last bar, bind or nomination: a run that goes on
    # only to retry its pending pods (the 5-minute flush) says so below it instead.
    # A grace period that outlasts the run (it stopped first) is drawn up to its end.
    events = [min(t.gone_at, run.timeline.duration) for t in run.terminations] + [
        y.at for y in run.cycles if y.at is not None and y.result is not CycleResult.UNSCHEDULABLE
    ]
    duration = max(max(events, default=0.0) * 1.1, 1.0)
    cut = run.timeline.duration > duration * 1.05
    left = max(120, max(text_width(lb, 12) for lb in labels.values()) + 16)
    plot_w, lane_h, top = 760, 34, 44
    width = left + plot_w + 30
    height = top + lane_h * len(lanes) + 36 + (18 if hidden else 0) + (18 if cut else 0)

    def x(t: float) -> float:
        return round(left + plot_w * min(max(t, 0.0), duration) / duration, 1)

    parts = [
        format_html(
            '<svg class="timeline" id="timeline-svg" xmlns="http://www.w3.org/2000/svg" '
            'viewBox="0 0 {} {}" width="100%" role="img" aria-labelledby="timeline-title">',
            round(width),
            height,
        ),
        mark_safe(
            '<title id="timeline-title">The run on a clock: victims terminating, pods bound, '
            "nominations</title>"
            '<rect class="seg-victim" x="0" y="6" width="18" height="10"/>'
            '<text x="24" y="15" class="legend">victim terminating (grace period)</text>'
            '<circle class="dot-bound" cx="270" cy="11" r="6"/>'
            '<text x="280" y="15" class="legend">pod bound</text>'
            '<path class="arrow-nominate" d="M366 4 L366 14 M362 10 L366 15 L370 10"/>'
            '<text x="376" y="15" class="legend">nominated</text>'
        ),
    ]
    step = _step(duration)
    tick = 0.0
    axis_y = top + lane_h * len(lanes) + 4
    while tick <= duration + 1e-9:
        parts.append(
            format_html(
                '<line class="grid" x1="{}" y1="{}" x2="{}" y2="{}"/>'
                '<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>',
                x(tick),
                top - 6,
                x(tick),
                axis_y,
                x(tick),
                axis_y + 14,
                duration_text(tick) if tick else "0",
            )
        )
        tick += step
    for node, i in lane_of.items():
        y = top + i * lane_h
        parts.append(
            format_html(
                '<g class="lane" data-node="{}"><text class="node" x="0" y="{}"><title>{}'
                "</title>{}</text>",
                node,
                y + lane_h / 2 + 4,
                node,
                labels[node],
            )
        )
        for j, t in enumerate(bars_on[node]):
            bar_y = y + 4 + (j % 3) * 5
            parts.append(
                format_html(
                    '<rect class="seg-victim" data-victim="{}" x="{}" y="{}" width="{}" '
                    'height="8"><title>{} terminating from {} to {} ({}){}</title></rect>',
                    t.pod,
                    x(t.deleted_at),
                    bar_y,
                    max(2.0, round(x(t.gone_at) - x(t.deleted_at), 1)),
                    t.pod,
                    duration_text(t.deleted_at) if t.deleted_at else "0 s",
                    duration_text(t.gone_at),
                    f"grace period {t.grace_seconds} s",
                    f", preempted by {t.preemptor}" if t.preemptor else ", deleted by someone else",
                )
            )
        for n in arrows_on[node]:
            assert n.at is not None
            ax = x(n.at)
            parts.append(
                format_html(
                    '<path class="arrow-nominate" d="M{} {} L{} {} M{} {} L{} {} L{} {}">'
                    "<title>{} nominated to {} at {} (cycle {})</title></path>",
                    ax,
                    y + 2,
                    ax,
                    y + lane_h - 12,
                    ax - 4,
                    y + lane_h - 16,
                    ax,
                    y + lane_h - 11,
                    ax + 4,
                    y + lane_h - 16,
                    n.pod,
                    node,
                    duration_text(n.at),
                    n.cycle,
                )
            )
        for c in binds_on[node]:
            assert c.at is not None
            parts.append(
                format_html(
                    '<a href="#run-picture"><circle class="dot-bound" data-bound="{}" '
                    'cx="{}" cy="{}" r="6"><title>{} bound at {} (cycle {}; see the run '
                    "cycle by cycle)</title></circle></a>",
                    c.pod,
                    x(c.at),
                    y + lane_h - 8,
                    c.pod,
                    duration_text(c.at),
                    c.cycle,
                )
            )
        parts.append(mark_safe("</g>"))
    captions = []
    if cut:
        captions.append(
            f"The run goes on to {duration_text(run.timeline.duration)}, only retrying the "
            "pods left pending."
        )
    if hidden:
        captions.append(
            f"{hidden} more nodes where something happened are left out; the tables below "
            "list every pod."
        )
    for i, text in enumerate(captions):
        parts.append(
            format_html(
                '<text class="caption" x="0" y="{}">{}</text>',
                height - 4 - 18 * (len(captions) - 1 - i),
                text,
            )
        )
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(str(p) for p in parts))
