"""The connected-clusters app: clusters read on a schedule (django-celery-beat)."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig


class ConnectedConfig(AppConfig):
    name = "connected"
    verbose_name = "Connected clusters"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import pre_delete

        from clusters.models import Snapshot

        # The history's tasks (connected/history/tasks.py): Celery's autodiscovery looks
        # for an app's top-level tasks.py only.
        from connected.history import tasks  # noqa: F401

        # However a cluster's snapshot goes (a user, retention, its owner's account),
        # Explain can say it was deleted, and when.
        pre_delete.connect(
            _snapshot_deleted, sender=Snapshot, dispatch_uid="connected.snapshot_deleted"
        )


def _snapshot_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    from connected.services import snapshot_deleted_record

    snapshot_deleted_record(instance)
