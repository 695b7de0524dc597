"""Reading a connected cluster: the CLI's live read (preemptlab.kube, read-only verbs
only) run by a worker, plus the events of the last hour and OpenShift's profile."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
from django.conf import settings
from django.utils.dateparse import parse_datetime

from clusters.ingest.scrub import scrub_event
from clusters.ingest.uploaded import UploadedFile
from clusters.services import max_upload_bytes
from connected.in_cluster import in_cluster_kubeconfig
from connected.models import IN_CLUSTER, Cluster
from preemptlab.kube import Kubectl, KubeError, memory_bound

# The events a snapshot keeps: the hour before the read, at most this many (the newest).
EVENTS_WINDOW = timedelta(hours=1)
EVENTS_KEPT = 5000


@dataclass(frozen=True)
class ClusterRead:
    """What one read gave: the files the ingest takes, the scrubbed events, the
    preset of OpenShift's Scheduler profile (None: not OpenShift, or none named), and
    the volume and device resources the cluster would not give ("<resource>: <why>")."""

    files: list[UploadedFile]
    events: list[dict[str, Any]]
    preset: str | None
    left_out: list[str] = field(default_factory=list)


def kubectl_for(cluster: Cluster, work: Path) -> Kubectl:
    """The worker's kubectl on the cluster's source. In-cluster: only the pod's
    ServiceAccount (connected.in_cluster's kubeconfig; an empty home, no KUBECONFIG), never
    a kubeconfig of the workers'. KubeError outside a pod or without a token."""
    timeout = float(settings.CONNECTED_READ_TIMEOUT)
    # Bounded while kubectl runs: what one call receives, and kubectl's memory.
    memory_mb = int(settings.CONNECTED_READ_MAX_MEMORY_MB)
    limits: dict[str, Any] = {
        "max_bytes": max_upload_bytes(),
        "max_memory": memory_mb * 2**20 if memory_mb > 0 else memory_bound(max_upload_bytes()),
    }
    if cluster.in_cluster:
        home = work / "home"
        home.mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"} | {"HOME": str(home)}
        kubeconfig = in_cluster_kubeconfig(work / "in-cluster.kubeconfig")
        return Kubectl(
            settings.CONNECTED_KUBECTL,
            context=IN_CLUSTER,
            kubeconfig=str(kubeconfig),
            timeout=timeout,
            env=env,
            **limits,
        )
    return Kubectl(
        settings.CONNECTED_KUBECTL,
        context=cluster.source,
        kubeconfig=settings.CONNECTED_KUBECONFIG or None,
        timeout=timeout,
        **limits,
    )


def kubeconfig_contexts() -> list[str] | None:
    """The contexts of the workers' kubeconfig, as ``kubectl config get-contexts`` names
    them (it reads the file only, nothing of a cluster); None when kubectl cannot say."""
    kubectl = shutil.which(settings.CONNECTED_KUBECTL)
    if kubectl is None:
        return None
    command = [kubectl, "config", "get-contexts", "-o", "name"]
    if settings.CONNECTED_KUBECONFIG:
        command[1:1] = ["--kubeconfig", settings.CONNECTED_KUBECONFIG]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return [line.strip() for line in proc.stdout.splitlines() if line.strip()]


def cluster_read(cluster: Cluster, work: Path, *, now: datetime) -> ClusterRead:
    """Reads the cluster into ``work``; KubeError says why it could not."""
    kubectl = kubectl_for(cluster, work)
    read = kubectl.read_snapshot(work, quotas=True, quiet=True)
    files = [UploadedFile(name=path.name, data=_bounded(path)) for path in read.paths]
    events = recent_events(_bounded(kubectl.read_events(work / "events.json")), now=now)
    return ClusterRead(
        files=files,
        events=events,
        preset=kubectl.read_openshift_profile(),
        left_out=read.left_out,
    )


def _bounded(path: Path) -> bytes:
    size = path.stat().st_size
    if size > max_upload_bytes():
        raise KubeError(
            f"the cluster's {path.stem} are {size:,} bytes, over the {max_upload_bytes():,} "
            "one snapshot may hold (MAX_UPLOAD_MB)"
        )
    return path.read_bytes()


def recent_events(data: bytes, *, now: datetime) -> list[dict[str, Any]]:
    """The events of the hour before ``now``, scrubbed, oldest first."""
    try:
        listed = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise KubeError("the cluster's events are not the JSON kubectl prints") from None
    items = listed.get("items") if isinstance(listed, dict) else None
    if not isinstance(items, list):
        raise KubeError("the cluster's events are not a list of objects")
    since = now - EVENTS_WINDOW
    kept: list[tuple[datetime, dict[str, Any]]] = []
    for item in items:
        event = scrub_event(item)
        at = _when(event["last_at"]) if event is not None else None
        if event is not None and at is not None and at >= since:
            kept.append((at, event))
    kept.sort(key=lambda pair: pair[0])
    return [event for _, event in kept[-EVENTS_KEPT:]]


def _when(text: str) -> datetime | None:
    try:
        return parse_datetime(text) if text else None
    except ValueError:
        return None
