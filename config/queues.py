"""Which Celery queue each task goes to: the reads of connected clusters on a queue of
their own, consumed by the only worker that holds the ServiceAccount token (the
reader); the alerts' deliveries on another, consumed by the only worker that may reach
the receivers; everything else (analyses of uploads, ingests, plans, digests) on the
default queue. A worker started without ``-Q`` consumes all three (make run,
docker-compose); deploy/kubernetes gives each queue a Deployment of its own.

Decided at send time from the settings, so a test's queues are the test's own."""

from __future__ import annotations

from typing import Any

# The read that holds the token: `kubectl get` on the cluster.
CLUSTER_READ_TASKS = frozenset({"connected.cluster_snapshot"})
# The POST to a receiver outside the cluster.
ALERT_TASKS = frozenset({"connected.alert_send"})


def route_task(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **_: Any) -> Any:
    from django.conf import settings

    if name in CLUSTER_READ_TASKS:
        return {"queue": settings.PREEMPTLAB_CLUSTER_READS_QUEUE}
    if name in ALERT_TASKS:
        return {"queue": settings.PREEMPTLAB_ALERTS_QUEUE}
    return None
