"""Where a volume decided, in the text and Markdown reports: the same sentences as the
result page (``presenters.volumes``), one block each the reports add to theirs."""

from __future__ import annotations

from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine import Explanation
from scheduling.engine.words import join_names, plural
from scheduling.presenters import volumes as vp
from scheduling.reports.escaping import md_code, md_text


def pin_text(ex: Explanation) -> list[str]:
    return [f"Volume: {s}" for s in vp.pin_sentences(ex)]


# Nodes at an attach limit listed with their counts; the rest are counted.
ATTACH_NODES_LISTED = 10
# Node names given per group of nodes a volume plugin rejected alike.
NODES_PER_GROUP = 5


def nodes_text(ex: Explanation) -> list[str]:
    """The nodes a volume plugin rejected (candidates among them): those at an attach
    limit one a line with their counts, the others by plugin and reasons."""
    counted, others = vp.volume_rejections(ex)
    total = len(counted) + sum(len(g.nodes) for g in others)
    if not total:
        return []
    lines = ["", f"{plural(total, 'node')} rejected for the pod's volumes:"]
    lines += [f"  {v.node}: {v.text}" for v in counted[:ATTACH_NODES_LISTED]]
    if len(counted) > ATTACH_NODES_LISTED:
        rest = len(counted) - ATTACH_NODES_LISTED
        lines.append(f"  and {plural(rest, 'more node')} at their attach limit")
    lines += [
        f"  {plural(len(g.nodes), 'node')}: {g.text}: {join_names(g.nodes, limit=NODES_PER_GROUP)}"
        for g in others
    ]
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
    """A folded table: the nodes at an attach limit with their counts, then the other
    nodes by plugin and reasons."""
    counted, others = vp.volume_rejections(ex)
    total = len(counted) + sum(len(g.nodes) for g in others)
    if not total:
        return []
    rows = [
        f"| {md_code(v.node)} | {v.plugin} | {_cell(md_text('; '.join(v.sentences)))} |"
        for v in counted[:ATTACH_NODES_LISTED]
    ]
    if len(counted) > ATTACH_NODES_LISTED:
        rest = len(counted) - ATTACH_NODES_LISTED
        rows.append(f"| {plural(rest, 'more node')} | NodeVolumeLimits | at their attach limit |")
    rows += [
        f"| {plural(len(g.nodes), 'node')} | {g.plugin} | {_cell(md_text('; '.join(g.reasons)))} |"
        for g in others
    ]
    return [
        "",
        f"<details><summary>{plural(total, 'node')} rejected for the pod's volumes</summary>",
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
