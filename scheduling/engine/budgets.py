"""PodDisruptionBudgets a what-if carries (a chart's PDB beside its Deployment): they join
the snapshot for that run only, a budget of the same namespace and name replaced.

A budget created now has no status yet; the disruption controller computes it at once
(pkg/controller/disruption, getExpectedPodCount / updatePdbStatus): its pods are those
of its namespace its selector matches, running in the snapshot; every one of them is
healthy (a bound pod runs, as everywhere in the engine), so

    desiredHealthy = minAvailable (an integer, or the percentage of the expected count
                     rounded up), or expected - maxUnavailable (the same rounding)
    disruptionsAllowed = max(0, currentHealthy - desiredHealthy)

The expected count is the matched pods' count (the controller reads their owners'
scale; a workload's running replicas are that scale in a steady snapshot).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cluster import Cluster
from .errors import InvalidInput
from .objects import PDB
from .workload import skipped_note


@dataclass(frozen=True)
class BudgetRecord:
    """A budget the what-if carried, as the result reports it."""

    pdb: str
    disruptions_allowed: int
    matching_pods: int
    replaces: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "pdb": self.pdb,
            "disruptions_allowed": self.disruptions_allowed,
            "matching_pods": self.matching_pods,
            "replaces": self.replaces,
        }


def _scaled(value: Any, expected: int, field: str) -> int:
    """intstr.GetScaledValueFromIntOrPercent(value, expected, roundUp=true)."""
    if isinstance(value, bool):
        raise InvalidInput("must be an integer or a percentage", field=field)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        return math.ceil(int(value[:-1]) * expected / 100)
    raise InvalidInput(f"Invalid value: {value!r}: an integer or a percentage", field=field)


def desired_healthy(pdb: PDB, expected: int) -> int:
    """getExpectedPodCount's desiredHealthy when the budget's workload has ``expected``
    pods (its scale)."""
    if pdb.min_available is not None and pdb.max_unavailable is not None:
        raise InvalidInput(
            "Invalid value: minAvailable and maxUnavailable cannot be both set", field="spec"
        )
    if pdb.max_unavailable is not None:
        desired = expected - _scaled(pdb.max_unavailable, expected, "spec.maxUnavailable")
    elif pdb.min_available is not None:
        desired = _scaled(pdb.min_available, expected, "spec.minAvailable")
    else:
        desired = expected  # neither set: nothing may be disrupted
    return max(desired, 0)


def disruptions_allowed(pdb: PDB, healthy: int) -> int:
    """updatePdbStatus's disruptionsAllowed for ``healthy`` matched, running pods (the
    workload's whole scale: a steady snapshot)."""
    return max(0, healthy - desired_healthy(pdb, healthy))


def with_budgets(
    cluster: Cluster, manifests: Sequence[Mapping[str, Any]]
) -> tuple[Cluster, list[BudgetRecord]]:
    """A view of ``cluster`` with the what-if's budgets (``cluster`` is left as it is),
    and their records. InvalidInput, located at the budget, for what cannot be read."""
    if not manifests:
        return cluster, []
    by_namespace = cluster.bound_pods_by_namespace()
    existing = {(p.namespace, p.name) for p in cluster.pdbs}
    parsed: list[PDB] = []
    records: list[BudgetRecord] = []
    for index, raw in enumerate(manifests):
        meta = raw.get("metadata") if isinstance(raw.get("metadata"), Mapping) else {}
        assert isinstance(meta, Mapping)
        try:
            pdb = PDB.from_dict({**raw, "status": {}})
            matched = sum(1 for _, pod in by_namespace.get(pdb.namespace, ()) if pdb.matches(pod))
            allowed = disruptions_allowed(pdb, matched)
        except InvalidInput as e:
            raise e.located(
                index=None if meta.get("name") else index,
                kind="PodDisruptionBudget",
                namespace=str(meta.get("namespace") or "default"),
                name=meta.get("name") if isinstance(meta.get("name"), str) else None,
            ) from None
        pdb.disruptions_allowed = allowed
        parsed.append(pdb)
        records.append(
            BudgetRecord(
                pdb=f"{pdb.namespace}/{pdb.name}",
                disruptions_allowed=allowed,
                matching_pods=matched,
                replaces=(pdb.namespace, pdb.name) in existing,
            )
        )
    return cluster.with_pdbs_replacing(parsed), records


def manifest_record(
    records: Sequence[BudgetRecord], skipped: Mapping[str, int]
) -> dict[str, Any] | None:
    """The result's ``manifest`` (added to the contract): the budgets the what-if carried,
    the kinds it skipped and the note saying so; None when it carried neither."""
    if not records and not skipped:
        return None
    return {
        "budgets": [r.to_dict() for r in records],
        "skipped": [{"kind": k, "count": n} for k, n in skipped.items()],
        "note": skipped_note(skipped),
    }
