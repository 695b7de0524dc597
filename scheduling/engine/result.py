"""The analysis result and its JSON form (the contract in DESIGN.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .framework import Status
from .preemption.evaluator import Candidate, PreemptionResult


@dataclass
class RejectedNode:
    node: str
    status: Status
    preemption_can_help: bool
    preemption_status: Status | None = None


@dataclass
class Result:
    pod: str
    priority: int
    priority_class: str | None
    preemption_policy: str
    outcome: str
    eligible: bool
    ineligible_reason: str | None
    node: str | None
    feasible_nodes: list[str]
    victims: list[str]
    pdb_violations: int
    candidates: list[Candidate]
    tied_nodes: list[str]
    rejected_nodes: list[RejectedNode]
    message: str
    # Explanation beyond the contract.
    scores: dict[str, dict[str, int]] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    top_scored_nodes: list[str] = field(default_factory=list)
    host_selection: str | None = None
    warnings: list[str] = field(default_factory=list)
    preemption: PreemptionResult | None = None
    num_nodes: int = 0
    pre_filter_msg: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "priority": self.priority,
            "priority_class": self.priority_class,
            "preemption_policy": self.preemption_policy,
            "outcome": self.outcome,
            "eligible": self.eligible,
            "ineligible_reason": self.ineligible_reason,
            "node": self.node,
            "feasible_nodes": list(self.feasible_nodes),
            "victims": list(self.victims),
            "pdb_violations": self.pdb_violations,
            "candidates": [candidate_dict(c) for c in self.candidates],
            "tied_nodes": list(self.tied_nodes),
            "rejected_nodes": [
                {
                    "node": r.node,
                    "reasons": list(r.status.reasons),
                    "preemption_can_help": r.preemption_can_help,
                }
                for r in self.rejected_nodes
            ],
            "message": self.message,
        }

    def details(self) -> dict[str, Any]:
        pre = self.preemption
        return {
            "num_nodes": self.num_nodes,
            "host_selection": self.host_selection,
            "scores": {n: dict(s) for n, s in self.scores.items()},
            "totals": dict(self.totals),
            "top_scored_nodes": list(self.top_scored_nodes),
            "warnings": list(self.warnings),
            "pre_filter_message": self.pre_filter_msg or None,
            "node_statuses": {
                r.node: {
                    "filter": r.status.to_dict(),
                    "preemption": r.preemption_status.to_dict() if r.preemption_status else None,
                }
                for r in self.rejected_nodes
            },
            "preemption": None
            if pre is None
            else {
                "potential_nodes": list(pre.potential_nodes),
                "evaluated_nodes": len(pre.potential_nodes) if pre.eligible else 0,
                # DefaultPreemption's defaults dry-run only this many potential nodes
                # (starting at a random offset); the engine evaluates all of them.
                "real_scheduler_would_sample": pre.would_sample,
                "sampled": pre.would_sample < len(pre.potential_nodes),
                "resources_only_fast_path": pre.fast_path,
            },
        }


def candidate_dict(c: Candidate) -> dict[str, Any]:
    return {
        "node": c.node,
        "victims": [p.key for p in c.victims.pods],
        "violating_victims": [p.key for p in c.victims.violating],
        "pdb_violations": c.victims.num_pdb_violations,
        "highest_victim_priority": c.highest_priority,
        "priority_sum": c.priority_sum,
        "victim_count": len(c.victims.pods),
        "highest_victims_earliest_start": c.earliest_start,
        "eliminated_by": c.eliminated_by,
    }
