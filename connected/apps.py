"""The connected-clusters app: clusters read on a schedule (django-celery-beat)."""

from __future__ import annotations

from django.apps import AppConfig


class ConnectedConfig(AppConfig):
    name = "connected"
    verbose_name = "Connected clusters"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The history's tasks live beside the history, not in tasks.py.
        from connected import history_tasks  # noqa: F401
