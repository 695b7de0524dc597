"""Snapshot pages: function views returning TemplateResponse.

Each page has partials (its table, the overview body) rendered whole on a
normal request or alone when htmx asks for that target. Every htmx link has an
href and every htmx form posts as a plain form too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseStopPolling
from django_htmx.middleware import HtmxDetails

from clusters import access, selectors, services
from clusters.charts import node_bars
from clusters.forms import SnapshotUploadForm
from clusters.ingest.scrub import scrub_report_lines
from clusters.models import Snapshot
from clusters.paging import paginate, query_without_page
from clusters.pod_browse import POD_SORTS, PodQuery, node_is_exact, pods_filter
from clusters.volume_browse import (
    HELD_CHOICES,
    BrowseQuery,
    attachments_filter,
    claims_filter,
    devices_filter,
)


def _is_target(request: HttpRequest, target: str) -> bool:
    htmx: HtmxDetails | None = getattr(request, "htmx", None)
    return htmx is not None and bool(htmx) and htmx.target == target and not htmx.boosted


@require_GET
def snapshot_list(request: HttpRequest) -> TemplateResponse:
    team = request.GET.get("team") or ""
    snapshots = selectors.snapshot_list(user=request.user, team=team)
    # A connected cluster's snapshots, or the uploaded ones ("none"), as the API's
    # ?cluster= filters them.
    clusters = list(
        selectors.snapshot_list(user=request.user)
        .exclude(cluster=None)
        .values_list("cluster_id", "cluster__name")
        .distinct()
        .order_by("cluster__name")
    )
    cluster = request.GET.get("cluster") or ""
    if cluster == "none":
        snapshots = snapshots.filter(cluster=None)
    elif cluster.isdigit():
        snapshots = snapshots.filter(cluster_id=int(cluster)).order_by("-taken_at", "-id")
    else:
        cluster = ""
    page = paginate(request, snapshots, per_page=25)
    context = {
        "page": page,
        "query": query_without_page(request),
        "teams": _teams(request),
        "team": team,
        "clusters": [(str(pk), name) for pk, name in clusters],
        "cluster": cluster,
    }
    template = (
        "clusters/_snapshot_table.html"
        if _is_target(request, "snapshot-table")
        else "clusters/snapshot_list.html"
    )
    return TemplateResponse(request, template, context)


@require_http_methods(["GET", "POST"])
def snapshot_upload(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _upload_page(request, SnapshotUploadForm(teams=_teams(request)), status=200)
    length = int(request.META.get("CONTENT_LENGTH") or 0)
    if length > services.max_upload_bytes():
        message = services.upload_too_large_message(length)
        return _upload_page(
            request, SnapshotUploadForm(teams=_teams(request)), status=413, error=message
        )
    form = SnapshotUploadForm(request.POST, request.FILES, teams=_teams(request))
    # Streams, not bytes: Django spooled a large file to disk, and a queued ingest copies
    # it to the database part by part, so the web process never holds a whole upload.
    chosen = [
        services.UploadedFile(name=f.name or "upload", data=b"", stream=f)
        for f in request.FILES.getlist("files")
    ]
    status = 400
    if form.is_valid():
        files = [f for f in chosen if f.size]
        paste = form.cleaned_data.get("paste") or ""
        if paste.strip():
            files.append(services.UploadedFile(name="pasted", data=paste.encode()))
        try:
            team = access.team_named(request.user, form.cleaned_data.get("team"))
            snapshot = services.snapshot_create(
                owner=request.user, name=form.cleaned_data.get("name") or "", files=files
            )
        except services.SnapshotRejected as err:
            form.add_error(None, err.message)
            status = err.status
        else:
            if team is not None:
                services.snapshot_give(snapshot=snapshot, team=team)
            return redirect(snapshot)
    # Refused: nothing of the files is kept (a refused file was never scrubbed, so it may
    # hold Secrets); the page names them so the next try picks the same ones again.
    refused = [ChosenFile(name=f.name, size=f.size) for f in chosen if f.size]
    return _upload_page(request, form, status=status, refused=refused)


def _teams(request: HttpRequest) -> list[str]:
    return list(access.teams_of(request.user).values_list("name", flat=True))


@require_POST
def snapshot_team(request: HttpRequest, pk: int) -> HttpResponse:
    """The snapshot page's team menu: give it to a team of yours, or to none."""
    snapshot = selectors.snapshot_get(user=request.user, snapshot_id=pk)
    access.check_change(request.user, snapshot, action=access.CHANGE_TEAM)
    try:
        team = access.team_named(request.user, request.POST.get("team"))
    except access.NotAMember as err:
        return HttpResponse(str(err), status=400, content_type="text/plain; charset=utf-8")
    services.snapshot_give(snapshot=snapshot, team=team)
    given = f"given to team {team.name}" if team else "its owner's alone"
    messages.success(request, f"“{snapshot.name}” is {given}.")
    return redirect(snapshot)


@require_POST
def snapshot_pin(request: HttpRequest, pk: int) -> HttpResponse:
    """The snapshot page's Pin button (``unpin`` in the form: unpin): a connected
    cluster's retention never deletes a pinned snapshot."""
    snapshot = selectors.snapshot_get(user=request.user, snapshot_id=pk)
    pin = "unpin" not in request.POST
    access.check_change(request.user, snapshot, action=access.PIN if pin else access.UNPIN)
    services.snapshot_pin(snapshot=snapshot, by=request.user, pinned=pin)
    messages.success(
        request,
        f"“{snapshot.name}” is pinned: retention keeps it."
        if pin
        else f"“{snapshot.name}” is no longer pinned: retention treats it as any other.",
    )
    return redirect(snapshot)


@dataclass(frozen=True)
class ChosenFile:
    name: str
    size: int


def _upload_page(
    request: HttpRequest,
    form: SnapshotUploadForm,
    *,
    status: int,
    error: str = "",
    refused: list[ChosenFile] | None = None,
) -> TemplateResponse:
    context = {
        "form": form,
        "error": error,
        "refused": refused or [],
        "max_upload_bytes": services.max_upload_bytes(),
    }
    return TemplateResponse(request, "clusters/snapshot_upload.html", context, status=status)


@require_POST
def snapshot_demo(request: HttpRequest) -> HttpResponse:
    snapshot = selectors.snapshot_demo_find(user=request.user)
    if snapshot is not None:
        messages.info(request, "You have the demo snapshot already: here it is.")
        return redirect(snapshot)
    snapshot = services.snapshot_load_demo(owner=request.user)
    messages.success(request, "The demo snapshot is ready: ask what a cat-3 pod would preempt.")
    return redirect(snapshot)


def _overview_context(snapshot: Snapshot) -> dict[str, Any]:
    context: dict[str, Any] = {"snapshot": snapshot}
    if snapshot.is_ready:
        context["priority_classes"] = list(selectors.snapshot_priority_classes(snapshot=snapshot))
        context["scrubbed_lines"] = scrub_report_lines(snapshot.scrubbed)
    if not snapshot.is_ingesting:
        context["dependents"] = selectors.snapshot_dependents(snapshot=snapshot)
    return context


@require_GET
def snapshot_detail(request: HttpRequest, pk: int) -> HttpResponse:
    snapshot = selectors.snapshot_get(user=request.user, snapshot_id=pk)
    context = _overview_context(snapshot) | {
        "teams": _teams(request),
        "may_delete": access.can_delete(request.user, snapshot),
    }
    if _is_target(request, "snapshot-body"):
        if snapshot.is_ingesting:
            return TemplateResponse(request, "clusters/_snapshot_body.html", context)
        # Done: swap in the finished overview and stop polling.
        response = HttpResponseStopPolling()
        response.content = TemplateResponse(
            request, "clusters/_snapshot_body.html", context
        ).rendered_content.encode()
        return response
    return TemplateResponse(request, "clusters/snapshot_detail.html", context)


@require_http_methods(["GET", "POST"])
def snapshot_delete(request: HttpRequest, pk: int) -> HttpResponse:
    snapshot = selectors.snapshot_get(user=request.user, snapshot_id=pk)
    access.check_delete(request.user, snapshot)
    if request.method == "POST":
        name = snapshot.name
        services.snapshot_delete(snapshot=snapshot)
        messages.success(request, f"Deleted snapshot “{name}”.")
        url = reverse("clusters:snapshot-list")
        if getattr(request, "htmx", None):
            response = HttpResponse(status=204)
            response["HX-Redirect"] = url
            return response
        return HttpResponseRedirect(url)
    context = {"snapshot": snapshot, "dependents": selectors.snapshot_dependents(snapshot=snapshot)}
    return TemplateResponse(request, "clusters/snapshot_delete.html", context)


@require_GET
def snapshot_nodes(request: HttpRequest, pk: int) -> TemplateResponse:
    snapshot = selectors.snapshot_get(user=request.user, snapshot_id=pk)
    nodes = selectors.snapshot_nodes(snapshot=snapshot).defer("labels")
    q = (request.GET.get("q") or "").strip()
    if q:
        nodes = nodes.filter(name__icontains=q)
    page = paginate(request, nodes, count=None if q else snapshot.node_count)
    rows = [{"node": node, "bars": node_bars(node, snapshot.bands)} for node in page]
    context = {
        "snapshot": snapshot,
        "page": page,
        "rows": rows,
        "q": q,
        "query": query_without_page(request),
        "bands": snapshot.bands,
    }
    template = (
        "clusters/_nodes_panel.html"
        if _is_target(request, "nodes-panel")
        else "clusters/snapshot_nodes.html"
    )
    return TemplateResponse(request, template, context)


@require_GET
def snapshot_pods(request: HttpRequest, pk: int) -> TemplateResponse:
    snapshot = selectors.snapshot_get(user=request.user, snapshot_id=pk)
    query = PodQuery.from_get(request.GET)
    node_exact = bool(query.node) and node_is_exact(snapshot=snapshot, node=query.node)
    pods = pods_filter(
        selectors.snapshot_pods(snapshot=snapshot).defer("requests", "uid"),
        query,
        node_exact=node_exact,
    )
    page = paginate(request, pods, count=None if query.filtered else snapshot.pod_count)
    context = {
        "snapshot": snapshot,
        "page": page,
        "filters": query,
        "node_exact": node_exact,
        "sorts": [(value, label) for value, (label, _) in POD_SORTS.items()],
        "choices": selectors.snapshot_pod_filter_choices(snapshot=snapshot),
        "query": query.params().urlencode(),
    }
    if _is_target(request, "pods-panel"):
        response = TemplateResponse(request, "clusters/_pods_panel.html", context)
        # The address bar shows the query without empty fields, page included.
        params = query.params()
        if page.number > 1:
            params["page"] = str(page.number)
        response["HX-Push-Url"] = f"{request.path}?{params.urlencode()}" if params else request.path
        return response
    return TemplateResponse(request, "clusters/snapshot_pods.html", context)


@require_GET
def snapshot_pdbs(request: HttpRequest, pk: int) -> TemplateResponse:
    snapshot = selectors.snapshot_get(user=request.user, snapshot_id=pk)
    pdbs = selectors.snapshot_pdbs(snapshot=snapshot)
    namespace = (request.GET.get("namespace") or "").strip()
    if namespace:
        pdbs = pdbs.filter(namespace=namespace)
    page = paginate(request, pdbs, count=None if namespace else snapshot.pdb_count)
    context = {
        "snapshot": snapshot,
        "page": page,
        "namespace": namespace,
        "query": query_without_page(request),
    }
    template = (
        "clusters/_pdbs_table.html"
        if _is_target(request, "pdbs-table")
        else "clusters/snapshot_pdbs.html"
    )
    return TemplateResponse(request, template, context)


def _browse_page(
    request: HttpRequest,
    pk: int,
    *,
    rows: Callable[[Snapshot, BrowseQuery], Any],
    count: Callable[[Snapshot], int | None],
    panel: str,
    page_template: str,
    **extra: Any,
) -> TemplateResponse:
    """A Volumes or Devices page: its filters, a page of its rows, and the panel alone when
    htmx swaps it (the address bar then shows the query, page included)."""
    snapshot = selectors.snapshot_get(user=request.user, snapshot_id=pk)
    query = BrowseQuery.from_get(request.GET)
    filtered = rows(snapshot, query)
    page = paginate(request, filtered, count=None if query.filtered else count(snapshot))
    context = {
        "snapshot": snapshot,
        "page": page,
        "filters": query,
        "query": query.params().urlencode(),
        **extra,
    }
    if _is_target(request, panel):
        response = TemplateResponse(request, f"clusters/_{panel.replace('-', '_')}.html", context)
        params = query.params()
        if page.number > 1:
            params["page"] = str(page.number)
        response["HX-Push-Url"] = f"{request.path}?{params.urlencode()}" if params else request.path
        return response
    return TemplateResponse(request, page_template, context)


@require_GET
def snapshot_volumes(request: HttpRequest, pk: int) -> TemplateResponse:
    """The PersistentVolumeClaims: class, modes, volume, where it lives, who uses it."""
    return _browse_page(
        request,
        pk,
        rows=lambda snapshot, query: claims_filter(
            selectors.snapshot_volume_claims(snapshot=snapshot), query
        ),
        panel="volumes-panel",
        page_template="clusters/snapshot_volumes.html",
        count=lambda snapshot: snapshot.volume_claim_count,
    )


@require_GET
def snapshot_attachments(request: HttpRequest, pk: int) -> TemplateResponse:
    """Each node's CSI volumes in use against its CSINode's attach limit."""
    return _browse_page(
        request,
        pk,
        rows=lambda snapshot, query: attachments_filter(
            selectors.snapshot_node_attachments(snapshot=snapshot), query
        ),
        panel="attachments-panel",
        page_template="clusters/snapshot_attachments.html",
        count=lambda snapshot: None,
    )


@require_GET
def snapshot_devices(request: HttpRequest, pk: int) -> TemplateResponse:
    """The devices ResourceSlices publish, by node, and the claim and pods holding each."""
    return _browse_page(
        request,
        pk,
        rows=lambda snapshot, query: devices_filter(
            selectors.snapshot_devices(snapshot=snapshot), query
        ),
        panel="devices-panel",
        page_template="clusters/snapshot_devices.html",
        count=lambda snapshot: snapshot.device_count,
        held_choices=HELD_CHOICES,
    )
