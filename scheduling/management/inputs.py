"""What manage.py whatif and plan read a cluster from: the snapshot's files, or a
stored snapshot by name or id. One reader, so both commands answer alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from clusters.models import Snapshot
from clusters.selectors import snapshot_find, snapshot_objects
from scheduling.engine import Cluster, load_cluster, read_documents
from scheduling.reports import gates
from scheduling.reports.escaping import md_code, md_text, plain


def add_stored_snapshot_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--snapshot", metavar="NAME|ID", help="ask a stored snapshot instead of files"
    )
    parser.add_argument(
        "--owner",
        metavar="USERNAME",
        help="with --snapshot: look among this user's snapshots only",
    )


def read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise CommandError(f"{path}: {e.strerror}", returncode=gates.BAD_INPUT) from None


def read_input(path: str) -> list[dict[str, Any]]:
    return read_documents(read_bytes(path), Path(path).name)


def stored_snapshot(options: dict[str, Any]) -> Snapshot:
    """The snapshot --snapshot (and --owner) name."""
    try:
        return snapshot_find(ref=options["snapshot"], owner=options["owner"])
    except LookupError as e:
        raise CommandError(plain(e), returncode=gates.BAD_INPUT) from None


def stored_snapshot_cluster(options: dict[str, Any]) -> tuple[Cluster, str]:
    """The cluster of --snapshot (and --owner), and its name as Markdown."""
    snapshot = stored_snapshot(options)
    objects = snapshot_objects(snapshot=snapshot)
    return (
        load_cluster(objects, source=snapshot.name),
        f"snapshot {snapshot.pk} “{md_text(snapshot.name)}”",
    )


def files_cluster(paths: list[str]) -> tuple[Cluster, str]:
    """The cluster of the snapshot's files (several merge into one), and their names as
    Markdown."""
    objects = [obj for path in paths for obj in read_input(path)]
    names = ", ".join(md_code(Path(p).name) for p in paths)
    return load_cluster(objects, source=Path(paths[0]).name), names
