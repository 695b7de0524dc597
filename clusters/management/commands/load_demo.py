"""manage.py load_demo [--owner U] [--if-empty]: the demo snapshot (the docs' planning example)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from clusters import models, services


class Command(BaseCommand):
    help = (
        "Load the demo snapshot: a full cluster from the PriorityClass planning example of "
        "the Kubernetes documentation (apps Blue/Purple in cat-1, Green/Red in cat-2)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--owner",
            help="Username of the owner (default: the first superuser, else the first user).",
        )
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing when the database already has any snapshot.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["if_empty"] and models.Snapshot.objects.exists():
            self.stdout.write("Snapshots exist already; the demo was not loaded.")
            return
        User = get_user_model()
        if options["owner"]:
            try:
                owner = User.objects.get_by_natural_key(options["owner"])
            except User.DoesNotExist:
                raise CommandError(f"No user named {options['owner']!r}.") from None
        else:
            first = (
                User.objects.filter(is_superuser=True).order_by("pk").first()
                or User.objects.order_by("pk").first()
            )
            if first is None:
                raise CommandError("There is no user to own the demo; create one or pass --owner.")
            owner = first
        snapshot = services.snapshot_load_demo(owner=owner)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo snapshot {snapshot.pk} is ready for {owner.get_username()}: "
                f"{snapshot.node_count} nodes, {snapshot.pod_count} pods."
            )
        )
