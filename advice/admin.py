"""Django admin for advice: its state, timings and how far the search went."""

from django.contrib import admin

from advice.models import Advice


@admin.register(Advice)
class AdviceAdmin(admin.ModelAdmin[Advice]):
    list_display = ("id", "analysis", "status", "runs_done", "stopped_early", "engine_seconds")
    list_filter = ("status", "stopped_early")
    search_fields = ("analysis__pod_key",)
    raw_id_fields = ("analysis",)
    readonly_fields = ("created", "started_at", "finished_at", "attempts", "engine_version")
