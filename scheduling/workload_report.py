"""The plain-text report of a workload what-if (``manage.py whatif --format text``): the
page's sentences from the same presenters over the same run."""

from __future__ import annotations

from scheduling import presenters
from scheduling import workload_presenters as wp
from scheduling.report_escaping import plain
from scheduling.timeline_presenters import waits_sentences
from scheduling.workloads import WorkloadRun


def render_workload_text(run: WorkloadRun) -> str:
    lines = [
        wp.workload_sentence(run) + ".",
        *waits_sentences(run),
        wp.stop_reason_text(run),
        *(f"Note: {h}." for h in presenters.hypothetical_class_lines(run.hypothetical_classes)),
        "",
    ]
    lines.append("Cycles:")
    for y in run.cycles:
        where = y.node or y.nominated_node or "-"
        extra = f"; evicts {', '.join(y.victims)}" if y.victims else ""
        at = f"{y.at:>10.3f}s  " if y.at is not None else ""
        lines.append(f"  {y.cycle:>4}  {at}{y.pod}  {y.result.value} {where}{extra}")
    if run.pdb_report:
        lines += ["", "PodDisruptionBudgets:"]
        lines += [f"  {wp.pdb_paragraph(r)}" for r in run.pdb_report]
    groups = wp.victim_groups(run)
    if groups:
        lines += ["", "Victims by owner:"]
        for g in groups:
            pdbs = f" (PDB {', '.join(g.pdbs)})" if g.pdbs else ""
            lines.append(f"  {g.namespace} {g.label}: {len(g.victims)} evicted{pdbs}")
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
