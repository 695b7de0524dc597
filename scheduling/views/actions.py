"""Everyday actions on one analysis: delete it, run it again, export its answer."""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from clusters import access
from clusters.selectors import snapshot_get
from scheduling import selectors, services
from scheduling.analyses import submission
from scheduling.presenters.take_nodes_away import NodesAway
from scheduling.reports.escaping import md_text
from scheduling.reports.markdown import render_markdown, render_workload_markdown
from scheduling.reports.take_nodes_away import render_markdown as render_away_markdown
from scheduling.scheduler_config.report import profile_lines


@require_POST
def analysis_delete(request: HttpRequest, analysis_id: int) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    access.check_delete(request.user, analysis)
    snapshot_id = analysis.snapshot_id
    services.analysis_delete(analysis=analysis)
    messages.info(request, f"The analysis of {analysis.pod_key} and its share links are deleted.")
    return HttpResponseRedirect(reverse("scheduling:analysis-list", args=[snapshot_id]))


@require_POST
def analysis_rerun(request: HttpRequest, analysis_id: int) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    target = snapshot_get(user=request.user, snapshot_id=request.POST.get("snapshot") or 0)
    try:
        again = services.analysis_rerun(
            analysis=analysis, snapshot=target, requested_by=request.user
        )
    except submission.PodRejected as e:
        messages.error(request, f"It cannot run on {target.name}: {e.message}")
        return HttpResponseRedirect(analysis.get_absolute_url())
    return HttpResponseRedirect(again.get_absolute_url())


@require_GET
def analysis_export(request: HttpRequest, analysis_id: int, fmt: str) -> HttpResponse:
    """The answer as a file: the result contract (JSON, as the API and whatif --format
    json give it) or the pull-request comment (markdown, as whatif --format markdown)."""
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    if not analysis.is_done or analysis.result is None:
        raise Http404("The analysis has no result yet.")
    stem = f"whatif-{analysis.pk}"
    if fmt == "json":
        body = json.dumps(analysis.result, indent=2) + "\n"
        response = HttpResponse(body, content_type="application/json")
    else:
        name = f"snapshot {analysis.snapshot_id} “{md_text(analysis.snapshot.name)}”"
        run = analysis.run
        ex = analysis.explained
        if analysis.is_capacity:
            raise Http404("A capacity answer is exported as JSON only.")
        away = analysis.nodes_away
        if away is not None:
            body = render_away_markdown(NodesAway.from_dict(away), snapshot=name, gate_failures=[])
        elif run is not None:
            body = render_workload_markdown(run, snapshot=name, gate_failures=[])
        elif ex is not None:
            body = render_markdown(ex, snapshot=name, gate_failures=[])
        else:
            raise Http404("The analysis has no result yet.")
        # The profile it ran under heads the comment, as in whatif --format markdown.
        lines = profile_lines(analysis.scheduler, analysis.scheduler_difference, markdown=True)
        if lines:
            body = "\n".join(lines) + "\n\n" + body
        response = HttpResponse(body, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{stem}.{fmt}"'
    return response
