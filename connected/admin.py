from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from connected import models, services
from connected.alert_rules import DEFAULT_RULES


class ClusterForm(forms.ModelForm):  # type: ignore[type-arg]
    alert_rules_text = forms.CharField(
        label="Alert rules",
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="One a line: preemption, preemption>=PRIORITY, pdb-at-zero, "
        "finding>=info|warning|error, unreadable>=DURATION (90s, 15m, 2h). Empty: the "
        f"defaults ({', '.join(DEFAULT_RULES)}); none: no alert.",
    )
    webhook_secret_new = forms.CharField(
        label="Webhook secret",
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False),
        help_text="Alerts are signed with it. Empty keeps it; generate makes a new one, shown "
        "once after saving (a new cluster gets one so).",
    )

    class Meta:
        model = models.Cluster
        fields = ["name", "source", "schedule_seconds", "keep", "owner", "team", "webhook_urls"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rules = self.instance.alert_rules
        if rules is not None:
            self.initial["alert_rules_text"] = "\n".join(rules) if rules else "none"

    def _post_clean(self) -> None:
        super()._post_clean()  # type: ignore[misc]  # the instance now holds the values
        lines = [
            line.strip() for line in self.cleaned_data.get("alert_rules_text", "").splitlines()
        ]
        lines = [line for line in lines if line]
        self.instance.alert_rules = None if not lines else [] if lines == ["none"] else lines
        secret = self.cleaned_data.get("webhook_secret_new") or ""
        if secret:
            self.instance.webhook_secret = "" if secret == "generate" else secret
        if not self.errors:
            try:
                services.cluster_check(self.instance)
            except services.ClusterInvalid as err:
                field = {"alert_rules": "alert_rules_text", "webhook_secret": "webhook_secret_new"}
                name = field.get(err.field, err.field)
                self.add_error(name if name in self.fields else None, err.message)


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
        generated = not obj.webhook_secret
        services.cluster_save(obj)
        if generated:
            messages.warning(
                request,
                f"Webhook secret of {obj.name}, shown this once (receivers verify "
                f"X-Preemptlab-Signature with it): {obj.webhook_secret}",
            )

    def delete_model(self, request: HttpRequest, obj: models.Cluster) -> None:
        services.cluster_delete(cluster=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[models.Cluster]) -> None:
        for cluster in queryset:
            services.cluster_delete(cluster=cluster)
