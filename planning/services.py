"""The priority plan of a stored snapshot, for the Plan tab and the API."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection

from clusters.models import Snapshot
from planning.plan import Plan, plan_of
from scheduling.cluster_cache import cluster_cache_key
from scheduling.services import snapshot_load

# Plans this process answered lately: the tab, its critical-class form and the API ask
# for the same plan again and again, and on a 150,000-pod cluster one takes seconds.
_RECENT_PLANS = 8
_plans: OrderedDict[tuple[tuple[int, str], tuple[str, ...]], Plan] = OrderedDict()
_lock = threading.Lock()


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
    key = (cluster_cache_key(snapshot=snapshot), tuple(sorted(set(critical_classes))))
    with _lock:
        if key in _plans:
            _plans.move_to_end(key)
            return _plans[key]
    cluster, _ = snapshot_load(snapshot=snapshot)
    plan = plan_of(cluster, critical_classes=critical_classes)
    with _lock:
        _plans[key] = plan
        while len(_plans) > _RECENT_PLANS:
            _plans.popitem(last=False)
    return plan


def plan_cache_clear() -> None:
    with _lock:
        _plans.clear()
