"""The analyses app: what-if runs of a pod on a snapshot, their results and share links."""

from django.apps import AppConfig


class SchedulingConfig(AppConfig):
    name = "scheduling"
    verbose_name = "What-if analyses"
