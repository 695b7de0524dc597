"""Share links: made by who asked the analysis (or the snapshot's owner, a team admin),
revoked by who made them (or the owner, a team admin); the read-only page under /s/."""

from __future__ import annotations

from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from clusters import access
from scheduling import selectors, services
from scheduling.models import Analysis
from scheduling.views.htmx import HtmxHttpRequest
from scheduling.views.results import (
    _cached_result,
    _rejected_nodes,
    _share_links,
)


def _share_links_response(request: HtmxHttpRequest, analysis: Analysis) -> HttpResponse:
    if request.htmx:
        return TemplateResponse(
            request,
            "scheduling/partials/share_links.html",
            {
                "analysis": analysis,
                "share_links": _share_links(request, analysis),
                "may_share": access.can_share(request.user, analysis),
            },
        )
    return HttpResponseRedirect(analysis.get_absolute_url() + "#share")


@require_POST
def share_link_create(request: HtmxHttpRequest, analysis_id: int) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    access.check_share(request.user, analysis)
    services.share_link_create(analysis=analysis, created_by=request.user)
    return _share_links_response(request, analysis)


@require_POST
def share_link_revoke(request: HtmxHttpRequest, analysis_id: int, token: str) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    link = selectors.share_link_get(user=request.user, token=token)
    if link.analysis_id != analysis.pk:
        raise Http404("No such share link.")
    access.check_revoke(request.user, link)
    services.share_link_revoke(share_link=link)
    return _share_links_response(request, analysis)


def shared_analysis(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """One analysis, read-only, for anyone holding an active token; nothing of the snapshot."""
    light = selectors.shared_analysis_get(token=token, light=True)
    response = _cached_result(
        request,
        light,
        lambda: selectors.shared_analysis_get(token=token),
        template="scheduling/shared.html",
        page_url=reverse("scheduling:share", args=[token]),
        shared=True,
    )
    return response


def shared_rejected_nodes(request: HtmxHttpRequest, token: str, group: int) -> HttpResponse:
    analysis = selectors.shared_analysis_get(token=token)
    return _rejected_nodes(
        request,
        analysis,
        group,
        page_url=reverse("scheduling:share", args=[token]),
        shared=True,
    )
