"""`whatif --format markdown`: the answer as a pull-request comment.

GitHub and GitLab render it: a headline, the victims as a table, the
tie-break and the rejected nodes folded away in <details>, and the gates that
tripped, if any.
"""

from __future__ import annotations

from collections import defaultdict

from scheduling.engine import Result
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
    if result.candidates:
        lines += ["", "<details><summary>Candidate nodes, best first</summary>", ""]
        lines += _table(
            [
                "Node",
                "PDB violations",
                "Highest victim",
                "Priority sum",
                "Victims",
                "Eliminated by",
            ],
            [
                [
                    f"`{c.node}`",
                    c.victims.num_pdb_violations,
                    c.highest_priority,
                    c.priority_sum,
                    len(c.victims.pods),
                    c.eliminated_by or "chosen",
                ]
                for c in result.candidates
            ],
        )
        lines += ["", "</details>"]
    if result.rejected_nodes:
        groups: dict[str, list[str]] = defaultdict(list)
        for r in result.rejected_nodes:
            groups[", ".join(r.status.reasons) or "-"].append(r.node)
        lines += [
            "",
            f"<details><summary>{len(result.rejected_nodes)} nodes rejected</summary>",
            "",
        ]
        lines += _table(
            ["Nodes", "Reason"],
            [
                [len(nodes), reason]
                for reason, nodes in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
            ],
        )
        lines += ["", "</details>"]
    if result.message:
        lines += ["", f"> {result.message}"]
    return "\n".join(lines) + "\n"
