"""Django admin for analyses and share links: read the run's timings, find a pod's analyses."""

from django.contrib import admin

from scheduling.models import Analysis, ShareLink


@admin.register(Analysis)
class AnalysisAdmin(admin.ModelAdmin[Analysis]):
    list_display = ("id", "pod_key", "snapshot", "status", "outcome", "created", "engine_seconds")
    list_filter = ("status", "outcome", "source")
    search_fields = ("pod_key", "snapshot__name")
    raw_id_fields = ("snapshot",)
    readonly_fields = ("created", "started_at", "finished_at", "attempts", "engine_version")


@admin.register(ShareLink)
class ShareLinkAdmin(admin.ModelAdmin[ShareLink]):
    list_display = ("id", "analysis", "created", "revoked_at")
    raw_id_fields = ("analysis",)
