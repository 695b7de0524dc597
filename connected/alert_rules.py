"""The alert rules a team sets on a connected cluster, one short phrase each.

    preemption            a real preemption whose victim's priority is at least the
                          lowest class the cluster marks critical (else: every one)
    preemption>=P         ... whose victim's priority is at least P (an integer)
    pdb-at-zero           a PodDisruptionBudget goes to 0 allowed disruptions
    finding>=S            a new audit finding of severity S or worse (info, warning,
                          error); "finding" alone: error
    unreadable>=D         reads failing for D (90s, 15m, 2h); "unreadable" alone: 1h

The same words serve ``manage.py cluster add/edit --alert``, the admin (one a line) and
the API (a list of strings); a cluster with none set (null) has DEFAULT_RULES. A class is
marked critical by its name ending in ``-critical`` (kube's system-node-critical and
system-cluster-critical, OpenShift's openshift-user-critical) or by being named in
PREEMPTLAB_CRITICAL_CLASSES.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from connected.drift import Drift
from connected.every import format_every, parse_every
from connected.preemptions import Preemption
from scheduling.engine.plan import ERROR, INFO, WARNING

log = logging.getLogger(__name__)

DEFAULT_RULES = ("preemption", "pdb-at-zero", "finding>=error", "unreadable>=1h")
UNREADABLE_DEFAULT_SECONDS = 3600
CRITICAL_SUFFIX = "-critical"
# Worse is higher.
SEVERITIES = {INFO: 0, WARNING: 1, ERROR: 2}


class RuleKind(StrEnum):
    PREEMPTION = "preemption"
    PDB_AT_ZERO = "pdb-at-zero"
    FINDING = "finding"
    UNREADABLE = "unreadable"


class RuleInvalid(ValueError):
    """A rule that does not read as one: what to write instead."""


@dataclass(frozen=True, slots=True)
class AlertRule:
    kind: RuleKind
    # preemption: the victim's least priority (None: the cluster's critical default).
    priority: int | None = None
    # finding: the least severity.
    severity: str | None = None
    # unreadable: failing for this long.
    after_seconds: int | None = None

    def __str__(self) -> str:
        if self.kind is RuleKind.PREEMPTION and self.priority is not None:
            return f"preemption>={self.priority}"
        if self.kind is RuleKind.FINDING:
            return f"finding>={self.severity}"
        if self.kind is RuleKind.UNREADABLE:
            return f"unreadable>={format_every(self.after_seconds or UNREADABLE_DEFAULT_SECONDS)}"
        return str(self.kind)

    def finding_matches(self, severity: str) -> bool:
        return SEVERITIES.get(severity, -1) >= SEVERITIES[self.severity or ERROR]


_RULE = re.compile(r"^\s*([a-z-]+)\s*(?:>=\s*(\S+))?\s*$")
_HELP = (
    "write preemption, preemption>=PRIORITY, pdb-at-zero, finding>=info|warning|error "
    "or unreadable>=DURATION (90s, 15m, 2h)"
)


def parse_rule(text: str) -> AlertRule:
    """The rule a phrase says; RuleInvalid naming what to write."""
    match = _RULE.match(str(text))
    try:
        kind = RuleKind(match.group(1)) if match else None
    except ValueError:
        kind = None
    if match is None or kind is None:
        raise RuleInvalid(f'"{text}" is not an alert rule: {_HELP}.')
    value = match.group(2)
    if kind is RuleKind.PREEMPTION:
        if value is None:
            return AlertRule(kind)
        if not re.fullmatch(r"-?\d{1,10}", value):
            raise RuleInvalid(f'"{text}": a priority is an integer (1000000000).')
        return AlertRule(kind, priority=int(value))
    if kind is RuleKind.PDB_AT_ZERO:
        if value is not None:
            raise RuleInvalid(f'"{text}": pdb-at-zero takes no value.')
        return AlertRule(kind)
    if kind is RuleKind.FINDING:
        severity = value or ERROR
        if severity not in SEVERITIES:
            raise RuleInvalid(f'"{text}": a severity is info, warning or error.')
        return AlertRule(kind, severity=severity)
    try:
        seconds = parse_every(value) if value is not None else UNREADABLE_DEFAULT_SECONDS
    except ValueError:
        raise RuleInvalid(f'"{text}": a duration is 90s, 15m or 2h.') from None
    return AlertRule(kind, after_seconds=seconds)


def parse_rules(texts: Iterable[str]) -> list[AlertRule]:
    """Each phrase's rule, each rule once, in the order given."""
    rules: list[AlertRule] = []
    for text in texts:
        if not isinstance(text, str):
            raise RuleInvalid(f"{text!r} is not an alert rule: {_HELP}.")
        rule = parse_rule(text)
        if rule not in rules:
            rules.append(rule)
    return rules


def rules_of(stored: list[str] | None) -> list[AlertRule]:
    """A cluster's rules: what it stores, or DEFAULT_RULES when it stores none (null). A
    stored phrase that reads as no rule (the row changed by hand: every way in checks
    them) is left out, said in the log, rather than stopping every other alert."""
    rules: list[AlertRule] = []
    for text in DEFAULT_RULES if stored is None else stored:
        try:
            rule = parse_rule(text)
        except RuleInvalid as err:
            log.warning("alert rule left out: %s", err)
            continue
        if rule not in rules:
            rules.append(rule)
    return rules


def is_critical(name: str | None, named: Iterable[str] = ()) -> bool:
    return bool(name) and (str(name).endswith(CRITICAL_SUFFIX) or name in set(named))


def critical_floor(classes: Mapping[str, int], named: Iterable[str] = ()) -> int | None:
    """The value of the lowest class the cluster marks critical (None: it marks none,
    and every preemption is alerted)."""
    named = set(named)
    values = [value for name, value in classes.items() if is_critical(name, named)]
    return min(values) if values else None


def preemption_threshold(
    rule: AlertRule, classes: Mapping[str, int], named: Iterable[str] = ()
) -> int | None:
    """The least victim priority a preemption rule alerts on (None: every preemption)."""
    return rule.priority if rule.priority is not None else critical_floor(classes, named)


# -- the alerts the rules raise ---------------------------------------------------------


@dataclass(frozen=True)
class Alert:
    """One alert: its rule's kind, what makes it the same alert (never sent twice to one
    receiver), the rule that raised it, the one-line text a chat tool shows as is, and the
    facts (the payload's ``facts``)."""

    kind: str
    key: str
    text: str
    details: dict[str, Any]
    rule: str = ""


def slack_escape(text: str) -> str:
    """Slack's and Teams' text reads <...> as links and mentions: shown literally."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def one_line(text: str, limit: int = 500) -> str:
    """The cluster's own words (a reason, a finding) on one line, escaped, bounded."""
    flat = " ".join(str(text).split())
    return slack_escape(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def _victim_priority(p: Preemption, classes: Mapping[str, int]) -> int | None:
    if p.victim_priority is not None:
        return p.victim_priority
    return classes.get(p.victim_class) if p.victim_class else None


def drift_alerts(
    cluster_name: str, rules: list[AlertRule], drift: Drift, named: Iterable[str] = ()
) -> list[Alert]:
    """The alerts the rules raise on a drift (connected.drift.Drift): each thing alerted
    once, by the first rule that matches it."""
    name = slack_escape(cluster_name)
    classes = {c.name: c.value for c in drift.after.classes.values()}
    alerts: list[Alert] = []
    seen: set[tuple[str, str]] = set()

    def add(alert: Alert) -> None:
        if (alert.kind, alert.key) not in seen:
            seen.add((alert.kind, alert.key))
            alerts.append(alert)

    for rule in rules:
        if rule.kind is RuleKind.PREEMPTION:
            threshold = preemption_threshold(rule, classes, named)
            for p in drift.preemptions:
                priority = _victim_priority(p, classes)
                if threshold is not None and (priority is None or priority < threshold):
                    continue
                said = ", ".join(
                    x
                    for x in (
                        p.victim_class or "",
                        f"priority {priority}" if priority is not None else "",
                    )
                    if x
                )
                add(
                    Alert(
                        str(rule.kind),
                        f"{p.victim}:{p.victim_uid}:{p.preemptor_uid}"[:500],
                        f"[{name}] {slack_escape(p.victim)}"
                        + (f" ({slack_escape(said)})" if said else "")
                        + f" was preempted by {slack_escape(p.preemptor or p.preemptor_uid)}"
                        f" on node {slack_escape(p.node)}",
                        {
                            "preemption": p.to_dict(),
                            "victim_priority": priority,
                            "threshold": threshold,
                        },
                        str(rule),
                    )
                )
        elif rule.kind is RuleKind.PDB_AT_ZERO:
            at = drift.after.taken_at.isoformat() if drift.after.taken_at else ""
            for pdb in drift.pdbs_at_zero:
                was = pdb["from"]
                add(
                    Alert(
                        str(rule.kind),
                        f"{pdb['pdb']}@{at}"[:500],
                        f"[{name}] PodDisruptionBudget {slack_escape(pdb['pdb'])} now allows "
                        f"0 disruptions"
                        + (f" (was {was})" if was is not None else " (new)")
                        + ": a drain of its pods' nodes blocks, a preemption there breaks it",
                        {"pdb": pdb["pdb"], "from": was, "to": pdb["to"]},
                        str(rule),
                    )
                )
        elif rule.kind is RuleKind.FINDING:
            for f in drift.findings_new:
                if not rule.finding_matches(f.severity):
                    continue
                add(
                    Alert(
                        str(rule.kind),
                        f"{f.rule}:{'|'.join(sorted(f.objects))}"[:500],
                        f"[{name}] new {slack_escape(f.severity)}: {slack_escape(f.short)}: "
                        f"{one_line(f.message, 300)}",
                        {"finding": f.to_dict()},
                        str(rule),
                    )
                )
    return alerts


def unreadable_alert(
    cluster_name: str,
    rules: list[AlertRule],
    *,
    failing: bool,
    since: datetime,
    reason: str,
    now: datetime,
) -> Alert | None:
    """The alert of a cluster whose reads have failed for as long as its rule says, once
    per outage (the outage is known by its start)."""
    rule = next((r for r in rules if r.kind is RuleKind.UNREADABLE), None)
    if rule is None or not failing:
        return None
    after = rule.after_seconds or UNREADABLE_DEFAULT_SECONDS
    if (now - since).total_seconds() < after:
        return None
    reason = reason[:300] or "no reason given"
    return Alert(
        str(rule.kind),
        f"since {since.isoformat()}",
        f"[{slack_escape(cluster_name)}] unreadable since {since:%Y-%m-%d %H:%M} UTC: "
        f"{one_line(reason, 300)}",
        {
            "since": since.isoformat(),
            "reason": reason,
            "failing_seconds": int((now - since).total_seconds()),
        },
        str(rule),
    )
