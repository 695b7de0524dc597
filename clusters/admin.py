from django.contrib import admin

from clusters import models


@admin.register(models.Snapshot)
class SnapshotAdmin(admin.ModelAdmin[models.Snapshot]):
    list_display = ("name", "owner", "status", "node_count", "pod_count", "created")
    list_filter = ("status",)
    search_fields = ("name", "owner__username")
    readonly_fields = ("created", "ingested_at", "duration_ms")
