"""`whatif --format markdown`: the answer as a pull-request comment.

The same words and counts as the result page and the text report (the
sentences, tie-break rows and node groups come from ``presenters`` over the
Explanation), laid out for GitHub and GitLab: a headline, the victims as a
table, the tie-break and the other nodes folded in <details>, and the gates
that tripped, if any.
"""

from __future__ import annotations

from scheduling import presenters
from scheduling.engine import Explanation, Outcome


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
