from django.contrib import admin

from clusters import models


@admin.register(models.Snapshot)
class SnapshotAdmin(admin.ModelAdmin[models.Snapshot]):
    list_display = ("name", "owner", "team", "status", "node_count", "pod_count", "created")
    list_filter = ("status", "team")
    search_fields = ("name", "owner__username")
    readonly_fields = ("created", "ingested_at", "duration_ms")


@admin.register(models.TeamAdmin)
class TeamAdminAdmin(admin.ModelAdmin[models.TeamAdmin]):
    """Who of a team deletes what it was given (the other members read and ask)."""

    list_display = ("user", "team")
    list_filter = ("team",)
    search_fields = ("user__username", "team__name")
