"""Where a volume decided, in the text and Markdown reports: the same sentences as the
result page (``presenters.volumes``), one block each the reports add to theirs."""

from __future__ import annotations

from scheduling.engine import Explanation
from scheduling.engine.words import plural
from scheduling.presenters import volumes as vp
from scheduling.reports.escaping import md_code, md_text
from scheduling.workloads import WorkloadRun


def pin_text(ex: Explanation) -> list[str]:
    return [f"Volume: {s}" for s in vp.pin_sentences(ex)]


def nodes_text(ex: Explanation) -> list[str]:
    """The nodes a volume plugin rejected (candidates among them), one a line."""
    by_node = vp.node_volumes(ex)
    if not by_node:
        return []
    lines = ["", f"{plural(len(by_node), 'node')} rejected for the pod's volumes:"]
    lines += [f"  {v.node}: {v.text}" for v in by_node.values()]
    return lines


def workload_text(run: WorkloadRun) -> list[str]:
    if not run.assumptions and not run.bound_claims:
        return []
    lines = ["", "Volumes:", *(f"  {s}" for s in vp.assumption_sentences(run))]
    lines += [f"  {s}." for s in vp.bound_claim_sentences(run)]
    return lines


def _cell(text: str) -> str:
    """A table cell: a pipe of kube-scheduler's words would split it."""
    return text.replace("|", "\\|")


def pin_markdown(ex: Explanation) -> list[str]:
    pins = vp.pin_sentences(ex)
    return ["", *(f"- {md_text(s)}" for s in pins)] if pins else []


def nodes_markdown(ex: Explanation) -> list[str]:
    """A folded table: node, the volume plugin, what it said (attach counts)."""
    by_node = vp.node_volumes(ex)
    if not by_node:
        return []
    rows = [
        f"| {md_code(v.node)} | {v.plugin} | {_cell(md_text('; '.join(v.sentences)))} |"
        for v in by_node.values()
    ]
    return [
        "",
        f"<details><summary>{plural(len(by_node), 'node')} rejected for the pod's volumes</summary>",
        "",
        "| Node | Plugin | Why |",
        "|---|---|---|",
        *rows,
        "",
        "</details>",
    ]


def workload_markdown(run: WorkloadRun) -> list[str]:
    if not run.assumptions and not run.bound_claims:
        return []
    lines = ["", "#### Volumes", ""]
    lines += [f"- {md_text(s)}" for s in vp.assumption_sentences(run)]
    lines += [f"- {md_text(s)}." for s in vp.bound_claim_sentences(run)]
    return lines
