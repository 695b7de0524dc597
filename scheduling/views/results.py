"""The result page: followed live while it runs, then the decision; its rejected-node
groups, and the offer to queue a stale or failed analysis again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from clusters import access
from clusters.selectors import snapshot_list
from operations.faults import BrokerUnavailable
from planning import selectors as planning_selectors
from scheduling import selectors, services
from scheduling.analyses import rendered_cache
from scheduling.constants import (
    REJECTED_GROUP_NODES_PER_PAGE,
    STALE_QUEUED_SECONDS,
    AnalysisStatus,
)
from scheduling.models import Analysis
from scheduling.presenters import pod as pod_presenters
from scheduling.presenters import volumes as volume_presenters
from scheduling.scheduler_config.presenter import score_weights
from scheduling.scheduler_config.report import profile_lines
from scheduling.views.contexts import (
    capacity_context,
    nodes_away_context,
    result_context,
    workload_context,
)
from scheduling.views.htmx import STOP_POLLING, HtmxHttpRequest


def _is_stale(analysis: Analysis) -> bool:
    """Queued with no worker taking it, or running on a worker that stopped renewing its lease.

    Either way nothing is lost: the reconciler of the next worker up queues it
    again (operations/reconciler.py). The page says so, and offers to queue it now.
    """
    if not analysis.is_active:
        return False
    now = timezone.now()
    if analysis.status == AnalysisStatus.RUNNING:
        return analysis.lease_expires_at is not None and analysis.lease_expires_at < now
    since = analysis.enqueued_at or analysis.created
    return since < now - timedelta(seconds=STALE_QUEUED_SECONDS)


def _result_context(
    request: HttpRequest, analysis: Analysis, *, page_url: str, shared: bool
) -> dict[str, Any]:
    stale = _is_stale(analysis)
    ctx: dict[str, Any] = {
        "analysis": analysis,
        "page_url": page_url,
        "shared": shared,
        "stale": stale,
        "scheduler_lines": profile_lines(
            analysis.scheduler, analysis.scheduler_difference, markdown=False
        ),
    }
    away = analysis.nodes_away if analysis.is_done else None
    if away is not None:
        return ctx | nodes_away_context(
            away,
            like=((analysis.pod.get("add_nodes") or {}).get("like") or None),
            nodes_page=request.GET.get("nodes"),
            returning_page=request.GET.get("returning"),
            preemptions_page=request.GET.get("preemptions"),
        )
    room = analysis.room if analysis.is_done else None
    if room is not None:
        return ctx | capacity_context(room, replicas_page=request.GET.get("replicas"))
    run = analysis.run if analysis.is_done else None
    if run is not None:
        ctx |= workload_context(
            run,
            cycles_page=request.GET.get("cycles"),
            replicas_page=request.GET.get("replicas"),
            victims_page=request.GET.get("victims"),
            pending_page=request.GET.get("pending"),
        )
        return ctx
    ex = analysis.explained if analysis.is_done else None
    if ex is not None:
        ctx |= result_context(
            ex,
            cpage=request.GET.get("cpage"),
            weights=score_weights(analysis.scheduler, analysis.pod),
            profile=analysis.scheduler.title,
        )
    return ctx


def _render_result(
    request: HtmxHttpRequest,
    analysis: Analysis,
    *,
    template: str,
    page_url: str,
    shared: bool,
    extra: dict[str, Any] | None = None,
) -> HttpResponse:
    ctx = _result_context(request, analysis, page_url=page_url, shared=shared) | (extra or {})
    target = request.htmx.target if request.htmx else None
    if target == "analysis-body":
        if analysis.is_active:
            return TemplateResponse(request, "scheduling/partials/body.html", ctx)
        body = render_to_string("scheduling/partials/body.html", ctx, request=request)
        return _finished_body(request, body, ctx)
    if target == "candidates":
        return TemplateResponse(request, "scheduling/partials/candidates.html", ctx)
    return TemplateResponse(request, template, ctx)


def _cached_result(
    request: HtmxHttpRequest,
    light: Analysis,
    full: Callable[[], Analysis],
    *,
    template: str,
    page_url: str,
    shared: bool,
    extra: Callable[[Analysis], dict[str, Any]] | None = None,
) -> HttpResponse:
    """A finished analysis' result body rendered once per process (rendered_cache), the
    page around it rendered per request (it holds the viewer's name, CSRF token and share
    links). ``light`` lacks the large columns; ``full`` loads them, on a miss only.
    Anything else (running, failed, a fragment, a workload's owner page whose body holds
    forms) renders as before."""
    target = request.htmx.target if request.htmx else None
    cacheable = (
        light.is_done and target in (None, "analysis-body") and (shared or not light.is_workload)
    )
    if not cacheable:
        analysis = full()
        return _render_result(
            request,
            analysis,
            template=template,
            page_url=page_url,
            shared=shared,
            extra=extra(analysis) if extra else None,
        )
    key = rendered_cache.analysis_etag(light, f"page|{page_url}|{shared}|{request.GET.urlencode()}")
    body = rendered_cache.rendered_get(key)
    if body is None:
        analysis = full()
        ctx = _result_context(request, analysis, page_url=page_url, shared=shared)
        body = render_to_string("scheduling/partials/body.html", ctx, request=request).encode()
        rendered_cache.rendered_put(key, body)
    ctx = {"analysis": light, "page_url": page_url, "shared": shared} | (
        extra(light) if extra else {}
    )
    if target == "analysis-body":
        return _finished_body(request, body.decode(), ctx)
    ctx["body_html"] = mark_safe(body.decode())  # rendered by our own template above
    return TemplateResponse(request, template, ctx)


def _finished_body(request: HttpRequest, body: str, ctx: dict[str, Any]) -> HttpResponse:
    """The body that ends a page's polling (the analysis is done or failed). The owner's
    page also gets its controls again, swapped out of band (the files, "Compare with…"
    appear only once it is done): followed live, it ends as a reload shows it."""
    if not ctx["shared"]:
        body += render_to_string(
            "scheduling/partials/actions.html", ctx | {"oob": True}, request=request
        )
    return HttpResponse(body, status=STOP_POLLING)


def analysis_detail(request: HtmxHttpRequest, analysis_id: int) -> HttpResponse:
    light = selectors.analysis_get_light(user=request.user, analysis_id=analysis_id)
    return _cached_result(
        request,
        light,
        lambda: selectors.analysis_get(user=request.user, analysis_id=analysis_id),
        template="scheduling/analysis_detail.html",
        page_url=light.get_absolute_url(),
        shared=False,
        extra=lambda a: {
            "edit_url": _edit_url(a),
            # Per request, never in the cached body: a team member reads, its owner deletes.
            "may_delete": access.can_delete(request.user, a.snapshot),
            "share_links": _share_links(request, a),
            "may_share": access.can_share(request.user, a),
            "other_snapshots": [
                s
                for s in snapshot_list(user=request.user).filter(status="ready")[:50]
                if s.pk != a.snapshot_id
            ],
            # Answers of its kind (planning.selectors.compare_choices says which).
            "compare_choices": (
                planning_selectors.compare_choices(user=request.user, around=a) if a.is_done else []
            ),
        },
    )


def _edit_url(analysis: Analysis) -> str:
    """Where "Edit and run again" starts: the room page with the size of an every-class
    table, else the what-if form holding what was submitted."""
    if analysis.is_take_nodes_away:
        return _away_url(analysis)
    if analysis.is_capacity and analysis.is_by_class:
        size = analysis.pod["size"]
        query = urlencode({**size, "limit": analysis.pod["limit"]})
        return reverse("scheduling:snapshot-room", args=[analysis.snapshot_id]) + f"?{query}"
    return reverse("scheduling:analysis-new", args=[analysis.snapshot_id]) + f"?from={analysis.pk}"


def _away_url(analysis: Analysis) -> str:
    """The take-nodes-away form holding the same question."""
    asked = analysis.pod or {}
    query: list[tuple[str, str]] = [("nodes", n) for n in asked.get("nodes") or []]
    for key in ("selector", "zone", "how"):
        if asked.get(key):
            query.append((key, str(asked[key])))
    if asked.get("force"):
        query.append(("force", "1"))
    if (asked.get("max_unavailable") or 1) > 1:
        query.append(("max_unavailable", str(asked["max_unavailable"])))
    add = asked.get("add_nodes") or {}
    if add.get("count"):
        query += [("add_count", str(add["count"])), ("add_like", str(add.get("like") or ""))]
    url = reverse("scheduling:snapshot-take-nodes-away", args=[analysis.snapshot_id])
    return f"{url}?{urlencode(query)}" if query else url


def _rejected_nodes(
    request: HtmxHttpRequest, analysis: Analysis, group_index: int, *, page_url: str, shared: bool
) -> HttpResponse:
    ex = analysis.explained if analysis.is_done else None
    if ex is None:
        raise Http404("The analysis has no result yet.")
    groups = pod_presenters.rejected_groups(ex)
    if not 0 <= group_index < len(groups):
        raise Http404("No such group of nodes.")
    group = groups[group_index]
    members = set(group.nodes)
    page = pod_presenters.paginate(
        group.nodes, page=request.GET.get("page"), per_page=REJECTED_GROUP_NODES_PER_PAGE
    )
    ctx = {
        "analysis": analysis,
        "group": group,
        "page": page,
        "page_url": page_url,
        "shared": shared,
        "group_url": f"{page_url}rejected/{group.index}/",
        # The attach counts of the group's nodes NodeVolumeLimits rejected.
        "node_volumes": {
            n: v
            for n, v in volume_presenters.node_volumes(ex).items()
            if v.attachments and n in members
        },
    }
    if request.htmx:
        return TemplateResponse(request, "scheduling/partials/rejected_nodes.html", ctx)
    return TemplateResponse(request, "scheduling/rejected_nodes.html", ctx)


def analysis_rejected_nodes(request: HtmxHttpRequest, analysis_id: int, group: int) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    return _rejected_nodes(
        request, analysis, group, page_url=analysis.get_absolute_url(), shared=False
    )


def _share_links(request: HttpRequest, analysis: Analysis) -> list[dict[str, Any]]:
    """The analysis' active links, each with whether this user may revoke it (who made
    it, the snapshot's owner, a team admin: clusters/access.py)."""
    return [
        {
            "link": link,
            "url": request.build_absolute_uri(link.get_absolute_url()),
            "may_revoke": access.can_revoke(request.user, link),
        }
        for link in selectors.share_link_list(analysis=analysis)
    ]


@require_POST  # it changes state: a link, a prefetch or a crawler must not run it
def analysis_retry(request: HttpRequest, analysis_id: int) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    if analysis.is_failed or _is_stale(analysis):
        access.check_retry(request.user, analysis)
        try:
            services.analysis_retry(analysis=analysis, requested_by=request.user)
        except BrokerUnavailable:
            messages.warning(
                request,
                "The analysis is queued again, but the task queue (Redis) is unavailable: "
                "it runs as soon as the queue is back.",
            )
        else:
            messages.info(request, "The analysis was queued again.")
    return HttpResponseRedirect(analysis.get_absolute_url())
