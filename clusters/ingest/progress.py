"""How far an ingest is, written where the snapshot page reads it while it runs."""

from __future__ import annotations

import logging
from typing import Any

from django.db import connection, connections

from clusters import models

log = logging.getLogger(__name__)


class IngestProgress:
    """Writes progress where the snapshot page can see it while the ingest runs.

    Before the storing transaction it updates the row directly. Inside it, the
    update goes through a second connection on PostgreSQL (visible at once);
    SQLite has one writer at a time, so there the last phase shows no steps.
    """

    def __init__(self, snapshot: models.Snapshot) -> None:
        self.snapshot = snapshot
        self.own_transactions = not connection.in_atomic_block
        self.side: Any = None

    def __call__(self, percent: int, note: str) -> None:
        self.snapshot.progress = percent
        self.snapshot.progress_note = note
        if not connection.in_atomic_block:
            models.Snapshot.objects.filter(pk=self.snapshot.pk).update(
                progress=percent, progress_note=note
            )
        elif self.own_transactions and connection.vendor == "postgresql":
            try:
                if self.side is None:
                    self.side = connections.create_connection("default")
                with self.side.cursor() as cursor:
                    cursor.execute(
                        f"UPDATE {models.Snapshot._meta.db_table} "
                        "SET progress = %s, progress_note = %s WHERE id = %s",
                        [percent, note, self.snapshot.pk],
                    )
            except Exception:  # progress is best effort; never fail the ingest for it
                log.exception("progress update failed")

    def close(self) -> None:
        if self.side is not None:
            self.side.close()
            self.side = None
