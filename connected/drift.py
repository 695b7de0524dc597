"""What changed in a cluster between two of its snapshots, and the one sentence saying so.

Pure Python (no Django): each side is a ``Side`` (what the pages already keep of a
snapshot: its classes, the audit's findings, PDBs' allowed disruptions, nodes, the
first-in-line ranking), and the preemptions between them come from the events
(connected/preemptions.py). ``Drift.to_dict()`` is DESIGN.md's answer of
``GET /api/clusters/{id}/drift/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from connected.preemptions import Preemption
from scheduling.engine.plan import ERROR

# Findings and apps named in the sentence before "and N more".
NAMED_IN_SENTENCE = 2


@dataclass(frozen=True, slots=True)
class ClassFacts:
    name: str
    value: int
    preemption_policy: str
    global_default: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "preemption_policy": self.preemption_policy,
            "global_default": self.global_default,
        }


@dataclass(frozen=True, slots=True)
class FindingFacts:
    rule: str
    severity: str
    message: str
    objects: tuple[str, ...]

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        """A finding is the same one while its rule and its objects are."""
        return self.rule, tuple(sorted(self.objects))

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "objects": list(self.objects),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FindingFacts:
        return cls(d["rule"], d["severity"], d["message"], tuple(d["objects"]))

    @property
    def short(self) -> str:
        """ "missing-class on gone, shop/api" (its first objects, without their kinds)."""
        names = [o.split(" ", 1)[-1] for o in self.objects[:NAMED_IN_SENTENCE]]
        more = " …" if len(self.objects) > NAMED_IN_SENTENCE else ""
        return f"{self.rule} on {', '.join(names)}{more}" if names else self.rule


@dataclass(frozen=True, slots=True)
class Side:
    """One snapshot as the drift reads it. ``first_in_line``: the apps ranked under the
    default probe, first first (None: not ranked yet)."""

    taken_at: datetime | None
    classes: Mapping[str, ClassFacts]
    findings: Sequence[FindingFacts]
    pdbs: Mapping[str, int]  # "namespace/name" -> disruptions allowed
    nodes: frozenset[str]
    first_in_line: Sequence[str] | None = None


@dataclass(frozen=True)
class Drift:
    before: Side
    after: Side
    classes_added: list[ClassFacts] = field(default_factory=list)
    classes_removed: list[ClassFacts] = field(default_factory=list)
    classes_changed: list[dict[str, Any]] = field(default_factory=list)
    findings_new: list[FindingFacts] = field(default_factory=list)
    findings_resolved: list[FindingFacts] = field(default_factory=list)
    pdbs_at_zero: list[dict[str, Any]] = field(default_factory=list)
    first_in_line_moves: list[dict[str, Any]] = field(default_factory=list)
    nodes_added: list[str] = field(default_factory=list)
    nodes_removed: list[str] = field(default_factory=list)
    preemptions: list[Preemption] = field(default_factory=list)

    @property
    def sentence(self) -> str:
        return drift_sentence(self)

    @property
    def new_errors(self) -> list[FindingFacts]:
        return [f for f in self.findings_new if f.severity == ERROR]

    def to_dict(self) -> dict[str, Any]:
        return {
            "sentence": self.sentence,
            "classes": {
                "added": [c.to_dict() for c in self.classes_added],
                "removed": [c.to_dict() for c in self.classes_removed],
                "changed": self.classes_changed,
            },
            "findings": {
                "new": [f.to_dict() for f in self.findings_new],
                "resolved": [f.to_dict() for f in self.findings_resolved],
            },
            "pdbs_at_zero": self.pdbs_at_zero,
            "first_in_line_moves": self.first_in_line_moves,
            "nodes": {"added": self.nodes_added, "removed": self.nodes_removed},
            "preemptions": [p.to_dict() for p in self.preemptions],
        }


_CLASS_FIELDS = ("value", "preemption_policy", "global_default")


def _class_changes(before: ClassFacts, after: ClassFacts) -> list[dict[str, Any]]:
    return [
        {"field": name, "from": getattr(before, name), "to": getattr(after, name)}
        for name in _CLASS_FIELDS
        if getattr(before, name) != getattr(after, name)
    ]


def _moves(before: Sequence[str] | None, after: Sequence[str] | None) -> list[dict[str, Any]]:
    """Apps whose place in line changed, entered or left it (1 is first), by new place."""
    if before is None or after is None:
        return []
    was = {app: i for i, app in enumerate(before, 1)}
    now = {app: i for i, app in enumerate(after, 1)}
    moves = [
        {"app": app, "from": was.get(app), "to": now.get(app)}
        for app in {*was, *now}
        if was.get(app) != now.get(app)
    ]
    moves.sort(key=lambda m: (m["to"] is None, m["to"] or 0, m["from"] or 0, m["app"]))
    return moves


def drift(before: Side, after: Side, preemptions: Sequence[Preemption] = ()) -> Drift:
    """What changed from ``before`` to ``after``; ``preemptions``: those that happened
    between them (the caller reads them from the events)."""
    names_before, names_after = set(before.classes), set(after.classes)
    changed = []
    for name in sorted(names_before & names_after):
        changes = _class_changes(before.classes[name], after.classes[name])
        if changes:
            changed.append({"name": name, "changes": changes})
    old_findings = {f.key for f in before.findings}
    new_findings = {f.key for f in after.findings}
    at_zero = [
        {"pdb": name, "from": before.pdbs.get(name), "to": allowed}
        for name, allowed in sorted(after.pdbs.items())
        if allowed <= 0 and (before.pdbs.get(name) is None or before.pdbs[name] > 0)
    ]
    return Drift(
        before=before,
        after=after,
        classes_added=_by_value([after.classes[n] for n in names_after - names_before]),
        classes_removed=_by_value([before.classes[n] for n in names_before - names_after]),
        classes_changed=changed,
        findings_new=[f for f in after.findings if f.key not in old_findings],
        findings_resolved=[f for f in before.findings if f.key not in new_findings],
        pdbs_at_zero=at_zero,
        first_in_line_moves=_moves(before.first_in_line, after.first_in_line),
        nodes_added=sorted(after.nodes - before.nodes),
        nodes_removed=sorted(before.nodes - after.nodes),
        preemptions=list(preemptions),
    )


def _by_value(classes: list[ClassFacts]) -> list[ClassFacts]:
    return sorted(classes, key=lambda c: (-c.value, c.name))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _named(items: Sequence[str]) -> str:
    shown = list(items[:NAMED_IN_SENTENCE])
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def class_place(added: ClassFacts, classes: Mapping[str, ClassFacts]) -> str:
    """ "above cat-2" (the highest class below it), else "below X", else ""."""
    others = [c for c in classes.values() if c.name != added.name]
    below = [c for c in others if c.value < added.value]
    if below:
        return f"above {max(below, key=lambda c: (c.value, c.name)).name}"
    above = [c for c in others if c.value >= added.value]
    if above:
        return f"below {min(above, key=lambda c: (c.value, c.name)).name}"
    return ""


def since_words(before: datetime | None, after: datetime | None) -> str:
    """ "Since 09:15" (same day), "Since Monday" (the week before), else "Since 3 Nov"."""
    if before is None:
        return "Since the snapshot before"
    if after is not None and before.date() == after.date():
        return f"Since {before:%H:%M}"
    if after is not None and after - before < timedelta(days=7):
        return f"Since {before:%A}"
    return f"Since {before.day} {before:%b %Y}"


def drift_sentence(d: Drift) -> str:
    parts: list[str] = []
    for c in d.classes_added:
        place = class_place(c, d.after.classes)
        parts.append(f"class {c.name} added" + (f" {place}" if place else ""))
    for c in d.classes_removed:
        parts.append(f"class {c.name} removed")
    for change in d.classes_changed:
        said = ", ".join(f"{x['field']} {x['from']} → {x['to']}" for x in change["changes"])
        parts.append(f"class {change['name']} changed ({said})")
    errors = d.new_errors
    if errors:
        parts.append(f"{_plural(len(errors), 'new error')}: {_named([f.short for f in errors])}")
    others = len(d.findings_new) - len(errors)
    if others:
        parts.append(_plural(others, "other new finding"))
    if d.findings_resolved:
        parts.append(f"{_plural(len(d.findings_resolved), 'finding')} resolved")
    if d.pdbs_at_zero:
        names = _named([p["pdb"] for p in d.pdbs_at_zero])
        parts.append(f"{_plural(len(d.pdbs_at_zero), 'PDB')} now allowing no disruption: {names}")
    if d.first_in_line_moves:
        first = next((m["app"] for m in d.first_in_line_moves if m["to"] == 1), None)
        moved = _plural(len(d.first_in_line_moves), "app")
        parts.append(
            f"{first} now first in line"
            + (f" ({moved} moved)" if len(d.first_in_line_moves) > 1 else "")
            if first
            else f"{moved} moved in first-in-line"
        )
    if d.nodes_added:
        parts.append(f"{_plural(len(d.nodes_added), 'node')} added")
    if d.nodes_removed:
        parts.append(f"{_plural(len(d.nodes_removed), 'node')} removed")
    if d.preemptions:
        parts.append(f"{_plural(len(d.preemptions), 'pod')} preempted")
    since = since_words(d.before.taken_at, d.after.taken_at)
    return f"{since}: {'; '.join(parts) if parts else 'nothing changed'}."
