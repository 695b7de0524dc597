"""The lists of analyses: one snapshot's, or every analysis of the user."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from clusters.selectors import snapshot_get, snapshot_list
from scheduling import selectors
from scheduling.constants import (
    Outcome,
    WorkloadOutcome,
)


def analysis_list(request: HttpRequest, snapshot_id: int | None = None) -> HttpResponse:
    """The analyses of one snapshot, or (no snapshot) every analysis of the user."""
    snapshot = (
        None if snapshot_id is None else snapshot_get(user=request.user, snapshot_id=snapshot_id)
    )
    filters = selectors.AnalysisFilters.from_query(request.GET)
    analyses = filters.apply(
        selectors.analysis_rows(user=request.user, snapshot=snapshot, team=request.GET.get("team"))
    )
    page = Paginator(analyses, 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "snapshot": snapshot,
        "page": page,
        "filters": filters,
        "query": query.urlencode(),
        "outcomes": [
            *Outcome.choices,
            ("workload", "A workload"),
            *((v, f"A workload: {label.lower()}") for v, label in WorkloadOutcome.choices),
        ],
        "snapshots": [] if snapshot else snapshot_list(user=request.user)[:200],
    }
    return TemplateResponse(request, "scheduling/analysis_list.html", context)
