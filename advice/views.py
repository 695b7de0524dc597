"""Pages of the advice app: the "How to avoid this" section of a result page (an HTMX
partial that follows the advice while a worker searches it), and Apply.

The section is loaded into the result page by a template tag and polled at its own URL,
so the result body (rendered once per process) stays as it is. Every hx-post form works
as a plain POST, and every poll has a link.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from advice import selectors, services
from advice.apply import cluster_change
from advice.presenters import outcome_words
from scheduling import selectors as analyses
from scheduling.models import Analysis
from scheduling.running.budgets import TooManyUnfinished

STOP_POLLING = 286


def _section(
    request: HttpRequest,
    analysis: Analysis,
    *,
    shared: bool,
    section_url: str,
    problem: str = "",
) -> HttpResponse:
    ctx = selectors.section_context(analysis, shared=shared, section_url=section_url)
    ctx["problem"] = problem
    if not getattr(request, "htmx", False):
        # Without JavaScript the section is part of the result page.
        page = analysis.get_absolute_url() if not shared else section_url.removesuffix("advice/")
        return HttpResponseRedirect(f"{page}#advice")
    status = 200 if ctx["polls"] else STOP_POLLING
    return TemplateResponse(request, "advice/_section.html", ctx, status=status)


@require_http_methods(["GET", "POST"])
def advice_section(request: HttpRequest, analysis_id: int) -> HttpResponse:
    """/analyses/{id}/advice/: the section (GET), or advice asked for (POST)."""
    analysis = analyses.analysis_get_light(user=request.user, analysis_id=analysis_id)
    url = reverse("advice:section", args=[analysis.pk])
    problem = ""
    if request.method == "POST":
        try:
            services.advice_request(analysis=analysis, requested_by=request.user)
        except services.NotAdvisable as e:
            problem = e.message
        except TooManyUnfinished as e:
            problem = e.message
    return _section(request, analysis, shared=False, section_url=url, problem=problem)


@require_GET
def shared_advice_section(request: HttpRequest, token: str) -> HttpResponse:
    """/s/{token}/advice/: the section of a shared analysis, read-only (no one starts
    advice through a share link)."""
    analysis = analyses.shared_analysis_get(token=token, light=True)
    url = reverse("advice:share-section", args=[token])
    return _section(request, analysis, shared=True, section_url=url)


@require_GET
def advice_apply(request: HttpRequest, analysis_id: int, index: int) -> HttpResponse:
    """Apply item ``index``: the what-if form holding the changed manifest, or for a
    change to the cluster, what to do and the YAML to apply."""
    analysis = analyses.analysis_get_light(user=request.user, analysis_id=analysis_id)
    row = services.advice_get(analysis=analysis)
    advice = selectors.advice_full(row).advice if row is not None and row.is_done else None
    if advice is None or not 0 <= index < len(advice.items):
        raise Http404("No such advice.")
    item = advice.items[index]
    todo = cluster_change(item)
    if todo is None:
        query = urlencode({"from": analysis.pk, "advice": index})
        new = reverse("scheduling:analysis-new", args=[analysis.snapshot_id])
        return HttpResponseRedirect(f"{new}?{query}")
    return TemplateResponse(
        request,
        "advice/apply.html",
        {
            "analysis": analysis,
            "item": item,
            "todo": todo,
            "index": index,
            "then": outcome_words(item.outcome, item.victims, item.pdbs_exceeded),
        },
    )
