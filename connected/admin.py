from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from connected import models, services


class ClusterForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = models.Cluster
        fields = ["name", "source", "schedule_seconds", "keep", "owner", "team", "webhook_urls"]

    def _post_clean(self) -> None:
        super()._post_clean()  # type: ignore[misc]  # the instance now holds the values
        if not self.errors:
            try:
                services.cluster_check(self.instance)
            except services.ClusterInvalid as err:
                self.add_error(err.field if err.field in self.fields else None, err.message)


@admin.register(models.Cluster)
class ClusterAdmin(admin.ModelAdmin[models.Cluster]):
    """Saving keeps the cluster's PeriodicTask in step (the services do); the schedule's
    own row is editable too, under Periodic tasks."""

    form = ClusterForm

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
