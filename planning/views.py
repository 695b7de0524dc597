"""Pages of the planning app: a snapshot's priority plan, two analyses compared."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from clusters.paging import paginate, query_without_page
from clusters.selectors import snapshot_get
from planning import selectors
from planning.api.serializers import MAX_ID
from planning.compare import Comparison, where_words
from planning.compare_capacity import CapacityComparison, Room
from planning.first_in_line import first_in_line_request, ranking_line
from planning.pictures import first_in_line_svg, ladder_svg
from planning.plan import SEVERITIES, Plan, UnknownClasses
from planning.reports import (
    absorbed_words,
    first_in_line_heading,
    in_line,
    nothing_fits_sentence,
    summary_sentence,
)
from planning.services import SnapshotNotReady
from planning.services import snapshot_plan as snapshot_plan_of
from scheduling.engine import InvalidInput
from scheduling.engine.capacity import Size
from scheduling.engine.objects import CPU, MEMORY
from scheduling.engine.plan.first_in_line import DEFAULT_LIMIT, MAX_LIMIT
from scheduling.engine.quantity import resource_value
from scheduling.engine.words import plural
from scheduling.running.budgets import TooManyUnfinished

# htmx stops polling on this status (and swaps the answer in): the ranking is stored.
STOP_POLLING = 286

# Names shown in a list before the rest fold under "N more".
LISTED = 20


class CompareForm(forms.Form):
    a = forms.IntegerField(min_value=1, max_value=MAX_ID, label="A")
    b = forms.IntegerField(min_value=1, max_value=MAX_ID, label="B")


class FirstInLineForm(forms.Form):
    cpu = forms.CharField(max_length=32, initial="1", label="CPU")
    memory = forms.CharField(max_length=32, initial="2Gi", label="Memory")
    limit = forms.IntegerField(
        min_value=1, max_value=MAX_LIMIT, initial=DEFAULT_LIMIT, label="Replicas per level"
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "cpu" in data and "memory" in data:
            try:
                # The capacity table's own check: the same words as the API's 400.
                Size(data["cpu"], data["memory"]).check()
            except InvalidInput as e:
                self.add_error(e.field if e.field in ("cpu", "memory") else None, e.message)
            else:
                data["cpu_millis"] = resource_value(CPU, data["cpu"])
                data["memory_bytes"] = resource_value(MEMORY, data["memory"])
        return data


def _folded(items: tuple[str, ...]) -> dict[str, Any]:
    return {"shown": items[:LISTED], "rest": items[LISTED:], "count": len(items)}


def _rows(c: Comparison) -> list[dict[str, Any]]:
    """The side-by-side table: one fact a row, A then B, the rows that differ marked."""
    a, b = c.a, c.b

    def row(label: str, va: Any, vb: Any, *, key: str = "") -> dict[str, Any]:
        return {"label": label, "a": va, "b": vb, "differs": va != vb, "key": key}

    def nodes(x: Any) -> str:
        return where_words(x) if x.tied else ", ".join(x.nodes) or "none"

    def pdbs(x: Any) -> str:
        return ", ".join(x.pdbs) or "none"

    def replicas(x: Any) -> str:
        return f"{x.placed:,} of {x.asked:,}"

    rows = [
        row("Outcome", a.outcome, b.outcome, key="outcome"),
        row("Node" if a.kind == b.kind == "pod" else "Nodes", nodes(a), nodes(b), key="nodes"),
        row("Victims", len(a.victims), len(b.victims), key="victims"),
        row("PDB violations", a.pdb_violations, b.pdb_violations, key="pdb-violations"),
        row("PDBs broken", pdbs(a), pdbs(b), key="pdbs"),
        row("Pods running of those asked", replicas(a), replicas(b), key="placed"),
    ]
    if a.recreated is not None or b.recreated is not None:

        def recreated(x: Any) -> str:
            if x.recreated is None:
                return "not recreated"
            return f"{x.recreated:,} ({x.recreated_running or 0:,} running again)"

        rows.append(row("Victims recreated", recreated(a), recreated(b), key="recreated"))
    return rows


def _room_rows(c: CapacityComparison) -> list[dict[str, Any]]:
    """The capacity table: a class a row, A's and B's replicas, victims and budgets."""

    def count(r: Room | None, field: str) -> str:
        if r is None:
            return "not asked"
        if field == "placed":
            return f"{r.placed:,} ({r.fit_now:,} now + {r.fit_by_preempting:,})"
        return f"{getattr(r, field):,}"

    def change(x: Room | None, y: Room | None, field: str) -> str:
        n = (getattr(y, field) if y else 0) - (getattr(x, field) if x else 0)
        return f"{n:+,}" if n else "="

    return [
        {
            "row": r,
            "cells": (
                count(r.a, "placed"),
                count(r.b, "placed"),
                change(r.a, r.b, "placed"),
                count(r.a, "victims"),
                count(r.b, "victims"),
                change(r.a, r.b, "victims"),
                count(r.a, "pdbs_exceeded"),
                count(r.b, "pdbs_exceeded"),
            ),
        }
        for r in c.rows
    ]


@require_GET
def analysis_compare(request: HttpRequest) -> TemplateResponse:
    """/analyses/compare/?a=..&b=..: the sentence first, then the table and the lists.
    Without parameters, a form to pick the two; anyone else's analysis answers 404."""
    form = CompareForm(request.GET if request.GET else None)
    ctx: dict[str, Any] = {"form": form, "choices": selectors.compare_choices(user=request.user)}
    if not form.is_bound:
        return TemplateResponse(request, "planning/compare.html", ctx)
    if not form.is_valid():
        return TemplateResponse(request, "planning/compare.html", ctx, status=400)
    try:
        c = selectors.comparison_get(
            user=request.user, a=form.cleaned_data["a"], b=form.cleaned_data["b"]
        )
    except selectors.NotCompared as e:
        ctx["not_answered"] = e
        return TemplateResponse(request, "planning/compare.html", ctx, status=409)
    if isinstance(c, CapacityComparison):
        ctx |= {"c": c, "capacity": True, "room": _room_rows(c)}
        return TemplateResponse(request, "planning/compare.html", ctx)
    ctx |= {
        "c": c,
        "rows": _rows(c),
        "added": _folded(c.victims_added),
        "removed": _folded(c.victims_removed),
        "kept": _folded(c.victims_kept),
        "owners": {"shown": c.owners[:LISTED], "rest": c.owners[LISTED:]},
    }
    return TemplateResponse(request, "planning/compare.html", ctx)


# Findings listed a page; the rest a click away (a real cluster has hundreds of pods
# drifting from their class, each its own finding).
FINDINGS_PER_PAGE = 50
# Objects a finding names before the rest fold.
OBJECTS_SHOWN = 12


def _critical_choices(plan: Plan) -> tuple[list[tuple[str, str]], bool]:
    """The classes the critical-tiers box offers, and whether they are the built-in ones:
    the user classes, or, on a cluster without any, the built-in classes its pods use
    (system-cluster-critical, system-node-critical), so the box is never empty."""
    user = [(c.name, f"{c.name} ({c.value})") for c in plan.ladder.by_value() if not c.builtin]
    if user:
        return user, False
    used = [c for c in plan.ladder.by_value() if c.pods]
    return [(c.name, f"{c.name} ({c.value}, {plural(c.pods, 'pod')})") for c in used], True


@require_GET
def snapshot_plan(request: HttpRequest, pk: int) -> TemplateResponse:
    """/snapshots/{id}/plan/: the ladder (a picture and a table) and the audit's findings,
    most serious first; ?critical=cat-2&critical=cat-3 marks the critical tiers."""
    snapshot = snapshot_get(user=request.user, snapshot_id=pk)
    ctx: dict[str, Any] = {"snapshot": snapshot}
    if not snapshot.is_ready:
        ctx["not_ready"] = SnapshotNotReady(snapshot).message
        return TemplateResponse(request, "planning/plan.html", ctx, status=409)
    critical = sorted({c for c in request.GET.getlist("critical") if c})
    severity = request.GET.get("severity") or ""
    try:
        plan = snapshot_plan_of(snapshot=snapshot, critical_classes=critical)
    except UnknownClasses as e:
        ctx["unknown"] = str(e)
        plan = snapshot_plan_of(snapshot=snapshot)
        critical = []
    choices, builtin_only = _critical_choices(plan)
    ctx |= {"critical_choices": choices, "critical_builtin_only": builtin_only}
    findings = [
        {"f": f, "objects": f.objects[:OBJECTS_SHOWN], "more": len(f.objects) - OBJECTS_SHOWN}
        for f in plan.findings
        if not severity or f.severity == severity
    ]
    page = paginate(request, findings, per_page=FINDINGS_PER_PAGE)
    ctx |= {
        "plan": plan,
        "summary": summary_sentence(plan),
        "ladder": plan.ladder.by_value(),
        "ladder_svg": ladder_svg(plan),
        "counts": [(s, plan.count(s)) for s in SEVERITIES],
        "severity": severity if severity in SEVERITIES else "",
        "critical": critical,
        "page": page,
        "query": query_without_page(request),
        "line_form": first_in_line_form(),
    }
    htmx = getattr(request, "htmx", None)
    partial = htmx is not None and bool(htmx) and htmx.target == "findings" and not htmx.boosted
    return TemplateResponse(
        request, "planning/_findings.html" if partial else "planning/plan.html", ctx
    )


# Apps listed a page in the first-in-line table.
LINE_PER_PAGE = 50


def first_in_line_form(request: HttpRequest | None = None) -> FirstInLineForm:
    """The form as the Plan tab shows it (defaults), or bound to the request's query."""
    if request is not None and request.GET:
        return FirstInLineForm(request.GET)
    return FirstInLineForm(initial={"cpu": "1", "memory": "2Gi", "limit": DEFAULT_LIMIT})


@require_GET
def snapshot_first_in_line(request: HttpRequest, pk: int) -> TemplateResponse:
    """/snapshots/{id}/plan/first-in-line/?cpu=1&memory=2Gi&limit=50: every app ranked by
    how soon preemption reaches it; the Plan tab's form loads it into its section (HTMX),
    a plain GET gets the page. A worker ranks them (once per size and limit): until the
    answer is stored the section says so and polls this URL, then the table swaps in."""
    snapshot = snapshot_get(user=request.user, snapshot_id=pk)
    ctx: dict[str, Any] = {"snapshot": snapshot}
    htmx = getattr(request, "htmx", None)
    partial = htmx is not None and bool(htmx) and htmx.target == "first-in-line"
    template = "planning/_first_in_line.html" if partial else "planning/first_in_line.html"
    if not snapshot.is_ready:
        ctx["not_ready"] = SnapshotNotReady(snapshot).message
        return TemplateResponse(request, template, ctx, status=409)
    form = first_in_line_form(request)
    ctx["line_form"] = form
    if not form.is_bound:
        return TemplateResponse(request, template, ctx)
    if not form.is_valid():
        # htmx swaps only a 2xx answer: the errors come back in the section.
        return TemplateResponse(request, template, ctx, status=200 if partial else 400)
    data = form.cleaned_data
    try:
        ranking = first_in_line_request(
            snapshot=snapshot,
            cpu_millis=data["cpu_millis"],
            memory_bytes=data["memory_bytes"],
            limit=data["limit"],
            retry=request.GET.get("retry") == "1",
            requested_by=request.user,
        )
    except TooManyUnfinished as e:
        ctx["busy"] = e.message
        return TemplateResponse(request, template, ctx, status=200 if partial else 429)
    query = request.GET.copy()
    query.pop("retry", None)
    ctx |= {"ranking": ranking, "poll_url": f"{request.path}?{query.urlencode()}"}
    line = ranking_line(ranking)
    if line is None:
        ctx["retry_url"] = f"{ctx['poll_url']}&retry=1"
        status = 200 if ranking.is_active or not partial else STOP_POLLING
        return TemplateResponse(request, template, ctx, status=status)
    page = paginate(request, list(enumerate(line.apps, 1)), per_page=LINE_PER_PAGE)
    ctx |= {
        "line": line,
        "line_heading": first_in_line_heading(line),
        "nothing_fits": nothing_fits_sentence(line),
        "line_svg": first_in_line_svg(line),
        "line_rows": [
            {
                "rank": rank if in_line(a, line) else None,
                "a": a,
                "absorbed": absorbed_words(a, line),
            }
            for rank, a in page.object_list
        ],
        "page": page,
        "query": query_without_page(request),
    }
    return TemplateResponse(request, template, ctx, status=STOP_POLLING if partial else 200)
