"""The preemptions that happened, read from a cluster's events.

kube-scheduler v1.35 writes one event per victim when it preempts
(pkg/scheduler/framework/preemption/executor.go):

    Eventf(victim, preemptor, Normal, "Preempted", "Preempting",
           "Preempted by pod %v on node %v", preemptor.UID, c.Name())

so the event is ON the victim (core/v1 ``involvedObject``, events.k8s.io/v1
``regarding``, ``involved`` in a snapshot's stored events), its ``related`` object is
the preemptor, and the note names the preemptor's UID and the node. Events are the
cluster's own text and may be anything: an event that does not read exactly so, or
names what no Kubernetes name can be, is left out (counted) rather than shown.

Pure Python (no Django): the caller says where pods are found by uid or by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from clusters.kube_names import dns1123_label_problem, dns1123_subdomain_problem

REASON = "Preempted"
# The whole note, as Eventf writes it; a uid is an RFC 4122 string in practice (any
# string without blanks is taken, at most 128 characters).
_NOTE = re.compile(r"Preempted by pod (?P<uid>[A-Za-z0-9_.:-]{1,128}) on node (?P<node>\S{1,253})")


@dataclass(frozen=True, slots=True)
class PodFacts:
    """What a snapshot says of one pod: enough to name it and its class."""

    key: str  # "namespace/name"
    uid: str
    priority: int | None
    priority_class: str | None


@dataclass(frozen=True, slots=True)
class Preemption:
    """One victim of one real preemption."""

    victim: str  # "namespace/name"
    victim_uid: str
    preemptor: str  # "namespace/name"; "" when only its uid is known
    preemptor_uid: str
    node: str
    at: datetime | None
    victim_class: str | None
    victim_priority: int | None
    # The recorded row's id (what .../preemptions/{id}/explain/ takes); None until stored.
    id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The drift's item (DESIGN.md: victim, preemptor, node, at, victim_class), with
        the id Explain takes."""
        return {
            "id": self.id,
            "victim": self.victim,
            "preemptor": self.preemptor or self.preemptor_uid,
            "node": self.node,
            "at": self.at.isoformat() if self.at else None,
            "victim_class": self.victim_class,
        }


@dataclass(frozen=True, slots=True)
class Read:
    """The preemptions an event list holds, and how many Preempted events were left out."""

    preemptions: tuple[Preemption, ...]
    ignored: int


PodLookup = Callable[[str, str], PodFacts | None]  # (uid, "namespace/name") -> facts


def _text(value: Any, limit: int = 253) -> str:
    return value if isinstance(value, str) and 0 < len(value) <= limit else ""


def _pod_ref(ref: Any) -> tuple[str, str] | None:
    """("namespace/name", uid) of an object reference to a Pod with valid names."""
    if not isinstance(ref, Mapping) or ref.get("kind", "Pod") != "Pod":
        return None
    namespace, name = _text(ref.get("namespace")), _text(ref.get("name"))
    if not namespace or not name:
        return None
    if dns1123_label_problem(namespace) or dns1123_subdomain_problem(name):
        return None
    return f"{namespace}/{name}", _text(ref.get("uid"), 128)


def _event_time(event: Mapping[str, Any]) -> datetime | None:
    """When the event last happened: series, then eventTime, then the timestamps."""
    series = event.get("series")
    candidates = [series.get("lastObservedTime") if isinstance(series, Mapping) else None]
    candidates += [
        event.get(k)
        for k in (
            "last_at",  # a snapshot's stored form (clusters.models.Snapshot.events)
            "eventTime",
            "lastTimestamp",
            "deprecatedLastTimestamp",
            "first_at",
            "firstTimestamp",
        )
    ]
    meta = event.get("metadata")
    if isinstance(meta, Mapping):
        candidates.append(meta.get("creationTimestamp"))
    for value in candidates:
        if isinstance(value, str) and value:
            try:
                at = datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                continue
            if at.tzinfo is not None:
                return at
    return None


def read_preemption(
    event: Mapping[str, Any], pods: PodLookup, *, seen_at: datetime | None = None
) -> Preemption | None:
    """The preemption one event records, or None when it is not a well-formed
    ``Preempted`` event of kube-scheduler. ``seen_at``: the time of an event that says
    none (the snapshot that carried it)."""
    if not isinstance(event, Mapping) or event.get("reason") != REASON:
        return None
    note = event.get("note") if "note" in event else event.get("message")
    match = _NOTE.fullmatch(note) if isinstance(note, str) else None
    if match is None:
        return None
    node = match["node"]
    if dns1123_subdomain_problem(node):
        return None
    victim_ref = _pod_ref(
        event.get("regarding") or event.get("involvedObject") or event.get("involved")
    )
    if victim_ref is None:
        return None
    victim_key, victim_uid = victim_ref
    preemptor_uid = match["uid"]
    related = _pod_ref(event.get("related"))
    preemptor_key = related[0] if related is not None and related[1] == preemptor_uid else ""
    if not preemptor_key:
        found = pods(preemptor_uid, "")
        preemptor_key = found.key if found is not None else ""
    victim = pods(victim_uid, victim_key)
    return Preemption(
        victim=victim_key,
        victim_uid=victim_uid or (victim.uid if victim else ""),
        preemptor=preemptor_key,
        preemptor_uid=preemptor_uid,
        node=node,
        at=_event_time(event) or seen_at,
        victim_class=victim.priority_class if victim else None,
        victim_priority=victim.priority if victim else None,
    )


def read_preemptions(
    events: Iterable[Any], pods: PodLookup, *, seen_at: datetime | None = None
) -> Read:
    """Every preemption in ``events`` once (a victim is preempted once: repeated events of
    it, and the same event carried by two snapshots, are one), oldest first."""
    found: dict[tuple[str, str], Preemption] = {}
    ignored = 0
    for event in events:
        if not isinstance(event, Mapping) or event.get("reason") != REASON:
            continue
        p = read_preemption(event, pods, seen_at=seen_at)
        if p is None:
            ignored += 1
            continue
        key = (p.victim_uid or p.victim, p.preemptor_uid)
        if key not in found:
            found[key] = p
    ordered = sorted(found.values(), key=lambda p: (p.at is None, p.at or datetime.min, p.victim))
    return Read(preemptions=tuple(ordered), ignored=ignored)


def pod_index(objects: Iterable[Mapping[str, Any]]) -> PodLookup:
    """A lookup over plain Pod objects (a snapshot's list): by uid first, else by name."""
    by_uid: dict[str, PodFacts] = {}
    by_key: dict[str, PodFacts] = {}
    for obj in objects:
        if not isinstance(obj, Mapping) or obj.get("kind") != "Pod":
            continue
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        priority = spec.get("priority")
        facts = PodFacts(
            key=key,
            uid=str(meta.get("uid") or ""),
            priority=priority if isinstance(priority, int) else None,
            priority_class=spec.get("priorityClassName") or None,
        )
        by_key[key] = facts
        if facts.uid:
            by_uid[facts.uid] = facts

    def lookup(uid: str, key: str) -> PodFacts | None:
        return (by_uid.get(uid) if uid else None) or (by_key.get(key) if key else None)

    return lookup


def first_of(*lookups: PodLookup) -> PodLookup:
    """Asks each lookup in turn (the snapshot before the preemption, then the one after)."""

    def lookup(uid: str, key: str) -> PodFacts | None:
        for each in lookups:
            found = each(uid, key)
            if found is not None:
                return found
        return None

    return lookup
