"""A finding of the audit and the rule that makes it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .context import AuditContext

ERROR = "error"
WARNING = "warning"
INFO = "info"

# The sources a finding's ``why`` cites, by the names readers know them under.
PLANNING_GUIDE = "the PriorityClass planning guide (Kubernetes blog)"
CONCEPT_PAGE = (
    "Pod Priority and Preemption, "
    "kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/"
)
PREEMPTION_DESIGN = (
    "the preemption design, community/contributors/design-proposals/scheduling/pod-preemption.md"
)
PRIORITY_API_DESIGN = "the priority API design, pod-priority-api.md"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the audit found: which rule, how serious, the objects it is about
    ("Kind namespace/name", or "Kind name" when cluster-scoped), why it matters and a
    YAML snippet that fixes it.

    ``operator_owned``: when the object the fix would edit is one the platform's
    operators own (plan/owned.py), the sentence saying so and what to do instead; the
    finding is then a note (INFO) without a fix, since the operator reverts the edit."""

    rule: str
    severity: str
    message: str
    objects: tuple[str, ...]
    why: str
    fix: str
    operator_owned: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "objects": list(self.objects),
            "why": self.why,
            "fix": self.fix,
            "operator_owned": self.operator_owned,
        }

    def owned(self, sentence: str) -> Finding:
        """This finding about an operator's object: a note, its fix left out."""
        return replace(self, severity=INFO, fix="", operator_owned=sentence)


@dataclass(frozen=True, slots=True)
class Draft:
    """What a rule's check says of one case; the rule adds its id, severity and why."""

    message: str
    objects: tuple[str, ...]
    fix: str


Check = Callable[["AuditContext"], Iterable[Draft]]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    severity: str
    why: str
    check: Check

    def __post_init__(self) -> None:
        # A why may open with a source's name, written lower-case for use mid-sentence.
        object.__setattr__(self, "why", self.why[:1].upper() + self.why[1:])

    def finding(self, draft: Draft) -> Finding:
        return Finding(self.id, self.severity, draft.message, draft.objects, self.why, draft.fix)
