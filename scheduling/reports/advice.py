"""`whatif --advise`: the advice after the answer, as text (a terminal, a CI log) and
as Markdown (the pull-request comment: "To pass the gate, request at most 1900m cpu,
or add 1 node like worker-a."). JSON puts the contract's list under "advice".

The words are the engine's (each item's summary and detail, each note); the names in
them come from the snapshot and the manifest, so they are escaped on the way out.
"""

from __future__ import annotations

import re

import yaml

from scheduling.engine.advice import Advice, AdviceItem, CreateObjects
from scheduling.engine.words import plural
from scheduling.reports.escaping import md_text, plain

HEADING = "How to avoid it"


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _outcome(item: AdviceItem) -> str:
    """What the change then does, in a few words."""
    where = f" on {item.node}" if item.node else ""
    evicts = f"evicts {plural(len(item.victims), 'pod')}" if item.victims else "evicts no one"
    return f"{item.outcome}{where}, {evicts}"


def _proof(item: AdviceItem) -> str:
    less = item.proof.one_step_less
    said = f"proven in {plural(item.proof.runs, 'run')}"
    if less is None:
        return said
    step = "as asked" if less.change is None else "one step less"
    return f"{said}; {step}: {less.outcome}, evicts {plural(len(less.victims), 'pod')}"


def _manifests(item: AdviceItem) -> list[str]:
    """The objects a change creates (a budget), as YAML lines to apply."""
    if not isinstance(item.change, CreateObjects):
        return []
    text = yaml.safe_dump_all([dict(m) for m in item.change.create], sort_keys=False)
    return text.rstrip("\n").splitlines()


def _stopped(advice: Advice) -> list[str]:
    stopped = [f"{s.kind.value} ({s.stopped})" for s in advice.searches if s.stopped]
    if not stopped:
        return []
    return [f"The search stopped early: {', '.join(stopped)}; what it proved is above."]


def render_advice_text(advice: Advice) -> str:
    if not advice.baseline.hurts:
        return f"{HEADING}: nothing to avoid (no one is evicted, nothing is left pending).\n"
    lines = [f"{HEADING} (each change on its own, answered again by the engine):"]
    if not advice.items:
        lines.append("  no single change found")
    for achieved, items in advice.groups():
        lines.append(f"  {_upper_first(achieved.value)}:")
        for item in items:
            lines.append(f"  - {plain(item.summary)}: {plain(_outcome(item))}")
            if item.detail:
                lines.append(f"    {plain(item.detail)}")
            lines.append(f"    {plain(_proof(item))}")
            lines += [f"      {plain(line)}" for line in _manifests(item)]
    lines += [f"  note: {plain(n.text)}" for n in advice.notes]
    lines += [f"  {line}" for line in _stopped(advice)]
    return "\n".join(lines) + "\n"


def render_advice_markdown(advice: Advice, *, gate_failed: bool) -> str:
    if not advice.baseline.hurts:
        return ""
    lines = ["", f"### {HEADING}", ""]
    lead, named = advice.headline()
    if named:
        # The lead matches the answer as asked (it evicts, or it leaves pods pending).
        if gate_failed:
            lead = "To pass the gate"
        ways = ", or ".join(md_text(i.summary) for i in named)
        lines += [f"{lead}, {ways}.", ""]
    elif not advice.items:
        lines += ["No single change found.", ""]
    for achieved, items in advice.groups():
        lines += [f"**{_upper_first(achieved.value)}:**", ""]
        for item in items:
            lines.append(f"- **{md_text(item.summary)}**: {md_text(_outcome(item))}")
            if item.detail:
                lines.append(f"  {md_text(item.detail)}")
            lines.append(f"  _{md_text(_proof(item))}_")
            manifest = _manifests(item)
            if manifest:
                # A fence longer than any run of backticks in it: nothing read from a file
                # can close it early.
                runs = re.findall("`+", "\n".join(manifest))
                fence = "`" * max(3, 1 + max((len(r) for r in runs), default=0))
                lines += ["", f"  {fence}yaml", *(f"  {line}" for line in manifest), f"  {fence}"]
        lines.append("")
    lines += [f"- {md_text(n.text)}" for n in advice.notes]
    stopped = _stopped(advice)
    if stopped:
        lines += ["", *(md_text(line) for line in stopped)]
    return "\n".join(lines) + "\n"
