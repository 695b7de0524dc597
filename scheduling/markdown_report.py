"""`whatif --format markdown`: the answer as a pull-request comment.

The same words and counts as the result page and the text report (the
sentences, tie-break rows and node groups come from ``presenters`` over the
Explanation), laid out for GitHub and GitLab: a headline, the victims as a
table, the tie-break and the other nodes folded in <details>, and the gates
that tripped, if any.
"""

from __future__ import annotations

from scheduling import presenters, workload_presenters
from scheduling.engine import Explanation, Outcome
from scheduling.workloads import WorkloadRun


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _folded(summary: str, body: list[str]) -> list[str]:
    return ["", f"<details><summary>{summary}</summary>", "", *body, "", "</details>"]


def render_markdown(ex: Explanation, *, snapshot: str, gate_failures: list[str]) -> str:
    klass = f", class `{ex.priority_class}`" if ex.priority_class else ""
    lines = [
        f"### preemptlab: `{ex.pod}` on {snapshot}",
        "",
        f"**{presenters.outcome_sentence(ex)}** {presenters.why_sentence(ex)}",
        "",
        f"Priority {ex.priority}{klass}, preemptionPolicy {ex.preemption_policy}.",
    ]
    if gate_failures:
        lines += ["", "**Gates that failed:**", ""]
        lines += [f"- :x: {reason}" for reason in gate_failures]
    if ex.outcome == Outcome.PREEMPTS:
        lines += ["", f"#### Victims on `{ex.node}`", ""]
        lines += _table(
            ["Pod", "Priority", "Class", "Requests", "PodDisruptionBudget"],
            [
                [
                    f"`{row.victim.key}`",
                    row.victim.priority,
                    row.victim.priority_class or "—",
                    row.requests_text,
                    (", ".join(p.pdb for p in row.victim.pdbs) or "none")
                    + (" (violated)" if row.victim.violates_pdb else ""),
                ]
                for row in presenters.victim_rows(ex)
            ],
        )
    if ex.candidates:
        rows = presenters.candidate_rows(ex.candidates)
        body = _table(
            ["Node", *(c.label for c in presenters.CRITERION_COLUMNS), "Verdict"],
            [
                [
                    f"`{r.node}`",
                    *("-" if c.value is None else c.value for c in r.cells),
                    "chosen"
                    if r.winner
                    else f"out at {r.eliminated_by.label if r.eliminated_by else ''}",
                ]
                for r in rows
            ],
        )
        lines += _folded(f"Tie-break: {presenters.plural(len(rows), 'candidate node')}", body)
    groups = presenters.rejected_groups(ex)
    if groups:
        count = sum(g.count for g in groups)
        body = _table(
            ["Nodes", "Why", "Preemption"],
            [[g.count, g.label, g.verdict] for g in groups],
        )
        lines += _folded(f"{presenters.plural(count, 'node')} failed a filter", body)
    reason, message = presenters.event_message(ex)
    lines += ["", f"> Event {reason}: {message}"]
    return "\n".join(lines) + "\n"


def render_workload_markdown(run: WorkloadRun, *, snapshot: str, gate_failures: list[str]) -> str:
    """A workload's run as a pull-request comment: the page's sentence, the gates, the
    PDB report in words, the victims by owner, the pods left pending, the cycles folded."""
    what = "; ".join(o.describe() for o in run.objects)
    lines = [
        f"### preemptlab: {what} on {snapshot}",
        "",
        f"**{workload_presenters.workload_sentence(run)}.** "
        f"{workload_presenters.stop_reason_text(run)}",
    ]
    if gate_failures:
        lines += ["", "**Gates that failed:**", ""]
        lines += [f"- :x: {reason}" for reason in gate_failures]
    if run.pdb_report:
        lines += ["", "#### PodDisruptionBudgets", ""]
        lines += [f"- {workload_presenters.pdb_paragraph(r)}" for r in run.pdb_report]
    groups = workload_presenters.victim_groups(run)
    if groups:
        lines += ["", "#### Victims by owner", ""]
        lines += _table(
            ["Namespace", "Owner", "Evicted", "Class", "PodDisruptionBudget"],
            [
                [g.namespace, g.label, len(g.victims), ", ".join(g.classes), ", ".join(g.pdbs)]
                for g in groups
            ],
        )
    pending = run.left_pending()
    if pending:
        lines += ["", "#### Left pending", ""]
        lines += _table(["Pod", "FailedScheduling"], [[f"`{p.pod}`", why] for p, why in pending])
    body = _table(
        ["Cycle", "Pod", "Result", "Node", "Victims"],
        [
            [
                y.cycle,
                f"`{y.pod}`",
                y.result.value,
                y.node or y.nominated_node or "—",
                ", ".join(y.victims) or "—",
            ]
            for y in run.cycles
        ],
    )
    lines += _folded(f"{presenters.plural(len(run.cycles), 'scheduling cycle')}", body)
    return "\n".join(lines) + "\n"
