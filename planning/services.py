"""The priority plan of a stored snapshot, for the Plan tab and the API."""

from __future__ import annotations

from collections.abc import Collection, Hashable

from clusters.models import Snapshot
from operations.recent import Recent
from planning.plan import Plan, plan_of
from scheduling.running.cluster_cache import cluster_cache_key
from scheduling.scheduler_config import snapshot_choice
from scheduling.services import snapshot_load

# Plans this process gave lately: the tab, its forms and the API ask for the same plan
# again and again. (First-in-line rankings are stored work: planning/first_in_line.py.)
_RECENT_ANSWERS = 8
_plans: Recent[Hashable, Plan] = Recent(_RECENT_ANSWERS)


class SnapshotNotReady(Exception):
    def __init__(self, snapshot: Snapshot) -> None:
        self.message = (
            f"Snapshot {snapshot.pk} is {snapshot.status}: its plan is there once it is ready."
        )
        super().__init__(self.message)


def snapshot_plan(*, snapshot: Snapshot, critical_classes: Collection[str] = ()) -> Plan:
    """The ladder and the audit of a ready snapshot (planning.plan.UnknownClasses for a
    critical class it lacks)."""
    if not snapshot.is_ready:
        raise SnapshotNotReady(snapshot)
    # The cluster cache's key: an id SQLite gives again after a delete is told apart by
    # its ingest time, so no plan of a deleted snapshot answers for a new one.
    scheduler = snapshot_choice(snapshot)
    key = (
        cluster_cache_key(snapshot=snapshot),
        tuple(sorted(set(critical_classes))),
        scheduler.fingerprint,
    )

    def compute() -> Plan:
        cluster, _ = snapshot_load(snapshot=snapshot)
        return plan_of(
            cluster, critical_classes=critical_classes, scheduler_config=scheduler.effective
        )

    return _plans.get(key, compute)[0]


def plan_cache_clear() -> None:
    _plans.clear()
