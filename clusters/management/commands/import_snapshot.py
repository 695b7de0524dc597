"""manage.py import_snapshot FILE... --name N --owner U"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from clusters import services
from clusters.ingest.scrub import scrub_report_lines


class Command(BaseCommand):
    help = (
        "Import a snapshot from kubectl JSON/YAML files (they merge into one snapshot); "
        "ingests now, in this process."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path, help="JSON or YAML files.")
        parser.add_argument("--name", default="", help="The snapshot's name.")
        parser.add_argument("--owner", required=True, help="Username of the owner.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            owner = get_user_model().objects.get_by_natural_key(options["owner"])
        except get_user_model().DoesNotExist:
            raise CommandError(f"No user named {options['owner']!r}.") from None
        files = []
        for path in options["files"]:
            try:
                files.append(services.UploadedFile(name=path.name, data=path.read_bytes()))
            except OSError as err:
                raise CommandError(f"{path}: {err.strerror or err}") from None
        try:
            snapshot = services.snapshot_create(
                owner=owner, name=options["name"], files=files, run_async=False
            )
        except services.SnapshotRejected as err:
            raise CommandError(err.message) from None
        self.stdout.write(
            self.style.SUCCESS(
                f"Snapshot {snapshot.pk} “{snapshot.name}” is ready: {snapshot.node_count} nodes, "
                f"{snapshot.pod_count} pods, {snapshot.pdb_count} PDBs, "
                f"{snapshot.priority_class_count} PriorityClasses "
                f"({snapshot.duration_ms} ms)."
            )
        )
        # What was taken out on the way in, as the snapshot's page lists it.
        removed = scrub_report_lines(snapshot.scrubbed)
        self.stdout.write(
            "Removed on ingest: "
            + ("; ".join(removed) if removed else "nothing needed removing")
            + "."
        )
        if snapshot.skipped:
            skipped = ", ".join(f"{n:,} {kind}" for kind, n in snapshot.skipped.items())
            self.stdout.write(f"Skipped kinds: {skipped}.")
        for warning in snapshot.warnings:
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))
