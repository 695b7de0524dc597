"""The plain-text reports of ``manage.py whatif --format text``: a pod's, a workload's and
a capacity answer's (``--capacity N``).

They say what the result pages say, in the same words and with the same counts: the
sentences, the score table, the tie-break criteria and the groups of other nodes come
from ``presenters`` over the same Explanation; a workload's from the workload and
timeline presenters over the same run.
"""

from __future__ import annotations

from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine import Explanation, Outcome
from scheduling.engine.capacity import Capacity, Placement
from scheduling.engine.words import join_names, plural
from scheduling.presenters import capacity as cp
from scheduling.presenters import pod as pod_presenters
from scheduling.presenters import workload as wp
from scheduling.presenters.timeline import waits_sentences
from scheduling.reports import volumes as volume_reports
from scheduling.reports.escaping import plain

# Nodes listed by name per group; the rest are counted.
NODES_PER_GROUP = 5


def _table(header: list[str], rows: list[list[str]], *, numeric_from: int = 1) -> list[str]:
    # Escaped before the widths are taken, so a name with a control character in it
    # (shown as \x0d, four characters) does not push its row out of its columns.
    rows = [[plain(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i >= numeric_from else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), *(line(r) for r in rows)]


def _device_lines(ex: Explanation) -> list[str]:
    """Who holds the devices the pod waits for (the sentence is the why sentence's)."""
    if ex.devices is None:
        return []
    lines = ["Pods holding the devices:"]
    for c in ex.devices.classes:
        for h in c.holders:
            lower = "lower priority" if h.lower_priority else "not lower priority"
            lines.append(
                f"  {h.pod}  priority {h.priority} ({lower})  {h.devices} of class "
                f"{c.device_class} on {h.node}  claim {h.claim}"
                + (f"  owner {h.owner}" if h.owner else "")
            )
    return lines


def render_text(ex: Explanation) -> str:
    lines: list[str] = []
    who = f"{ex.pod} (priority {ex.priority}" + (
        f", class {ex.priority_class})" if ex.priority_class else ")"
    )
    lines.append(f"{who}: {pod_presenters.outcome_sentence(ex)}")
    lines.append(pod_presenters.why_sentence(ex))
    lines += _device_lines(ex)
    lines += volume_reports.pin_text(ex)
    for notice in pod_presenters.input_notices(ex):
        lines.append(f"Notice: {notice}")
    for line in pod_presenters.hypothetical_class_lines(ex.hypothetical_classes):
        lines.append(f"Note: {line}.")
    lines.append(f"Nodes that fit as they stand: {len(ex.feasible_nodes)} of {ex.num_nodes}.")

    table = pod_presenters.score_table(ex)
    if table is not None:
        lines += ["", "Scores (highest total first):"]
        rows = [
            [r.node + (" *" if r.top else ""), *(str(s) for s in r.scores), str(r.total)]
            for r in table.rows
        ]
        lines += ["  " + row for row in _table(["Node", *table.plugins, "Total"], rows)]
        if table.tie:
            lines.append(f"  * {table.tie}.")
        if table.more:
            lines.append(f"  {plural(table.more, 'more node')} with lower totals.")

    if ex.outcome == Outcome.PREEMPTS:
        lines += ["", f"Victims on {ex.node}:"]
        for row in pod_presenters.victim_rows(ex):
            v = row.victim
            if v.missing:
                lines.append(f"  {v.key}  not found in the snapshot")
                continue
            budget = "violated" if v.violates_pdb else "allows it"
            pdbs = ", ".join(f"{p.pdb} ({budget})" for p in v.pdbs) or "no PodDisruptionBudget"
            klass = ", ".join(x for x in (v.priority_class, v.qos_class, v.owner) if x)
            lines.append(
                f"  {v.key}  priority {v.priority} ({klass})  {row.requests_text}  "
                f"started {v.start_time or '-'}  {pdbs}"
            )

    if ex.candidates:
        lines += ["", "Candidates (best first):"]
        rows = [
            [
                r.node,
                *("-" if c.value is None else str(c.value) for c in r.cells),
                "chosen"
                if r.winner
                else f"out at {r.eliminated_by.label if r.eliminated_by else ''}",
            ]
            for r in pod_presenters.candidate_rows(ex.candidates)
        ]
        header = ["Node", *(c.label for c in pod_presenters.CRITERION_COLUMNS), "Verdict"]
        lines += ["  " + row for row in _table(header, rows, numeric_from=1)]
        if len(ex.tied_nodes) > 1:
            lines.append(f"  Still tied after every criterion: {', '.join(ex.tied_nodes)}.")

    groups = pod_presenters.rejected_groups(ex)
    if groups:
        count = sum(g.count for g in groups)
        other = f" other than {ex.node}" if ex.outcome == Outcome.PREEMPTS else ""
        lines += ["", f"{plural(count, 'node')}{other} failed a filter:"]
        for g in groups:
            shown = join_names(g.nodes, limit=NODES_PER_GROUP)
            lines.append(f"  {plural(g.count, 'node')}: {g.label} [{g.verdict}]: {shown}")

    lines += volume_reports.nodes_text(ex)

    reason, message = pod_presenters.event_message(ex)
    lines += ["", f"Event {reason}: {message}"]
    for note in pod_presenters.sampling_notes(ex):
        lines.append(f"Note: {note}")
    for w in ex.warnings:
        lines.append(f"Warning: {w}")
    # Names come from files this report did not write: none may start a line of its own.
    return "\n".join(plain(line) for line in lines)


def render_workload_text(run: WorkloadRun) -> str:
    lines = [
        wp.workload_sentence(run) + ".",
        f"Outcome: {run.outcome.value}.",
        *waits_sentences(run),
        wp.stop_reason_text(run),
        *(f"Note: {h}." for h in pod_presenters.hypothetical_class_lines(run.hypothetical_classes)),
        "",
    ]
    lines.append("Cycles:")
    for y in run.cycles:
        where = y.node or y.nominated_node or "-"
        extra = f"; evicts {', '.join(y.victims)}" if y.victims else ""
        at = f"{y.at:>10.3f}s  " if y.at is not None else ""
        lines.append(f"  {y.cycle:>4}  {at}{y.pod}  {y.result.value} {where}{extra}")
    with_devices = [n for n in run.nodes if n.devices]
    if with_devices:
        lines += ["", "DRA devices per node (held before -> at the end, of all):"]
        lines += [
            f"  {n.node}: {n.devices_before} -> {n.devices_after} of {n.devices}"
            for n in with_devices
        ]
    if run.pdb_report:
        lines += ["", "PodDisruptionBudgets:"]
        lines += [f"  {wp.pdb_paragraph(r)}" for r in run.pdb_report]
    groups = wp.victim_groups(run)
    if groups:
        lines += ["", "Victims by owner:"]
        for g in groups:
            pdbs = f" (PDB {', '.join(g.pdbs)})" if g.pdbs else ""
            lines.append(f"  {g.namespace} {g.label}: {len(g.victims)} evicted{pdbs}")
    lines += volume_reports.workload_text(run)
    pending = run.left_pending()
    if pending:
        lines += ["", "Left pending:"]
        for p, why in pending:
            lines.append(f"  {p.pod}: {why}")
    if run.recreate_victims and run.owners:
        lines += ["", "The cascade (running before -> at the end):"]
        lines += [f"  {o.namespace}/{o.owner}: {o.before} -> {o.after}" for o in run.owners]
    # Names come from files this report did not write: none may start a line of its own.
    return "\n".join(plain(line) for line in lines) + "\n"


def render_capacity_text(answer: Capacity) -> str:
    """The page's sentence, then the replicas one a line."""
    lines = [cp.capacity_sentence(answer) + ".", cp.stop_text(answer), ""]
    lines.append("Replicas (victims so far, apps hit, PDBs over):")
    for p in answer.curve:
        how = "fits" if p.placement is Placement.NOW else "preempts"
        own = f"; evicts {', '.join(p.preempted)}" if p.preempted else ""
        lines.append(
            f"  {p.replica:>4}  {p.pod}  {how} on {p.node}{own}  "
            f"({p.victims_total}, {p.apps_hit}, {p.pdbs_exceeded})"
        )
    if answer.pdbs_exceeded:
        lines += ["", "Taken past their budget: " + ", ".join(answer.pdbs_exceeded)]
    if answer.unplaced_reasons:
        lines += ["", f"Cannot be placed ({answer.unplaced}), kube-scheduler's FailedScheduling:"]
        lines += [
            f"  {plural(u.replicas, 'replica')}: {u.message}" for u in answer.unplaced_reasons
        ]
    # Names come from files this report did not write: none may start a line of its own.
    return "\n".join(plain(line) for line in lines) + "\n"
