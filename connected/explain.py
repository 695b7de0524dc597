"""Explain a real preemption: the preemptor asked as a what-if on the snapshot taken
before it, and the engine's answer set against what happened (same node, same victims).

The what-if is an ordinary pod analysis (scheduling/services/pod.py) in the name of who
asked (counted against their unfinished work), linked from the preemption; where the
answers differ the verdict says what may explain it. Once the what-if is done the
verdict is stored on the preemption itself: it outlives the what-if and its snapshot
(retention stores the verdicts before it deletes anything).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from clusters.models import Pod, Snapshot
from clusters.selectors import pod_manifest
from connected.history.models import DeletedSnapshot, ObservedPreemption
from connected.history.services import snapshot_before
from scheduling.analyses.submission import PodRejected, priority_class_row_object
from scheduling.constants import AnalysisSource
from scheduling.models import Analysis
from scheduling.services import analysis_create

# What a snapshot's picture of the cluster cannot hold, said when the answers differ.
WHY_IT_MAY_DIFFER = (
    "the snapshot is minutes older than the preemption: pods started, ended or moved since",
    "pods nominated to a node at that moment (status.nominatedNodeName) hold room the "
    "snapshot may not show",
    "kube-scheduler tries candidates from a random offset (sampling) and breaks a last tie "
    "at random; the engine picks by node name",
)


class NotExplainable(Exception):
    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def _pending(pod: dict[str, Any]) -> dict[str, Any]:
    """The preemptor as it was when kube-scheduler preempted for it: pending, unbound."""
    pod = copy.deepcopy(pod)
    pod.get("spec", {}).pop("nodeName", None)
    pod["status"] = {"phase": "Pending"}
    meta = pod.setdefault("metadata", {})
    for key in ("resourceVersion", "managedFields", "deletionTimestamp", "generation"):
        meta.pop(key, None)
    return pod


def preemptor_manifest(row: ObservedPreemption, before: Snapshot) -> dict[str, Any] | None:
    """The preemptor's pod: from the snapshot whose events recorded the preemption, else
    from the one before it (by uid, then by name)."""
    for snapshot in (row.snapshot, before):
        if snapshot is None:
            continue
        pods = Pod.objects.filter(snapshot=snapshot)
        found = pods.filter(uid=row.preemptor_uid).first()
        if found is None and "/" in row.preemptor:
            namespace, name = row.preemptor.split("/", 1)
            found = pods.filter(namespace=namespace, name=name).first()
        if found is not None:
            manifest = pod_manifest(pod=found)
            if manifest is not None:
                return _pending(manifest)
    return None


def _classes_since(
    pod: dict[str, Any], *, before: Snapshot, after: Snapshot | None
) -> list[dict[str, Any]]:
    """The preemptor's PriorityClass when it was created after ``before`` was taken: the
    what-if carries it (as the later snapshot has it), as a class that does not exist yet."""
    name = (pod.get("spec") or {}).get("priorityClassName")
    if not name or before.priority_classes.filter(name=name).exists():
        return []
    if after is None:
        return []
    pc = after.priority_classes.filter(name=name, builtin=False).first()
    if pc is None:
        return []
    return [priority_class_row_object(pc)]


def _when(at: Any) -> str:
    return f"{timezone.localtime(at):%Y-%m-%d %H:%M}"


def _deleted_before(row: ObservedPreemption) -> str | None:
    """Why no snapshot before the preemption is left, when one was taken and deleted."""
    if row.at is None:
        return None
    gone = (
        DeletedSnapshot.objects.filter(cluster_id=row.cluster_id, taken_at__lt=row.at)
        .order_by("-taken_at", "-id")
        .first()
    )
    if gone is None:
        return None
    how = "by the cluster's retention" if gone.by_retention else ""
    return (
        f"The snapshot taken before this preemption ({gone.name}, taken "
        f"{_when(gone.taken_at)}) was deleted {how + ' ' if how else ''}on "
        f"{_when(gone.deleted_at)}: there is nothing left to ask the what-if on. Pin a "
        "snapshot to keep it."
    )


def explain_create(row: ObservedPreemption, *, requested_by: Any = None) -> Analysis:
    """The what-if of the preemptor on the snapshot before the preemption, in the name of
    ``requested_by`` (None: the snapshot's owner), linked to the row (an existing one is
    given back). NotExplainable says why there is none."""
    if row.explanation_id is not None and row.explanation is not None:
        return row.explanation
    if row.verdict_at is not None:
        raise NotExplainable(
            f"Explained on {_when(row.verdict_at)}: {row.verdict_said} Its what-if was "
            "deleted since (with its snapshot); the verdict is kept."
        )
    if row.at is None:
        raise NotExplainable("The event gives no time: no snapshot is known to precede it.")
    before = (
        Snapshot.objects.filter(cluster_id=row.cluster_id, status="ready", taken_at__lt=row.at)
        .order_by("-taken_at", "-id")
        .defer("events")
        .first()
    ) or (snapshot_before(row.snapshot) if row.snapshot is not None else None)
    if before is None:
        raise NotExplainable(
            _deleted_before(row) or "No snapshot of the cluster was taken before this preemption."
        )
    pod = preemptor_manifest(row, before)
    if pod is None:
        raise NotExplainable(
            f"The preemptor ({row.preemptor or row.preemptor_uid}) is in neither snapshot: "
            "its pod spec is not known."
        )
    try:
        analysis = analysis_create(
            snapshot=before,
            pod=pod,
            source=AnalysisSource.API,
            priority_classes=_classes_since(pod, before=before, after=row.snapshot),
            requested_by=requested_by,
        )
    except PodRejected as e:
        raise NotExplainable(f"The preemptor cannot be asked as a what-if: {e}") from None
    ObservedPreemption.objects.filter(
        cluster_id=row.cluster_id, preemptor_uid=row.preemptor_uid, explanation=None
    ).update(explanation=analysis, explained_by=analysis.requested_by)
    row.explanation = analysis
    row.explained_by = analysis.requested_by
    return analysis


@dataclass(frozen=True)
class Verdict:
    matches: bool | None  # None: the what-if is not done
    said: str
    differences: tuple[str, ...] = ()
    why: tuple[str, ...] = ()

    @property
    def kept(self) -> bool:
        """A final verdict (the what-if done), stored on the preemption."""
        return self.matches is not None


def _stored(row: ObservedPreemption) -> Verdict:
    return Verdict(
        row.verdict_matches,
        row.verdict_said,
        tuple(row.verdict_differences or ()),
        WHY_IT_MAY_DIFFER if row.verdict_matches is False else (),
    )


def verdict(row: ObservedPreemption) -> Verdict:
    """Whether the engine's answer is what happened: same node, same victims. Once the
    what-if is done the verdict is stored on every row of the preemption, and read back
    from there (its what-if may be deleted since)."""
    if row.verdict_at is not None:
        return _stored(row)
    analysis = row.explanation
    if analysis is None:
        return Verdict(None, "Not explained yet.")
    if not analysis.is_done:
        return Verdict(None, f"The what-if is {analysis.status}.")
    result = analysis.result or {}
    happened = sorted(
        ObservedPreemption.objects.filter(
            cluster_id=row.cluster_id, preemptor_uid=row.preemptor_uid
        ).values_list("victim", flat=True)
    )
    found = compare(result, node=row.node, victims=happened)
    _keep(row, found)
    return found


def _keep(row: ObservedPreemption, found: Verdict) -> None:
    now = timezone.now()
    ObservedPreemption.objects.filter(
        cluster_id=row.cluster_id, preemptor_uid=row.preemptor_uid, verdict_at__isnull=True
    ).update(
        verdict_matches=found.matches,
        verdict_said=found.said,
        verdict_differences=list(found.differences),
        verdict_at=now,
    )
    row.verdict_matches, row.verdict_said = found.matches, found.said
    row.verdict_differences, row.verdict_at = list(found.differences), now


def verdicts_keep(cluster: Any) -> int:
    """Stores the verdict of every done Explain of ``cluster`` not stored yet (retention
    calls it before deleting snapshots, and so what-ifs); how many were stored."""
    rows = ObservedPreemption.objects.filter(
        cluster=cluster, verdict_at__isnull=True, explanation__status="done"
    ).select_related("explanation")
    stored = 0
    for row in rows:
        if row.verdict_at is None and verdict(row).kept:
            stored += 1
    return stored


def compare(result: dict[str, Any], *, node: str, victims: list[str]) -> Verdict:
    """The engine's result (the result contract) against the node and victims seen."""
    differences = []
    outcome = result.get("outcome")
    if outcome != "preempts":
        differences.append(
            f"the engine says the pod {'fits' if outcome == 'fits' else 'is unschedulable'}"
            + (f" (on {result.get('node')})" if outcome == "fits" else "")
            + ", without preempting"
        )
    else:
        if result.get("node") != node:
            differences.append(f"the engine picks node {result.get('node')}, not {node}")
        said, seen = set(result.get("victims") or []), set(victims)
        if said != seen:
            if seen - said:
                differences.append(f"it would not evict {', '.join(sorted(seen - said))}")
            if said - seen:
                differences.append(f"it would also evict {', '.join(sorted(said - seen))}")
    if not differences:
        return Verdict(True, f"The engine agrees: node {node}, the same {len(victims)} victim(s).")
    return Verdict(
        False,
        "The engine answers otherwise: " + "; ".join(differences) + ".",
        tuple(differences),
        WHY_IT_MAY_DIFFER,
    )
