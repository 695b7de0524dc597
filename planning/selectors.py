"""Reads of the planning app: two of a user's analyses compared, and the analyses a
result page offers to compare with."""

from __future__ import annotations

from typing import Any

from django.db.models import Case, IntegerField, Q, QuerySet, Value, When

from planning.compare import Answer, Comparison, compare, pod_answer, workload_answer
from planning.compare_capacity import (
    CapacityAnswer,
    CapacityComparison,
    capacity_answer,
    compare_capacity,
)
from scheduling import selectors as analyses
from scheduling.constants import AnalysisKind, AnalysisStatus
from scheduling.models import Analysis

# Analyses the "Compare with…" select offers (the newest; the compare page takes any id).
COMPARE_CHOICES = 200


class NotCompared(Exception):
    """Why the two analyses are not compared; ``field`` ("a" or "b") names the one."""

    def __init__(self, field: str, analysis: Analysis, message: str) -> None:
        self.field = field
        self.analysis = analysis
        self.message = message
        super().__init__(message)


class NotAnswered(NotCompared):
    """One of the two analyses has no answer (yet): queued, running or failed."""

    def __init__(self, field: str, analysis: Analysis) -> None:
        if analysis.is_failed:
            why = "failed: it has no answer to compare (run it again)"
        elif analysis.is_done:
            why = "has no stored answer to compare (run it again)"
        else:
            why = f"is {analysis.status}: compare it once it is done"
        super().__init__(
            field, analysis, f"Analysis {analysis.pk} ({analysis.pod_key[:120]}) {why}."
        )


def _kind_words(analysis: Analysis) -> str:
    if analysis.is_capacity:
        return "a capacity answer"
    return "a workload's" if analysis.is_workload else "a pod's"


class KindsDiffer(NotCompared):
    """A capacity answer against a pod's or a workload's: nothing to set side by side."""

    def __init__(self, field: str, pair: dict[str, Analysis]) -> None:
        super().__init__(
            field,
            pair[field],
            f"A is {_kind_words(pair['a'])} and B {_kind_words(pair['b'])}: compare two "
            "answers of the same kind (two capacity answers, or pods' and workloads').",
        )


def answer_of(analysis: Analysis) -> Answer | CapacityAnswer | None:
    """An analysis' answer, from what it stored; None until it is done."""
    if not analysis.is_done:
        return None
    about = {"analysis": analysis.pk, "snapshot_id": analysis.snapshot_id}
    name = analysis.snapshot.name
    if analysis.is_capacity:
        room = analysis.room
        return None if room is None else capacity_answer(room, snapshot=name, **about)
    if analysis.is_workload and analysis.simulation:
        return workload_answer(analysis.simulation, snapshot=name, **about)
    ex = analysis.explained
    if analysis.is_workload or ex is None:
        return None
    return pod_answer(ex.to_contract(), ex.victim_details, snapshot=name, **about)


def comparison_get(*, user: Any, a: int, b: int) -> Comparison | CapacityComparison:
    """A against B. Http404 when either is not the user's (checked for both before
    anything is said of either); NotAnswered (under "a" or "b") when one is not done;
    KindsDiffer (under the capacity one) for a capacity answer against a pod's or a workload's."""
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
    x, y = answers["a"], answers["b"]
    if isinstance(x, CapacityAnswer) and isinstance(y, CapacityAnswer):
        return compare_capacity(x, y)
    if isinstance(x, Answer) and isinstance(y, Answer):
        return compare(x, y)
    raise KindsDiffer("a" if isinstance(x, CapacityAnswer) else "b", pair)


def compare_choices(*, user: Any, around: Analysis | None = None) -> QuerySet[Analysis]:
    """The user's done analyses to compare with, those of ``around``'s snapshot first,
    each group newest first; ``around`` itself left out, and only answers of its kind
    (capacity answers beside a capacity answer, pods' and workloads' beside the others)."""
    rows = analyses.analysis_list(user=user).filter(status=AnalysisStatus.DONE)
    if around is None:
        return rows.order_by("-created", "-id")[:COMPARE_CHOICES]
    capacity = Q(kind=AnalysisKind.CAPACITY)
    if around.is_take_nodes_away:
        return rows.none()  # nothing reads two of them side by side
    return (
        rows.exclude(pk=around.pk)
        .exclude(kind=AnalysisKind.TAKE_NODES_AWAY)
        .filter(capacity if around.is_capacity else ~capacity)
        .annotate(
            same_snapshot=Case(
                When(snapshot_id=around.snapshot_id, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
        .order_by("same_snapshot", "-created", "-id")[:COMPARE_CHOICES]
    )
