"""Reads of the planning app: two of a user's analyses compared, and the analyses a
result page offers to compare with."""

from __future__ import annotations

from typing import Any

from django.db.models import Case, IntegerField, QuerySet, Value, When

from planning.compare import Answer, Comparison, compare, pod_answer, workload_answer
from scheduling import selectors as analyses
from scheduling.constants import AnalysisStatus
from scheduling.models import Analysis

# Analyses the "Compare with…" select offers (the newest; the compare page takes any id).
COMPARE_CHOICES = 200


class NotAnswered(Exception):
    """One of the two analyses has no answer (yet): queued, running or failed."""

    def __init__(self, field: str, analysis: Analysis) -> None:
        self.field = field
        self.analysis = analysis
        if analysis.is_capacity:
            why = (
                "counts how many replicas fit: the comparison reads a pod's or a workload's answer"
            )
        elif analysis.is_failed:
            why = "failed: it has no answer to compare (run it again)"
        elif analysis.is_done:
            why = "has no stored answer to compare (run it again)"
        else:
            why = f"is {analysis.status}: compare it once it is done"
        self.message = f"Analysis {analysis.pk} ({analysis.pod_key[:120]}) {why}."
        super().__init__(self.message)


def answer_of(analysis: Analysis) -> Answer | None:
    """An analysis' answer, from what it stored; None until it is done."""
    if not analysis.is_done or analysis.is_capacity:
        return None
    about = {"analysis": analysis.pk, "snapshot_id": analysis.snapshot_id}
    name = analysis.snapshot.name
    if analysis.is_workload and analysis.simulation:
        return workload_answer(analysis.simulation, snapshot=name, **about)
    ex = analysis.explained
    if analysis.is_workload or ex is None:
        return None
    return pod_answer(ex.to_contract(), ex.victim_details, snapshot=name, **about)


def comparison_get(*, user: Any, a: int, b: int) -> Comparison:
    """A against B. Http404 when either is not the user's (checked for both before
    anything is said of either); NotAnswered (under "a" or "b") when one is not done."""
    pair = {
        "a": analyses.analysis_get(user=user, analysis_id=a),
        "b": analyses.analysis_get(user=user, analysis_id=b),
    }
    answers = {}
    for field, analysis in pair.items():
        answer = answer_of(analysis)
        if answer is None:
            raise NotAnswered(field, analysis)
        answers[field] = answer
    return compare(answers["a"], answers["b"])


def compare_choices(*, user: Any, around: Analysis | None = None) -> QuerySet[Analysis]:
    """The user's done analyses to compare with, those of ``around``'s snapshot first,
    each group newest first; ``around`` itself left out."""
    rows = analyses.analysis_list(user=user).filter(status=AnalysisStatus.DONE)
    if around is None:
        return rows.order_by("-created", "-id")[:COMPARE_CHOICES]
    return (
        rows.exclude(pk=around.pk)
        .annotate(
            same_snapshot=Case(
                When(snapshot_id=around.snapshot_id, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
        .order_by("same_snapshot", "-created", "-id")[:COMPARE_CHOICES]
    )
