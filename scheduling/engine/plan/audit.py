"""The audit of a cluster's priority plan against the planning rules."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..cluster import Cluster
from ..collector import collector_paused
from .context import audit_context
from .finding import Finding
from .index import PlanIndex, plan_index
from .owned import operator_owned
from .rules.registry import RULE_IDS, RULES

_ORDER = {rule: i for i, rule in enumerate(RULE_IDS)}


def audit(
    cluster: Cluster,
    *,
    critical_classes: Collection[str] = (),
    scheduler_config: dict[str, Any] | None = None,
) -> list[Finding]:
    """Every finding of every rule, in rule order (RULE_IDS), then by objects; those
    whose object the platform's operators own (plan/owned.py) are notes, listed last.

    ``critical_classes`` names the business-critical tier; left empty, it is the top
    user class(es) by value that pods use (when pods use at least two user values).
    An unknown name raises InvalidInput. ``scheduler_config``: the cluster's
    KubeSchedulerConfiguration, for the rules about its profiles (None: the default).
    """
    return audit_of(
        plan_index(cluster), critical_classes=critical_classes, scheduler_config=scheduler_config
    )


def audit_of(
    index: PlanIndex,
    *,
    critical_classes: Collection[str] = (),
    scheduler_config: dict[str, Any] | None = None,
) -> list[Finding]:
    ctx = audit_context(index, critical_classes, scheduler_config)
    with collector_paused():
        findings = [rule.finding(draft) for rule in RULES for draft in rule.check(ctx)]
    for i, f in enumerate(findings):
        sentence = operator_owned(index, f.objects)
        if sentence is not None:
            findings[i] = f.owned(sentence)
    # The user's own findings first: those about the operators' objects after them.
    findings.sort(key=lambda f: (f.operator_owned is not None, _ORDER[f.rule], f.objects))
    return findings
