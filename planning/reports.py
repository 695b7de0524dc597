"""The plan as text (a terminal, a CI log) and as Markdown (a pull-request comment), for
``manage.py plan`` and ``preemptlab plan``. Every name from the snapshot is escaped on
the way out (scheduling.reports.escaping), as the what-if reports do."""

from __future__ import annotations

import re

from planning.plan import SEVERITIES, Plan
from scheduling.engine.plan import ClassRung, Finding
from scheduling.engine.plan.first_in_line import AppInLine, FirstInLine
from scheduling.engine.quantity import format_quantity
from scheduling.engine.words import plural
from scheduling.reports.escaping import md_code, md_text, plain

_SEVERITY_WORDS = {
    "error": ("error", "errors"),
    "warning": ("warning", "warnings"),
    "info": ("note", "notes"),
}


def summary_sentence(plan: Plan) -> str:
    """ "The audit found 1 error, 4 warnings and 2 notes on 9 PriorityClasses.\""""
    parts = [plural(plan.count(s), *_SEVERITY_WORDS[s]) for s in SEVERITIES if plan.count(s)]
    classes = plural(len(plan.ladder.classes), "PriorityClass", "PriorityClasses")
    if not parts:
        return f"The audit found nothing to change on {classes}."
    found = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    sentence = f"The audit found {found} on {classes}."
    owned, notes = plan.operator_owned, plan.count("info")
    if owned:
        if notes == 1:
            which = "The note is about an object"
        elif owned == notes:
            which = f"All {notes} notes are about objects"
        else:
            which = f"{owned} of the {notes} notes are about objects"
        sentence += (
            f" {which} the cluster's operators own, where an edit is reverted: raise "
            f"{'it' if owned == 1 else 'them'} with the platform vendor or configure the operator."
        )
    return sentence


def _ladder_cells(c: ClassRung) -> list[str]:
    flags = ("default " if c.global_default else "") + (
        "never" if c.preemption_policy == "Never" else ""
    )
    return [
        c.name,
        str(c.value),
        flags.strip() or "-",
        f"{c.pods:,}",
        f"{c.apps:,}",
        format_quantity(c.cpu_millis, "cpu"),
        format_quantity(c.memory_bytes, "memory"),
        f"{c.cpu_share * 100:.1f}%",
        f"{c.budgets.pods_covered:,}/{c.pods:,}",
    ]


_LADDER_HEAD = ["CLASS", "VALUE", "FLAGS", "PODS", "APPS", "CPU", "MEMORY", "CPU%", "PDB-COVERED"]


def render_plan_text(plan: Plan) -> str:
    rows = [_LADDER_HEAD] + [[plain(x) for x in _ladder_cells(c)] for c in plan.ladder.by_value()]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_LADDER_HEAD))]
    lines = ["PriorityClass ladder, highest first:"]
    lines += [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
        for r in rows
    ]
    for m in plan.ladder.missing:
        lines.append(
            f"  {plain(m.class_name)}: deleted, still named by {plural(m.pods, 'pod')} "
            f"(priority {', '.join(str(p) for p in m.priorities)})"
        )
    for u in plan.ladder.unclassed:
        to = f"the default {plain(u.resolved_class)}" if u.resolved_class else "no class"
        lines.append(f"  {plural(u.pods, 'pod')} without a class: priority {u.priority} ({to})")
    lines += ["", summary_sentence(plan)]
    for f in plan.findings:
        lines += ["", f"[{f.severity}] {f.rule}: {plain(f.message)}"]
        if f.objects:
            lines.append("  objects: " + ", ".join(plain(o) for o in f.objects))
        lines.append(f"  why: {plain(f.why)}")
        if f.operator_owned:
            lines.append(f"  operator-owned: {plain(f.operator_owned)}")
        if f.fix:
            lines.append("  fix:")
            lines += ["    " + plain(line) for line in f.fix.splitlines()]
    return "\n".join(lines) + "\n"


def _fenced(text: str) -> str:
    """A code block no line of ``text`` can close (CommonMark 4.5): the fence is longer
    than any run of backticks inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = "\n".join(plain(line) for line in text.splitlines())
    return f"{fence}yaml\n{body}\n{fence}"


def render_plan_markdown(plan: Plan, *, snapshot: str) -> str:
    """``snapshot`` is already Markdown (escaped by the caller)."""
    lines = [f"### Priority plan of {snapshot}", "", md_text(summary_sentence(plan)), ""]
    lines.append("| " + " | ".join(h.title() for h in _LADDER_HEAD) + " |")
    lines.append("|" + "---|" * len(_LADDER_HEAD))
    for c in plan.ladder.by_value():
        cells = _ladder_cells(c)
        lines.append("| " + " | ".join([md_code(cells[0]), *map(md_text, cells[1:])]) + " |")
    lines.append("")
    for m in plan.ladder.missing:
        lines.append(f"- {md_code(m.class_name)}: deleted, still named by {plural(m.pods, 'pod')}")
    for f in plan.findings:
        lines += ["", f"#### {f.severity}: {md_code(f.rule)}", "", md_text(f.message), ""]
        if f.objects:
            lines += ["Objects: " + ", ".join(md_code(o) for o in f.objects), ""]
        lines.append(f"_Why:_ {md_text(f.why)}")
        if f.operator_owned:
            lines += ["", f"_Operator-owned:_ {md_text(f.operator_owned)}"]
        if f.fix:
            lines += ["", _fenced(f.fix)]
    return "\n".join(lines) + "\n"


def finding_line(f: Finding) -> str:
    """One line for a CI log: the rule, the severity, the message."""
    return plain(f"{f.rule} ({f.severity}): {f.message}")


# --- first in line ---------------------------------------------------------------------

_LINE_HEAD = [
    "#",
    "APP",
    "PRIORITY",
    "PODS",
    "PDB-ALLOWS",
    "ABSORBED",
    "CPU",
    "MEMORY",
    "FIRST-HIT",
]


def in_line(row: AppInLine, line: FirstInLine) -> bool:
    """Whether preemption by the probe reached the app or could have with more probes: its
    level's run placed some (a level where no probe fits, even after preemption, does not
    say the app absorbs more than the limit: nothing was placed at all)."""
    if not row.reachable:
        return False
    return row.absorbed is not None or not any(
        r.placed == 0 for r in line.runs if r.priority == row.priority
    )


def absorbed_words(row: AppInLine, line: FirstInLine) -> str:
    """How many probes an app absorbs: a count, "> limit", "no probe fits" or "out of
    reach"."""
    if row.absorbed is not None:
        return f"{row.absorbed:,}"
    if not row.reachable:
        return "out of reach"
    return f"> {line.limit:,}" if in_line(row, line) else "no probe fits"


def _probe_size(line: FirstInLine) -> str:
    return (
        f"{format_quantity(line.cpu_millis, 'cpu')} CPU / "
        f"{format_quantity(line.memory_bytes, 'memory')}"
    )


def nothing_fits_sentence(line: FirstInLine) -> str:
    """The ranking's first words when no probe of any run was placed ("" otherwise)."""
    if not line.runs or any(r.placed for r in line.runs):
        return ""
    return (
        f"No {_probe_size(line)} probe fits anywhere, even after preemption: "
        "nothing is first in line for this size."
    )


def first_in_line_heading(line: FirstInLine) -> str:
    return (
        f"First in line: probe pods of {_probe_size(line)}, one priority above each app's, "
        f"at most {line.limit:,} per level"
    )


def _line_cells(rank: int, row: AppInLine, line: FirstInLine) -> list[str]:
    absorbed = row.absorbed
    hit = row.first_hit
    return [
        str(rank) if in_line(row, line) else "-",
        row.app,
        str(row.priority) + (f" ({row.priority_class})" if row.priority_class else ""),
        f"{row.pods:,}",
        {True: "yes", False: "no", None: "-"}[row.pdb_allows_disruption],
        absorbed_words(row, line),
        format_quantity(row.absorbed_cpu_millis, "cpu") if absorbed is not None else "-",
        format_quantity(row.absorbed_memory_bytes, "memory") if absorbed is not None else "-",
        f"replica {hit.replica} on {hit.node}" if hit else "-",
    ]


def render_first_in_line_text(line: FirstInLine) -> str:
    rows = [_LINE_HEAD] + [
        [plain(x) for x in _line_cells(i, a, line)] for i, a in enumerate(line.apps, 1)
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_LINE_HEAD))]
    nothing = nothing_fits_sentence(line)
    lines = [nothing] if nothing else []
    lines.append(first_in_line_heading(line) + ":")
    lines += [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
        for r in rows
    ]
    if line.skipped_levels:
        levels = ", ".join(str(v) for v in line.skipped_levels)
        lines.append(f"  No class is above priority {levels}: nothing may preempt those apps.")
    return "\n".join(lines) + "\n"


def render_first_in_line_markdown(line: FirstInLine) -> str:
    lines = [f"#### {md_text(first_in_line_heading(line))}", ""]
    nothing = nothing_fits_sentence(line)
    if nothing:
        lines += [f"**{md_text(nothing)}**", ""]
    lines.append("| " + " | ".join(h.title() for h in _LINE_HEAD) + " |")
    lines.append("|" + "---|" * len(_LINE_HEAD))
    for i, a in enumerate(line.apps, 1):
        cells = _line_cells(i, a, line)
        lines.append(
            "| " + " | ".join([cells[0], md_code(cells[1]), *map(md_text, cells[2:])]) + " |"
        )
    return "\n".join(lines) + "\n"
