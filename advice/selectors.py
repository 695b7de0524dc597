"""Reads: whether an analysis' answer needs advice, and what the page's section shows."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.fields.json import KeyTransform

from advice import presenters
from advice.models import Advice
from advice.services import advice_get
from scheduling.constants import Outcome, WorkloadOutcome
from scheduling.models import Analysis


def needs_advice(analysis: Analysis) -> bool:
    """A finished pod or workload what-if whose answer evicts, exceeds a budget or leaves
    replicas pending (a budget is only exceeded by evicting, so victims say it)."""
    if (
        not analysis.is_done
        or analysis.is_capacity
        or analysis.is_take_nodes_away
        or analysis.parent_id is not None
    ):
        return False
    if not analysis.is_workload:
        return analysis.outcome != Outcome.FITS
    if analysis.outcome != WorkloadOutcome.ALL_RUN:
        return True
    victims = (
        Analysis.objects.filter(pk=analysis.pk)
        .annotate(v=KeyTransform("deleted_victims", KeyTransform("contract", "simulation")))
        .values_list("v", flat=True)
        .first()
    )
    return bool(victims)


def advice_full(advice: Advice) -> Advice:
    """The row with its answer column (advice_get leaves it in the database)."""
    return Advice.objects.get(pk=advice.pk)


def submitted_objects(analysis: Analysis) -> list[dict[str, Any]]:
    """What a change's ``object`` index counts: the workload's objects, or the lone pod."""
    full = Analysis.objects.only("pod", "kind").get(pk=analysis.pk)
    return list(full.pod["objects"]) if full.is_workload else [full.pod]


def section_context(analysis: Analysis, *, shared: bool, section_url: str) -> dict[str, Any]:
    """What the "How to avoid this" section shows of the analysis' advice."""
    row = advice_get(analysis=analysis) if analysis.is_done else None
    ctx: dict[str, Any] = {
        "analysis": analysis,
        "shared": shared,
        "section_url": section_url,
        "wanted": needs_advice(analysis),
        "advice_row": row,
        "polls": analysis.is_active or (row is not None and row.is_active),
        "budget_seconds": float(settings.PREEMPTLAB_ANALYSIS_SECONDS),
    }
    if row is not None and row.is_done:
        row = advice_full(row)
        advice = row.advice
        assert advice is not None  # a done row always stored one
        ctx |= {
            "advice_row": row,
            "advice": advice,
            "rows": presenters.item_rows(advice, submitted_objects(analysis)),
            "baseline": presenters.baseline_words(advice),
            "notes": presenters.note_lines(advice),
            "search": presenters.search_words(advice, ctx["budget_seconds"]),
        }
    return ctx
