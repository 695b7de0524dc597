"""The priority plan of a snapshot: the PriorityClass ladder and its audit.

Pure Python beside the engine (no Django): ``plan_ladder(cluster)`` and
``audit(cluster, critical_classes=...)`` read a Cluster built by ``load_cluster``;
each result has ``to_dict()`` giving plain JSON.
"""

from __future__ import annotations

from .audit import audit
from .finding import ERROR, INFO, WARNING, Finding
from .ladder import BudgetCoverage, ClassRung, Ladder, MissingClassUse, UnclassedPods, plan_ladder
from .rules.registry import RULE_IDS, RULES
from .thresholds import (
    EQUAL_PRIORITY_BLOCK_PODS,
    EQUAL_PRIORITY_BLOCK_SHARE,
    LONG_GRACE_SECONDS,
    MANY_NAMESPACES,
)

__all__ = [
    "EQUAL_PRIORITY_BLOCK_PODS",
    "EQUAL_PRIORITY_BLOCK_SHARE",
    "ERROR",
    "INFO",
    "LONG_GRACE_SECONDS",
    "MANY_NAMESPACES",
    "RULES",
    "RULE_IDS",
    "WARNING",
    "BudgetCoverage",
    "ClassRung",
    "Finding",
    "Ladder",
    "MissingClassUse",
    "UnclassedPods",
    "audit",
    "plan_ladder",
]
