from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from connected import models, services


@admin.register(models.Cluster)
class ClusterAdmin(admin.ModelAdmin[models.Cluster]):
    """Saving keeps the cluster's PeriodicTask in step (the services do); the schedule's
    own row is editable too, under Periodic tasks."""

    list_display = (
        "name",
        "source",
        "schedule_seconds",
        "keep",
        "owner",
        "team",
        "last_success_at",
        "last_failure_at",
    )
    search_fields = ("name", "source", "owner__username")
    readonly_fields = (
        "periodic_task",
        "reading_since",
        "last_success_at",
        "last_failure_at",
        "last_failure_reason",
    )

    def save_model(
        self, request: HttpRequest, obj: models.Cluster, form: Any, change: bool
    ) -> None:
        services.cluster_save(obj)

    def delete_model(self, request: HttpRequest, obj: models.Cluster) -> None:
        services.cluster_delete(cluster=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[models.Cluster]) -> None:
        for cluster in queryset:
            services.cluster_delete(cluster=cluster)
