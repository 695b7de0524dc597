"""The scheduler profile a report's answer ran under, and what it changed, as the
first lines of the text and Markdown reports (nothing under the default profile)."""

from __future__ import annotations

from scheduling.reports.escaping import md_text
from scheduling.scheduler_config.choice import SchedulerChoice, SchedulerSource

_SOURCE_WORDS = {
    SchedulerSource.ANALYSIS: "given with the what-if",
    SchedulerSource.SNAPSHOT: "the cluster's own",
}


def profile_phrase(choice: SchedulerChoice) -> str:
    """'OpenShift NoScoring (openshift-no-scoring; the cluster's own)'."""
    where = _SOURCE_WORDS.get(SchedulerSource(choice.source), "")
    detail = "; ".join(p for p in (choice.preset, where) if p)
    return f"{choice.title} ({detail})" if detail else choice.title


def profile_lines(choice: SchedulerChoice, difference: str, *, markdown: bool) -> list[str]:
    if choice.is_default:
        return []
    phrase = profile_phrase(choice)
    if markdown:
        lines = [f"**Scheduler profile:** {md_text(phrase)}"]
        if difference:
            lines.append(f"**Against the default profile:** {md_text(difference)}")
        return lines
    lines = [f"Scheduler profile: {phrase}"]
    if difference:
        lines.append(f"Against the default profile: {difference}")
    return lines
