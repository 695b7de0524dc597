"""The what-if forms: a new analysis (manifest or form), the demo, room for a pod, a
scale-up and a clone of a snapshot's pod.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from advice.apply import advice_manifest
from clusters.demo import demo_cat3_pod
from clusters.models import Pod as PodRow
from clusters.models import Snapshot
from clusters.selectors import pod_manifest, snapshot_demo_find, snapshot_get
from clusters.services import snapshot_load_demo
from operations.input_limits import submission_body
from scheduling import selectors, services
from scheduling.analyses import submission
from scheduling.constants import (
    AnalysisSource,
)
from scheduling.engine.capacity import DEFAULT_LIMIT, MAX_LIMIT
from scheduling.forms import CloneForm, ManifestForm, PodForm, RoomForm, ScaleUpForm
from scheduling.scheduler_config import (
    SchedulerChoice,
    SchedulerSource,
    choice_as_text,
    snapshot_choice,
)
from scheduling.scheduler_config.forms import SchedulerConfigForm
from scheduling.scheduler_config.report import profile_phrase

# The what-if form's preset menu, when no preset is chosen.
NONE_GIVEN = "None: the snapshot's configuration (else the default)"


def _submit(
    form: ManifestForm | PodForm | CloneForm,
    *,
    snapshot: Snapshot,
    source: str,
    requested_by: Any,
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
                requested_by=requested_by,
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
                requested_by=requested_by,
            )
        elif form.pod is not None:
            analysis = services.analysis_create(
                snapshot=snapshot,
                pod=form.pod,
                source=source,
                priority_classes=classes,
                scheduler=scheduler,
                requested_by=requested_by,
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
                requested_by=request.user,
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
        snapshot=snapshot,
        pod=demo_cat3_pod(),
        source=AnalysisSource.MANIFEST,
        requested_by=request.user,
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
                requested_by=request.user,
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
                requested_by=request.user,
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
        submitted = _submit(
            form, snapshot=snapshot, source=AnalysisSource.CLONE, requested_by=request.user
        )
        if submitted is not None:
            return submitted
    return TemplateResponse(
        request,
        "scheduling/analysis_clone.html",
        {"snapshot": snapshot, "pod_row": row, "form": form},
        status=400 if request.method == "POST" else 200,
    )


@submission_body
@require_http_methods(["GET", "POST"])
def snapshot_take_nodes_away(request: HttpRequest, snapshot_id: int) -> HttpResponse:
    """ "What if these go away?": nodes by name (the Nodes page's ticks arrive as
    ?nodes=...), a pool or a zone, drained or lost; queued for a worker, its page follows."""
    from scheduling.forms.take_nodes_away import TakeNodesAwayForm, node_groups
    from scheduling.services import analysis_create_take_nodes_away

    snapshot = snapshot_get(user=request.user, snapshot_id=snapshot_id)
    form = TakeNodesAwayForm(
        request.POST or None, initial=TakeNodesAwayForm.initial_from(request.GET), snapshot=snapshot
    )
    if request.method == "POST" and form.is_valid():
        try:
            analysis = analysis_create_take_nodes_away(
                snapshot=snapshot,
                body=form.body,
                source=AnalysisSource.FORM,
                requested_by=request.user,
            )
        except submission.PodRejected as e:
            form.refused(e.field, e.message)
        else:
            return HttpResponseRedirect(analysis.get_absolute_url())
    zones, pools = node_groups(snapshot)
    return TemplateResponse(
        request,
        "scheduling/take_nodes_away.html",
        {
            "snapshot": snapshot,
            "form": form,
            "zones": zones,
            "pools": pools,
            "nodes_url": reverse("clusters:snapshot-nodes", args=[snapshot.pk]),
        },
        status=400 if request.method == "POST" else 200,
    )
