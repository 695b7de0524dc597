"""One cycle of a workload run, explained as a single-pod what-if of its own."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.views.decorators.http import require_POST

from scheduling import selectors, services
from scheduling.analyses import submission


@require_POST
def analysis_cycle_explain(request: HttpRequest, analysis_id: int, cycle: int) -> HttpResponse:
    """The full single-pod explanation of one cycle of a workload run, as it stood then
    (queued once, then the same analysis is shown again)."""
    parent = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    try:
        child = services.cycle_explanation_create(
            parent=parent, cycle=cycle, requested_by=request.user
        )
    except submission.PodRejected as e:
        raise Http404(e.message) from None
    return HttpResponseRedirect(child.get_absolute_url())
