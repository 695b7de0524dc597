"""Take a snapshot now: who may, and how often.

A read holds a worker and kubectl for as long as the cluster takes to answer, and each
one starts the retention, so "Take a snapshot now" is its owner's, its team admins' and
staff's (clusters/access.py), one at a time per cluster and at most one a minute
(PREEMPTLAB_TAKE_NOW_SECONDS): a refusal is a 429 with Retry-After, saying why. The
schedule's own reads never wait for it (their slot is the cluster's, connected/services.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from clusters import access
from connected.models import Cluster
from operations.throttling import Busy

# The shortest Retry-After of a read under way or waiting: a read takes seconds at least.
MIN_WAIT_SECONDS = 5


class ReadRefused(Busy):
    """A read of the cluster is under way, waiting for a worker, or asked less than the
    cooldown ago (429 with Retry-After)."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Cooldown:
    """How often one cluster may be read on request."""

    seconds: int
    # A read asked or started longer ago than this has died (the task time limit).
    stale_after: timedelta

    @classmethod
    def from_settings(cls) -> Cooldown:
        return cls(
            seconds=int(settings.PREEMPTLAB_TAKE_NOW_SECONDS),
            stale_after=timedelta(seconds=int(settings.CELERY_TASK_TIME_LIMIT)),
        )

    def refusal(self, cluster: Cluster, now: datetime) -> ReadRefused | None:
        """Why a read cannot be asked of ``cluster`` now; None when it can."""
        since = cluster.reading_since
        if since is not None and since > now - self.stale_after:
            return ReadRefused(
                f"A read of {cluster.name} is under way since {_clock(since)}: one read at a "
                "time. Its snapshot appears on the cluster's page when it ends.",
                retry_after=max(MIN_WAIT_SECONDS, self._left(since, now)),
            )
        asked = cluster.read_requested_at
        if asked is None:
            return None
        if _waiting(cluster, asked) and asked > now - self.stale_after:
            return ReadRefused(
                f"A read of {cluster.name} asked at {_clock(asked)} is waiting for a worker: "
                "one read at a time. Its snapshot appears on the cluster's page when it ends.",
                retry_after=max(MIN_WAIT_SECONDS, self._left(asked, now)),
            )
        left = self._left(asked, now)
        if left > 0:
            return ReadRefused(
                f"{cluster.name} was read on request at {_clock(asked)}: at most one read a "
                f"cluster every {self.seconds} s (PREEMPTLAB_TAKE_NOW_SECONDS). Try again "
                f"in {left} s.",
                retry_after=left,
            )
        return None

    def _left(self, since: datetime, now: datetime) -> int:
        return max(0, math.ceil(self.seconds - (now - since).total_seconds()))


def _waiting(cluster: Cluster, asked: datetime) -> bool:
    """No read has ended since ``asked``: the one asked then has not run yet."""
    ended = [at for at in (cluster.last_success_at, cluster.last_failure_at) if at is not None]
    return not any(at >= asked for at in ended)


def _clock(at: datetime) -> str:
    return f"{timezone.localtime(at):%H:%M:%S}"


def take_now(*, cluster: Cluster, user: Any) -> None:
    """Queues a read of ``cluster`` for ``user``: PermissionDenied (403, saying who may)
    for a member, ReadRefused (429) under the cooldown, BrokerUnavailable (503) when no
    worker can be reached (the cooldown is then not spent)."""
    from connected.services import cluster_snapshot_request

    access.check_take_now(user, cluster)
    now = timezone.now()
    with transaction.atomic():
        # Locked: two requests in the same instant are one read and one refusal.
        row = Cluster.objects.select_for_update().get(pk=cluster.pk)
        refused = Cooldown.from_settings().refusal(row, now)
        if refused is not None:
            raise refused
        before = row.read_requested_at
        Cluster.objects.filter(pk=cluster.pk).update(read_requested_at=now)
    try:
        cluster_snapshot_request(cluster=cluster)
    except Exception:
        Cluster.objects.filter(pk=cluster.pk, read_requested_at=now).update(
            read_requested_at=before
        )
        raise
    cluster.read_requested_at = now
