"""The snapshot's Scheduler tab: the configuration its what-ifs and its plan run under,
and the form that sets it (a preset, a pasted or uploaded configuration) or clears it."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_http_methods

from clusters import access
from clusters.selectors import snapshot_get
from scheduling.scheduler_config.choice import (
    choice_as_text,
    snapshot_choice,
    snapshot_scheduler_set,
)
from scheduling.scheduler_config.forms import SchedulerConfigForm
from scheduling.scheduler_config.presenter import scheduler_tab


@require_http_methods(["GET", "POST"])
def snapshot_scheduler(request: HttpRequest, snapshot_id: int) -> HttpResponse:
    """/snapshots/{id}/scheduler/: the profiles, their plugins and changed arguments;
    POST sets the snapshot's configuration (or, with ``clear``, goes back to the default)."""
    # Only the owner's snapshots are found: anyone else gets 404, as on every tab.
    snapshot = snapshot_get(user=request.user, snapshot_id=snapshot_id)
    form = SchedulerConfigForm(initial={"scheduler_preset": snapshot.scheduler_preset})
    status = 200
    if request.method == "POST":
        access.check_change(request.user, snapshot, action=access.CHANGE_CONFIG)
        if "clear" in request.POST:
            snapshot_scheduler_set(snapshot=snapshot, choice=None)
            messages.success(
                request, "The snapshot runs under kube-scheduler's default profile again."
            )
            return redirect("scheduling:snapshot-scheduler", snapshot.pk)
        form = SchedulerConfigForm(request.POST, request.FILES)
        if form.is_valid():
            snapshot_scheduler_set(snapshot=snapshot, choice=form.choice)
            messages.success(
                request, "Saved: new what-ifs and the plan of this snapshot use this configuration."
            )
            return redirect("scheduling:snapshot-scheduler", snapshot.pk)
        status = 400
    choice = snapshot_choice(snapshot)
    ctx = {
        "snapshot": snapshot,
        "form": form,
        "config_text": choice_as_text(choice),
        "may_change": access.can_change(request.user, snapshot),
        "who_may": access.who_may(snapshot),
        **scheduler_tab(choice, snapshot.scheduler_origin),
    }
    return TemplateResponse(request, "scheduling/snapshot_scheduler.html", ctx, status=status)
