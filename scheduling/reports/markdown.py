"""`whatif --format markdown`: the answer as a pull-request comment.

The same words and counts as the result page and the text report (the
sentences, tie-break rows and node groups come from ``presenters`` over the
Explanation), laid out for GitHub and GitLab: a headline, the victims as a
table, the tie-break and the other nodes folded in <details>, and the gates
that tripped, if any.
"""

from __future__ import annotations

from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine import Explanation, Outcome
from scheduling.engine.words import plural
from scheduling.presenters import pod as pod_presenters
from scheduling.presenters import workload as workload_presenters
from scheduling.presenters.timeline import waits_sentences
from scheduling.reports import volumes as volume_reports
from scheduling.reports.escaping import md_code, md_text


def _cell(text: object) -> str:
    """A table cell: text is escaped where it is made (md_text, md_code); a pipe of our
    own words would still split the cell."""
    return str(text).replace("|", "\\|")


def _name(name: str | None) -> str:
    """A name in a table cell: a code span, or a dash where there is none."""
    return md_code(name) if name else "—"


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _folded(summary: str, body: list[str]) -> list[str]:
    return ["", f"<details><summary>{summary}</summary>", "", *body, "", "</details>"]


def _gates(failures: list[str]) -> list[str]:
    if not failures:
        return []
    return ["", "**Gates that failed:**", "", *(f"- :x: {md_text(r)}" for r in failures)]


def _hypothetical(lines: list[str]) -> list[str]:
    """The what-if's own PriorityClasses: a reviewer must see the answer assumed them."""
    return ["", *(f"- {md_text(line)}" for line in lines)] if lines else []


def _devices(ex: Explanation) -> list[str]:
    """Who holds the devices the pod waits for (the sentence is the why sentence's)."""
    if ex.devices is None:
        return []
    lines: list[str] = []
    rows = [
        [
            md_code(h.pod),
            h.priority,
            md_code(c.device_class),
            h.devices,
            md_code(h.node),
            md_code(h.claim),
            _name(h.owner),
        ]
        for c in ex.devices.classes
        for h in c.holders
    ]
    if rows:
        lines += _folded(
            f"Pods holding the devices: {len(rows)}",
            _table(["Pod", "Priority", "Class", "Devices", "Node", "Claim", "Owner"], rows),
        )
    return lines


def render_markdown(ex: Explanation, *, snapshot: str, gate_failures: list[str]) -> str:
    """``snapshot``: what the snapshot is called, as Markdown the caller escaped."""
    klass = f", class {md_code(ex.priority_class)}" if ex.priority_class else ""
    lines = [
        f"### preemptlab: {md_code(ex.pod)} on {snapshot}",
        "",
        f"**{md_text(pod_presenters.outcome_sentence(ex))}** {md_text(pod_presenters.why_sentence(ex))}",
        "",
        f"Priority {ex.priority}{klass}, preemptionPolicy {md_text(ex.preemption_policy)}.",
    ]
    lines += _devices(ex)
    lines += volume_reports.pin_markdown(ex)
    lines += _hypothetical(pod_presenters.hypothetical_class_lines(ex.hypothetical_classes))
    lines += _gates(gate_failures)
    if ex.outcome == Outcome.PREEMPTS:
        lines += ["", f"#### Victims on {md_code(ex.node)}", ""]
        lines += _table(
            ["Pod", "Priority", "Class", "Requests", "PodDisruptionBudget"],
            [
                [
                    md_code(row.victim.key),
                    row.victim.priority,
                    _name(row.victim.priority_class),
                    md_text(row.requests_text),
                    (", ".join(md_code(p.pdb) for p in row.victim.pdbs) or "none")
                    + (" (violated)" if row.victim.violates_pdb else ""),
                ]
                for row in pod_presenters.victim_rows(ex)
            ],
        )
    if ex.candidates:
        rows = pod_presenters.candidate_rows(ex.candidates)
        body = _table(
            ["Node", *(c.label for c in pod_presenters.CRITERION_COLUMNS), "Verdict"],
            [
                [
                    md_code(r.node),
                    *("-" if c.value is None else md_text(c.value) for c in r.cells),
                    "chosen"
                    if r.winner
                    else f"out at {r.eliminated_by.label if r.eliminated_by else ''}",
                ]
                for r in rows
            ],
        )
        lines += _folded(f"Tie-break: {plural(len(rows), 'candidate node')}", body)
    groups = pod_presenters.rejected_groups(ex)
    if groups:
        count = sum(g.count for g in groups)
        body = _table(
            ["Nodes", "Why", "Preemption"],
            [[g.count, md_text(g.label), md_text(g.verdict)] for g in groups],
        )
        lines += _folded(f"{plural(count, 'node')} failed a filter", body)
    lines += volume_reports.nodes_markdown(ex)
    reason, message = pod_presenters.event_message(ex)
    lines += ["", f"> Event {md_text(reason)}: {md_text(message)}"]
    return "\n".join(lines) + "\n"


def render_workload_markdown(run: WorkloadRun, *, snapshot: str, gate_failures: list[str]) -> str:
    """A workload's run as a pull-request comment: the page's sentence, the gates, the
    PDB report in words, the victims by owner, the pods left pending, the cycles folded."""
    what = "; ".join(
        f"{md_text(o.kind)} {md_code(o.key)} ({plural(o.replicas, 'replica')})" for o in run.objects
    )
    lines = [
        f"### preemptlab: {what} on {snapshot}",
        "",
        f"**{md_text(workload_presenters.workload_sentence(run))}.** "
        f"{md_text(workload_presenters.stop_reason_text(run))}",
        "",
        f"Outcome: {md_code(run.outcome.value)}",
    ]
    waits = waits_sentences(run)
    if waits:
        lines += ["", *[f"- {md_text(s)}" for s in waits]]
    lines += _hypothetical(pod_presenters.hypothetical_class_lines(run.hypothetical_classes))
    lines += _gates(gate_failures)
    if run.pdb_report:
        lines += ["", "#### PodDisruptionBudgets", ""]
        lines += [f"- {md_text(workload_presenters.pdb_paragraph(r))}" for r in run.pdb_report]
    groups = workload_presenters.victim_groups(run)
    if groups:
        lines += ["", "#### Victims by owner", ""]
        lines += _table(
            ["Namespace", "Owner", "Evicted", "Class", "PodDisruptionBudget"],
            [
                [
                    md_code(g.namespace),
                    md_code(g.owner) if g.owner else g.label,
                    len(g.victims),
                    ", ".join(md_code(c) for c in g.classes),
                    ", ".join(md_code(p) for p in g.pdbs),
                ]
                for g in groups
            ],
        )
    if run.recreate_victims and run.owners:
        # The key fact of a cascade on a real cluster (an ingress at 0 of 2 running):
        # what each owner had running before the rollout and at its end.
        lines += ["", "#### The cascade: running before and at the end", ""]
        lines += _table(
            ["Owner", "Running before", "At the end"],
            [[md_code(f"{o.namespace}/{o.owner}"), o.before, o.after] for o in run.owners],
        )
    lines += volume_reports.workload_markdown(run)
    pending = run.left_pending()
    if pending:
        lines += ["", "#### Left pending", ""]
        lines += _table(
            ["Pod", "FailedScheduling"], [[md_code(p.pod), md_text(why)] for p, why in pending]
        )
    body = _table(
        ["Cycle", "Pod", "Result", "Node", "Victims"],
        [
            [
                y.cycle,
                md_code(y.pod),
                y.result.value,
                md_code(y.node or y.nominated_node or "—"),
                ", ".join(md_code(v) for v in y.victims) or "—",
            ]
            for y in run.cycles
        ],
    )
    lines += _folded(f"{plural(len(run.cycles), 'scheduling cycle')}", body)
    return "\n".join(lines) + "\n"
