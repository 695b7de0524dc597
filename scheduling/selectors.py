"""Reads: the analyses a user may see, and the one a share token opens."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet, TextField, Value
from django.db.models.fields.json import KT, KeyTransform
from django.db.models.functions import Coalesce, NullIf
from django.http import Http404

from clusters import access
from clusters.models import Snapshot
from scheduling.constants import (
    AnalysisKind,
    AnalysisStatus,
    NodesAwayVerdict,
    Outcome,
    WorkloadOutcome,
)
from scheduling.engine import ENGINE_VERSION
from scheduling.engine.capacity import Size
from scheduling.models import Analysis, ShareLink
from scheduling.services import room_pod_key


def analysis_list(
    *, user: Any, snapshot: Snapshot | None = None, team: str | None = None
) -> QuerySet[Analysis]:
    """The user's analyses and their teams' (staff too: only those), newest first, without
    their large columns; ``team``: only those of snapshots given to that team."""
    qs = access.in_team(Analysis.objects.visible_to(user), team, prefix="snapshot__")
    qs = qs.without_payload().select_related("snapshot", "requested_by")
    # "Explain this cycle" is a view of its workload's run, reached from it: not a row.
    qs = qs.filter(parent__isnull=True)
    if snapshot is not None:
        qs = qs.filter(snapshot=snapshot)
    return qs


def _text(path: str) -> NullIf:
    """A JSON key as text, with JSON null as SQL NULL: SQLite's text of a null is the
    word "null", which an unschedulable pod's node cell printed."""
    return NullIf(KT(path), Value("null", output_field=TextField()))


def analysis_rows(
    *, user: Any, snapshot: Snapshot | None = None, team: str | None = None
) -> QuerySet[Analysis]:
    """analysis_list for the pages' tables: each row also carries its node, class and
    victims, read out of the stored explanation by the database (not loaded whole)."""
    # An analysis stored before the explanation existed keeps these under "result"
    # (scheduling.analyses.explanations, schema 1).
    return analysis_list(user=user, snapshot=snapshot, team=team).annotate(
        result_node=Coalesce(_text("explanation__node"), _text("explanation__result__node")),
        result_class=Coalesce(
            _text("explanation__priority_class"),
            _text("explanation__result__priority_class"),
            # A workload: its first pod's class (a workload's pods share their template's).
            _text("simulation__contract__pods__0__priority_class"),
            # How many fit: its template's class.
            _text("simulation__capacity__template__priority_class"),
        ),
        result_victims=Coalesce(
            KeyTransform("victims", "explanation"),
            KeyTransform("victims", KeyTransform("result", "explanation")),
            # A workload: every pod its run deleted.
            KeyTransform("deleted_victims", KeyTransform("contract", "simulation")),
            # How many fit: every pod its run deleted.
            KeyTransform("victims", KeyTransform("capacity", "simulation")),
        ),
    )


def analysis_get(*, user: Any, analysis_id: int | str) -> Analysis:
    """One analysis the user may see; Http404 for anyone else's, as if it did not exist."""
    try:
        return (
            Analysis.objects.visible_to(user)
            .select_related("snapshot", "snapshot__owner")
            .get(pk=int(analysis_id))
        )
    except (Analysis.DoesNotExist, ValueError, TypeError):
        raise Http404("No such analysis.") from None


def analysis_get_light(*, user: Any, analysis_id: int | str) -> Analysis:
    """analysis_get without the large columns: what an ETag or a cache lookup needs."""
    try:
        return (
            Analysis.objects.visible_to(user)
            .without_payload()
            .select_related("snapshot")
            .get(pk=int(analysis_id))
        )
    except (Analysis.DoesNotExist, ValueError, TypeError):
        raise Http404("No such analysis.") from None


def share_link_list(*, analysis: Analysis) -> QuerySet[ShareLink]:
    return ShareLink.objects.active().filter(analysis=analysis)


def share_link_get(*, user: Any, token: str) -> ShareLink:
    """An active share link of one of the user's analyses (to revoke it)."""
    try:
        return ShareLink.objects.active().get(
            token=token, analysis__in=Analysis.objects.visible_to(user)
        )
    except ShareLink.DoesNotExist:
        raise Http404("No such share link.") from None


def shared_analysis_get(*, token: str, light: bool = False) -> Analysis:
    """The one analysis an active token opens; Http404 for a revoked or unknown token.
    ``light``: without the large columns (see analysis_get_light)."""
    links = ShareLink.objects.active().select_related("analysis", "analysis__snapshot")
    if light:
        links = links.defer(*(f"analysis__{name}" for name in Analysis.PAYLOAD_FIELDS))
    link = links.filter(token=token).first()
    if link is None or not token:
        raise Http404("This link does not exist or was revoked.")
    return link.analysis


# The lists' outcome filter: a pod's word, a workload's word, or "workload" (any workload),
# or the verdict of taking nodes away.
OUTCOME_FILTERS = (*Outcome.values, "workload", *WorkloadOutcome.values, *NodesAwayVerdict.values)


@dataclass(frozen=True)
class AnalysisFilters:
    """What the analyses list is narrowed to: part of the pod's (or workload's) name,
    one outcome, one class, one snapshot (the all-analyses list). Read from the query
    string; an unknown value narrows nothing."""

    name: str = ""
    outcome: str = ""
    klass: str = ""
    snapshot: int | None = None

    @classmethod
    def from_query(cls, query: Any) -> AnalysisFilters:
        outcome = str(query.get("outcome") or "")
        snapshot = str(query.get("snapshot") or "")
        return cls(
            name=str(query.get("q") or "").strip()[:200],
            outcome=outcome if outcome in OUTCOME_FILTERS else "",
            klass=str(query.get("class") or "").strip()[:253],
            snapshot=int(snapshot) if snapshot.isdigit() else None,
        )

    @property
    def active(self) -> bool:
        return bool(self.name or self.outcome or self.klass or self.snapshot)

    def apply(self, rows: QuerySet[Analysis]) -> QuerySet[Analysis]:
        if self.name:
            rows = rows.filter(pod_key__icontains=self.name)
        if self.outcome == "workload":
            rows = rows.filter(kind=AnalysisKind.WORKLOAD)
        elif self.outcome in WorkloadOutcome.values:
            rows = rows.filter(outcome=self.outcome, kind=AnalysisKind.WORKLOAD)
        elif self.outcome in NodesAwayVerdict.values:
            rows = rows.filter(outcome=self.outcome, kind=AnalysisKind.TAKE_NODES_AWAY)
        elif self.outcome:
            rows = rows.filter(outcome=self.outcome, kind=AnalysisKind.POD)
        if self.klass:
            rows = rows.filter(**{"result_class": self.klass})  # analysis_rows annotates it
        if self.snapshot is not None:
            rows = rows.filter(snapshot_id=self.snapshot)
        return rows


# Tables of one size looked through for the same limit (a user asks few limits per size).
ROOM_TABLES_LOOKED_AT = 20


def room_by_class_find(*, snapshot: Snapshot, size: Size, limit: int) -> Analysis | None:
    """The room-per-tier table already asked of ``snapshot`` for this size and limit (with
    no what-if classes): done by this engine, or still queued or running, so asking again
    follows it instead of running the same loop again. None: not asked yet (or failed)."""
    wanted = {"limit": limit, "objects": [], "size": size.to_dict()}
    rows = (
        Analysis.objects.filter(
            snapshot=snapshot,
            kind=AnalysisKind.CAPACITY,
            parent__isnull=True,
            pod_key=room_pod_key(size),
            engine_version__in=("", ENGINE_VERSION),
        )
        .exclude(status=AnalysisStatus.FAILED)
        .only("pk", "pod", "priority_classes", "snapshot_id")
        .order_by("-created", "-id")[:ROOM_TABLES_LOOKED_AT]
    )
    return next((a for a in rows if a.pod == wanted and not a.priority_classes), None)
