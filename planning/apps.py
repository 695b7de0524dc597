"""The planning app: priority plans of a snapshot and answers compared side by side."""

from django.apps import AppConfig


class PlanningConfig(AppConfig):
    name = "planning"
    verbose_name = "Priority planning"
    default_auto_field = "django.db.models.BigAutoField"
