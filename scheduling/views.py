"""Pages: submit a what-if, follow it live, read the decision, share it.

Function views returning TemplateResponse. A page's fragments are partials,
rendered whole or alone when htmx asks for them (request.htmx.target). Every
hx-get has an href and every hx-post form works as a plain POST.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from advice.apply import advice_manifest
from clusters.demo import demo_cat3_pod
from clusters.models import Pod as PodRow
from clusters.models import Snapshot
from clusters.selectors import pod_manifest, snapshot_demo_find, snapshot_get, snapshot_list
from clusters.services import snapshot_load_demo
from config.faults import BrokerUnavailable
from config.input_limits import submission_body
from planning import selectors as planning_selectors
from scheduling import rendered_cache, selectors, services, submission
from scheduling.constants import (
    CANDIDATES_PER_PAGE,
    CAPACITY_ROWS_PER_PAGE,
    REJECTED_GROUP_NODES_PER_PAGE,
    STALE_QUEUED_SECONDS,
    VICTIM_GROUPS_PER_PAGE,
    WORKLOAD_ROWS_PER_PAGE,
    AnalysisSource,
    AnalysisStatus,
    Outcome,
    WorkloadOutcome,
)
from scheduling.engine import CandidateRecord, Explanation
from scheduling.engine.capacity import DEFAULT_LIMIT, MAX_LIMIT, Capacity, RoomByClass
from scheduling.forms import CloneForm, ManifestForm, PodForm, RoomForm, ScaleUpForm
from scheduling.models import Analysis
from scheduling.presenters import capacity as capacity_presenters
from scheduling.presenters import pod as pod_presenters
from scheduling.presenters import timeline as timeline_presenters
from scheduling.presenters import workload as workload_presenters
from scheduling.presenters.profiles import score_weights
from scheduling.profile_forms import SchedulerConfigForm
from scheduling.reports.escaping import md_text
from scheduling.reports.markdown import render_markdown, render_workload_markdown
from scheduling.reports.profile import profile_lines, profile_phrase
from scheduling.scheduler_config import (
    SchedulerChoice,
    SchedulerSource,
    choice_as_text,
    snapshot_choice,
)
from scheduling.workloads import WorkloadRun

# The what-if form's preset menu, when no preset is chosen.
NONE_GIVEN = "None: the snapshot's configuration (else the default)"

STOP_POLLING = 286


class HtmxHttpRequest(HttpRequest):
    """A request as the views get it: django_htmx's HtmxMiddleware has set ``htmx``."""

    htmx: HtmxDetails


# --- submitting ----------------------------------------------------------------------------


def _submit(
    form: ManifestForm | PodForm | CloneForm,
    *,
    snapshot: Snapshot,
    source: str,
    capacity_limit: str | None = None,
    scheduler: SchedulerChoice | None = None,
) -> HttpResponse | None:
    """The redirect to the queued analysis of a valid form's pod, or None with the form's
    error set (the pod was invalid, or the service turned it down). ``capacity_limit``
    (the "How many fit?" button): how many replicas of the form's pod to try instead."""
    if not form.is_valid():
        return None
    objects = getattr(form, "objects", None)
    classes = getattr(form, "priority_classes", [])
    try:
        if capacity_limit is not None:
            template = form.pod
            if template is None and objects is not None and len(objects) == 1:
                template = objects[0] if objects[0].get("kind") == "Pod" else None
            if template is None:
                form.add_error(
                    None,
                    "“How many fit?” takes one Pod: its replicas are tried as a "
                    "ReplicaSet's. Give a single Pod manifest (a Deployment's "
                    "spec.template, say, as a Pod).",
                )
                return None
            analysis = services.analysis_create_capacity(
                snapshot=snapshot,
                pod=template,
                limit=_int_or_none(capacity_limit),
                source=source,
                priority_classes=classes,
                scheduler=scheduler,
            )
        elif objects is not None:
            analysis = services.analysis_create_workload(
                snapshot=snapshot,
                objects=objects,
                recreate_victims=bool(form.cleaned_data.get("recreate_victims")),
                timeline=bool(form.cleaned_data.get("timeline")),
                source=source,
                priority_classes=classes,
                scheduler=scheduler,
            )
        elif form.pod is not None:
            analysis = services.analysis_create(
                snapshot=snapshot,
                pod=form.pod,
                source=source,
                priority_classes=classes,
                scheduler=scheduler,
            )
        else:
            return None
    except submission.PodRejected as e:
        form.add_error(None, e.message)
        return None
    return HttpResponseRedirect(analysis.get_absolute_url())


def _example_class(snapshot: Snapshot) -> str:
    """The class an example pod carries: a class no pod runs with yet (one being
    planned, as the demo's cat-3), the highest first; else the highest a user made."""
    classes = snapshot.priority_classes.exclude(name__startswith="system-").order_by(
        "-value", "name"
    )
    unused = classes.filter(pod_count=0).values_list("name", flat=True).first()
    return unused or classes.values_list("name", flat=True).first() or ""


def _example(snapshot: Snapshot) -> dict[str, str]:
    """A pod to start from, as the short form's initial values and as a manifest."""
    klass = _example_class(snapshot)
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: example\n  namespace: default\n"
        "spec:\n"
        + (f"  priorityClassName: {klass}\n" if klass else "")
        + "  containers:\n  - name: main\n    image: registry.k8s.io/pause:3.10\n"
        '    resources:\n      requests:\n        cpu: "1"\n        memory: 2Gi\n'
    )
    return {
        "manifest": manifest,
        "name": "example",
        "namespace": "default",
        "priority_class": klass,
        "cpu": "1",
        "memory": "2Gi",
    }


def _int_or_none(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


NEW_ANALYSIS_MODES = ("manifest", "form")


@submission_body
@require_http_methods(["GET", "POST"])
def analysis_new(request: HttpRequest, snapshot_id: int) -> HttpResponse:
    """One form with a tab per way to describe the pod; the chosen tab is the ``mode``
    radio. Each tab keeps what was typed into it when another is chosen or submitted."""
    snapshot = snapshot_get(user=request.user, snapshot_id=snapshot_id)
    mode = request.POST.get("mode") or request.GET.get("mode") or "manifest"
    if mode not in NEW_ANALYSIS_MODES:
        mode = "manifest"
    initial: dict[str, Any] = _example(snapshot) if request.GET.get("example") else {}
    if request.GET.get("from"):
        # "Edit and run again": the form starts from what an earlier what-if submitted.
        earlier = selectors.analysis_get(user=request.user, analysis_id=request.GET["from"])
        initial = {
            "manifest": services.analysis_manifest(analysis=earlier),
            "recreate_victims": earlier.recreate_victims,
            "timeline": earlier.timeline,
            "limit": earlier.pod.get("limit") if earlier.is_capacity else None,
        }
        if earlier.scheduler_source == SchedulerSource.ANALYSIS:
            # Its own configuration comes along; one it took from the snapshot applies anyway.
            initial["scheduler_preset"] = earlier.scheduler_preset
            initial["scheduler_config"] = choice_as_text(earlier.scheduler)
        if request.GET.get("advice"):
            # "Apply" on an item of its advice: what was submitted, with that change made.
            initial["manifest"] = advice_manifest(analysis=earlier, item=request.GET["advice"])
        mode = "manifest"
    if request.method == "POST":
        # The tab not submitted shows what it holds again, without being checked.
        initial = request.POST.dict()
    manifest_form = ManifestForm(initial=initial, snapshot=snapshot)
    pod_form = PodForm(initial=initial, snapshot=snapshot)
    scheduler_form = SchedulerConfigForm(initial=initial, required=False, none_label=NONE_GIVEN)
    if request.method == "POST":
        scheduler_form = SchedulerConfigForm(
            request.POST, request.FILES, required=False, none_label=NONE_GIVEN
        )
        form: ManifestForm | PodForm
        if mode == "form":
            form = pod_form = PodForm(request.POST, snapshot=snapshot)
            source = AnalysisSource.FORM
        else:
            form = manifest_form = ManifestForm(request.POST, request.FILES, snapshot=snapshot)
            source = AnalysisSource.MANIFEST
        capacity_limit = (
            request.POST.get("limit", "") if request.POST.get("action") == "capacity" else None
        )
        # A bad configuration is shown beside its field; the pod's form is checked too.
        scheduler_ok = scheduler_form.is_valid()
        form.is_valid()
        submitted = (
            _submit(
                form,
                snapshot=snapshot,
                source=source,
                capacity_limit=capacity_limit,
                scheduler=scheduler_form.choice,
            )
            if scheduler_ok
            else None
        )
        if submitted is not None:
            return submitted
    return TemplateResponse(
        request,
        "scheduling/analysis_new.html",
        {
            "snapshot": snapshot,
            "mode": mode,
            "capacity_limit": request.POST.get("limit") or initial.get("limit") or DEFAULT_LIMIT,
            "max_limit": MAX_LIMIT,
            "manifest_form": manifest_form,
            "pod_form": pod_form,
            "scheduler_form": scheduler_form,
            "scheduler_default": profile_phrase(snapshot_choice(snapshot)),
            "recent": selectors.analysis_rows(user=request.user, snapshot=snapshot)[:10],
        },
        status=400 if request.method == "POST" else 200,
    )


@require_POST
def demo_whatif(request: HttpRequest) -> HttpResponse:
    """The home page's one click to a first what-if: the demo's question (where would a
    cat-3 pod go, whom would it preempt?) asked on the user's demo snapshot, loaded
    first if they have none."""
    snapshot = snapshot_demo_find(user=request.user) or snapshot_load_demo(owner=request.user)
    analysis = services.analysis_create(
        snapshot=snapshot, pod=demo_cat3_pod(), source=AnalysisSource.MANIFEST
    )
    return HttpResponseRedirect(analysis.get_absolute_url())


@submission_body
@require_http_methods(["GET", "POST"])
def snapshot_room(request: HttpRequest, snapshot_id: int) -> HttpResponse:
    """Room per tier: one size in every user PriorityClass at once. The form (its values
    from the query string: ?cpu=2&memory=4Gi&limit=50) queues a capacity analysis of
    every class; its page shows the table."""
    snapshot = snapshot_get(user=request.user, snapshot_id=snapshot_id)
    form = RoomForm(request.POST or None, initial=RoomForm.initial_from(request.GET))
    if request.method == "POST" and form.is_valid():
        # The same table asked again follows the one stored (one loop run per question).
        stored = form.size and selectors.room_by_class_find(
            snapshot=snapshot, size=form.size, limit=form.cleaned_data["limit"]
        )
        if stored:
            return HttpResponseRedirect(stored.get_absolute_url())
        try:
            analysis = services.analysis_create_capacity(
                snapshot=snapshot,
                size=form.size,
                limit=form.cleaned_data["limit"],
                source=AnalysisSource.FORM,
            )
        except submission.PodRejected as e:
            form.add_error(None, e.message)
        else:
            return HttpResponseRedirect(analysis.get_absolute_url())
    classes = list(
        snapshot.priority_classes.filter(builtin=False)
        .exclude(name__startswith="system-")
        .order_by("-value", "name")
    )
    return TemplateResponse(
        request,
        "scheduling/room.html",
        {
            "snapshot": snapshot,
            "form": form,
            "classes": classes,
            # Pods naming no class are a tier of their own unless a class is the default.
            "default_class": next((c for c in classes if c.global_default), None),
        },
        status=400 if request.method == "POST" else 200,
    )


@submission_body
@require_http_methods(["GET", "POST"])
def analysis_scale_up(request: HttpRequest, snapshot_id: int, pod_id: int) -> HttpResponse:
    """'Scale this Deployment/ReplicaSet up by N': N more replicas of the pod's owner,
    made from the pod's own manifest, rolled out through the scheduling loop."""
    snapshot = snapshot_get(user=request.user, snapshot_id=snapshot_id)
    row = get_object_or_404(PodRow, pk=pod_id, snapshot=snapshot)
    source_pod = pod_manifest(pod=row)
    if source_pod is None:
        raise Http404("The pod is not among the snapshot's objects.")
    form = ScaleUpForm(request.POST or None, snapshot=snapshot, pod=source_pod, owner=row.owner)
    if request.method == "POST" and form.is_valid() and form.objects is not None:
        # The new replicas' generated names avoid the ones the owner's pods already have.
        taken = [
            f"{ns}/{name}"
            for ns, name in snapshot.pods.filter(owner=row.owner).values_list("namespace", "name")
        ]
        try:
            analysis = services.analysis_create_workload(
                snapshot=snapshot,
                objects=form.objects,
                recreate_victims=form.cleaned_data["recreate_victims"],
                timeline=form.cleaned_data["timeline"],
                source=AnalysisSource.CLONE,
                field="replicas",
                taken=taken,
            )
        except submission.PodRejected as e:
            form.add_error("replicas", e.message)
        else:
            return HttpResponseRedirect(analysis.get_absolute_url())
    return TemplateResponse(
        request,
        "scheduling/analysis_scale.html",
        {
            "snapshot": snapshot,
            "pod_row": row,
            "form": form,
            "running": snapshot.pods.filter(owner=row.owner).count(),
        },
        status=400 if request.method == "POST" else 200,
    )


@submission_body
@require_http_methods(["GET", "POST"])
def analysis_clone(request: HttpRequest, snapshot_id: int, pod_id: int) -> HttpResponse:
    """'What if this pod had class X': the pod cloned as pending with another class."""
    snapshot = snapshot_get(user=request.user, snapshot_id=snapshot_id)
    row = get_object_or_404(PodRow, pk=pod_id, snapshot=snapshot)
    source_pod = pod_manifest(pod=row)
    if source_pod is None:
        raise Http404("The pod is not among the snapshot's objects.")
    initial = {"priority_class": request.GET.get("class") or ""}
    form = CloneForm(request.POST or None, snapshot=snapshot, pod=source_pod, initial=initial)
    if request.method == "POST":
        submitted = _submit(form, snapshot=snapshot, source=AnalysisSource.CLONE)
        if submitted is not None:
            return submitted
    return TemplateResponse(
        request,
        "scheduling/analysis_clone.html",
        {"snapshot": snapshot, "pod_row": row, "form": form},
        status=400 if request.method == "POST" else 200,
    )


def analysis_list(request: HttpRequest, snapshot_id: int | None = None) -> HttpResponse:
    """The analyses of one snapshot, or (no snapshot) every analysis of the user."""
    snapshot = (
        None if snapshot_id is None else snapshot_get(user=request.user, snapshot_id=snapshot_id)
    )
    filters = selectors.AnalysisFilters.from_query(request.GET)
    analyses = filters.apply(selectors.analysis_rows(user=request.user, snapshot=snapshot))
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


# --- the result -------------------------------------------------------------------------------


def _is_stale(analysis: Analysis) -> bool:
    """Queued with no worker taking it, or running on a worker that stopped renewing its lease.

    Either way nothing is lost: the reconciler of the next worker up queues it
    again (config/reconciler.py). The page says so, and offers to queue it now.
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


def workload_context(
    run: WorkloadRun,
    *,
    cycles_page: str | None = None,
    replicas_page: str | None = None,
    victims_page: str | None = None,
    pending_page: str | None = None,
) -> dict[str, Any]:
    """What the workload result page shows of a stored run; long lists paginated."""
    waits = timeline_presenters.pod_waits(run)
    return {
        "run": run,
        "sentence": workload_presenters.workload_sentence(run),
        "stop_text": workload_presenters.stop_reason_text(run),
        "cascade": workload_presenters.cascade_sentence(run),
        "glossary": workload_presenters.glossary(run),
        "pdb_paragraphs": [(r, workload_presenters.pdb_paragraph(r)) for r in run.pdb_report],
        "victim_page": pod_presenters.paginate(
            workload_presenters.victim_groups(run),
            page=victims_page,
            per_page=VICTIM_GROUPS_PER_PAGE,
        ),
        "run_svg": workload_presenters.run_svg(run),
        "timeline_svg": timeline_presenters.timeline_svg(run),
        "wait_sentences": timeline_presenters.waits_sentences(run, waits),
        "time_zero": timeline_presenters.time_zero_sentence(run),
        "pod_waits": {w.pod: w for w in waits},
        "nodes_svg": workload_presenters.nodes_svg(run.nodes),
        "hypothetical": pod_presenters.hypothetical_class_lines(run.hypothetical_classes),
        "cycle_page": pod_presenters.paginate(
            run.cycles, page=cycles_page, per_page=WORKLOAD_ROWS_PER_PAGE
        ),
        "pod_page": pod_presenters.paginate(
            run.pods, page=replicas_page, per_page=WORKLOAD_ROWS_PER_PAGE
        ),
        "pending_page": pod_presenters.paginate(
            run.left_pending(),
            page=pending_page,
            per_page=WORKLOAD_ROWS_PER_PAGE,
        ),
    }


def capacity_context(
    room: Capacity | RoomByClass, *, replicas_page: str | None = None
) -> dict[str, Any]:
    """What the "how many fit?" page shows: the sentence, the cost curve and the replicas
    page by page; or, for every class at once, the table."""
    if isinstance(room, RoomByClass):
        return {
            "room_table": room,
            "sentence": capacity_presenters.room_sentence(room),
            "room_unplaced": capacity_presenters.room_unplaced(room),
        }
    return {
        "capacity": room,
        "sentence": capacity_presenters.capacity_sentence(room),
        "stop_text": capacity_presenters.stop_text(room),
        "curve_svg": capacity_presenters.curve_svg(room),
        "class_fills": capacity_presenters.class_fills(room),
        "template_size": capacity_presenters.size_text(dict(room.template.requests)),
        "pdbs_exceeded": [(p, room.pdb_budgets[p]) for p in room.pdbs_exceeded],
        "replica_page": pod_presenters.paginate(
            capacity_presenters.replica_rows(room),
            page=replicas_page,
            per_page=CAPACITY_ROWS_PER_PAGE,
        ),
    }


def result_context(
    ex: Explanation,
    *,
    cpage: str | None = None,
    weights: dict[str, int] | None = None,
    profile: str = "the default profile",
) -> dict[str, Any]:
    """What the result templates show of an explanation (the page, the shared page, and
    the tests that compare it with the CLI text); ``weights``: the Score weights of the
    profile it ran under (None: the default profile's)."""
    candidates = ex.candidates
    page = pod_presenters.paginate(candidates, page=cpage, per_page=CANDIDATES_PER_PAGE)
    groups = pod_presenters.rejected_groups(ex)
    reason, message = pod_presenters.event_message(ex)
    return {
        "ex": ex,
        "sentence": pod_presenters.outcome_sentence(ex),
        "why": pod_presenters.why_sentence(ex),
        "notices": pod_presenters.input_notices(ex),
        "hypothetical": pod_presenters.hypothetical_class_lines(ex.hypothetical_classes),
        "victim_notes": pod_presenters.victim_notes(ex),
        "event_reason": reason,
        "event_message": message,
        "score_table": pod_presenters.score_table(ex, weights=weights),
        "score_profile": profile,
        "criteria": pod_presenters.CRITERIA_EXPLAINED,
        "criterion_columns": pod_presenters.CRITERION_COLUMNS,
        "candidate_page": page,
        "candidate_rows": pod_presenters.candidate_rows(
            [c for c in page.object_list if isinstance(c, CandidateRecord)],
            start=page.start_index() - 1 if candidates else 0,
        ),
        "groups": groups,
        "group_preview": REJECTED_GROUP_NODES_PER_PAGE,
        "rejected_count": sum(g.count for g in groups),
        "notes": pod_presenters.sampling_notes(ex),
        "warnings": ex.warnings,
        "svg": pod_presenters.capacity_svg(ex.chosen_node, ex.victim_details, outcome=ex.outcome),
        "victim_rows": pod_presenters.victim_rows(ex),
    }


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
            "share_links": _share_links(request, a),
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
    if analysis.is_capacity and analysis.is_by_class:
        size = analysis.pod["size"]
        query = urlencode({**size, "limit": analysis.pod["limit"]})
        return reverse("scheduling:snapshot-room", args=[analysis.snapshot_id]) + f"?{query}"
    return reverse("scheduling:analysis-new", args=[analysis.snapshot_id]) + f"?from={analysis.pk}"


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
    }
    if request.htmx:
        return TemplateResponse(request, "scheduling/partials/rejected_nodes.html", ctx)
    return TemplateResponse(request, "scheduling/rejected_nodes.html", ctx)


def analysis_rejected_nodes(request: HtmxHttpRequest, analysis_id: int, group: int) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    return _rejected_nodes(
        request, analysis, group, page_url=analysis.get_absolute_url(), shared=False
    )


@require_POST
@require_POST
def analysis_cycle_explain(request: HttpRequest, analysis_id: int, cycle: int) -> HttpResponse:
    """The full single-pod explanation of one cycle of a workload run, as it stood then
    (queued once, then the same analysis is shown again)."""
    parent = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    try:
        child = services.cycle_explanation_create(parent=parent, cycle=cycle)
    except submission.PodRejected as e:
        raise Http404(e.message) from None
    return HttpResponseRedirect(child.get_absolute_url())


@require_POST  # it changes state: a link, a prefetch or a crawler must not run it
def analysis_retry(request: HttpRequest, analysis_id: int) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    if analysis.is_failed or _is_stale(analysis):
        try:
            services.analysis_retry(analysis=analysis)
        except BrokerUnavailable:
            messages.warning(
                request,
                "The analysis is queued again, but the task queue (Redis) is unavailable: "
                "it runs as soon as the queue is back.",
            )
        else:
            messages.info(request, "The analysis was queued again.")
    return HttpResponseRedirect(analysis.get_absolute_url())


# --- sharing ------------------------------------------------------------------------------------


def _share_links(request: HttpRequest, analysis: Analysis) -> list[dict[str, Any]]:
    return [
        {"link": link, "url": request.build_absolute_uri(link.get_absolute_url())}
        for link in selectors.share_link_list(analysis=analysis)
    ]


def _share_links_response(request: HtmxHttpRequest, analysis: Analysis) -> HttpResponse:
    if request.htmx:
        return TemplateResponse(
            request,
            "scheduling/partials/share_links.html",
            {"analysis": analysis, "share_links": _share_links(request, analysis)},
        )
    return HttpResponseRedirect(analysis.get_absolute_url() + "#share")


@require_POST
def share_link_create(request: HtmxHttpRequest, analysis_id: int) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    services.share_link_create(analysis=analysis)
    return _share_links_response(request, analysis)


@require_POST
def share_link_revoke(request: HtmxHttpRequest, analysis_id: int, token: str) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    link = selectors.share_link_get(user=request.user, token=token)
    if link.analysis_id != analysis.pk:
        raise Http404("No such share link.")
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


# --- everyday actions on one analysis ------------------------------------------------------


@require_POST
def analysis_delete(request: HttpRequest, analysis_id: int) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    snapshot_id = analysis.snapshot_id
    services.analysis_delete(analysis=analysis)
    messages.info(request, f"The analysis of {analysis.pod_key} and its share links are deleted.")
    return HttpResponseRedirect(reverse("scheduling:analysis-list", args=[snapshot_id]))


@require_POST
def analysis_rerun(request: HttpRequest, analysis_id: int) -> HttpResponse:
    analysis = selectors.analysis_get(user=request.user, analysis_id=analysis_id)
    target = snapshot_get(user=request.user, snapshot_id=request.POST.get("snapshot") or 0)
    try:
        again = services.analysis_rerun(analysis=analysis, snapshot=target)
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
        if run is not None:
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
