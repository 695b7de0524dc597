"""`whatif --format markdown`: the answer as a pull-request comment.

GitHub and GitLab render it: a headline, the victims as a table, the
tie-break and the rejected nodes folded away in <details>, and the gates that
tripped, if any.
"""

from __future__ import annotations

from scheduling import presenters
from scheduling.engine import Outcome, Result
from scheduling.gates import chosen_victims


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _headline(result: Result) -> str:
    pod = f"`{result.pod}`"
    if result.outcome == "fits":
        return f"{pod} fits: kube-scheduler would bind it to `{result.node}`, preempting nothing."
    if result.outcome == "preempts":
        n = len(result.victims)
        return f"{pod} would preempt {n} pod{'s' if n != 1 else ''} on `{result.node}`."
    return f"{pod} would stay pending: no node fits, and preemption does not help."


def render_markdown(result: Result, *, snapshot: str, gate_failures: list[str]) -> str:
    klass = f", class `{result.priority_class}`" if result.priority_class else ""
    lines = [
        f"### preemptlab what-if on {snapshot}",
        "",
        f"**{_headline(result)}**",
        "",
        f"Priority {result.priority}{klass}, preemptionPolicy {result.preemption_policy}. "
        f"PodDisruptionBudget violations: {result.pdb_violations if result.outcome == 'preempts' else 0}.",
    ]
    if gate_failures:
        lines += ["", "**Gates that failed:**", ""]
        lines += [f"- :x: {reason}" for reason in gate_failures]
    victims = chosen_victims(result)
    if victims:
        lines += ["", "#### Victims", ""]
        lines += _table(
            ["Pod", "Priority", "Class"],
            [[f"`{p.key}`", p.priority, p.priority_class_name or "—"] for p in victims],
        )
    ex = result.explanation
    if ex.candidates:
        # The words and the counts of the page and the text report (scheduling.presenters).
        lines += ["", "<details><summary>Candidate nodes, best first</summary>", ""]
        lines += _table(
            ["Node", *(c.label for c in presenters.CRITERION_COLUMNS), "Verdict"],
            [
                [
                    f"`{row.node}`",
                    *("—" if cell.value is None else cell.value for cell in row.cells),
                    "chosen"
                    if row.winner
                    else f"out at {row.eliminated_by.label if row.eliminated_by else ''}",
                ]
                for row in presenters.candidate_rows(ex.candidates)
            ],
        )
        lines += ["", "</details>"]
    groups = presenters.rejected_groups(ex)
    if groups:
        count = sum(g.count for g in groups)
        other = f" other than `{ex.node}`" if ex.outcome == Outcome.PREEMPTS else ""
        lines += [
            "",
            f"<details><summary>{presenters.plural(count, 'node')}{other} failed a filter"
            "</summary>",
            "",
        ]
        lines += _table(
            ["Nodes", "Reason", "Preemption"], [[g.count, g.label, g.verdict] for g in groups]
        )
        lines += ["", "</details>"]
    if result.message:
        lines += ["", f"> {result.message}"]
    return "\n".join(lines) + "\n"
