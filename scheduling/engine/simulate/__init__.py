"""simulate(): kube-scheduler's scheduling queue and loop over many pending pods."""

from .result import (
    ChoicePoint,
    Cycle,
    CycleResult,
    EventType,
    Flush,
    NominatedBy,
    Nomination,
    OwnerReplicas,
    PDBReport,
    PodOutcome,
    Recreated,
    RunEvent,
    StopReason,
    Termination,
    Timeline,
)
from .scheduler import default_cycle_limit, simulate
from .simulation import Simulation

__all__ = [
    "ChoicePoint",
    "Cycle",
    "CycleResult",
    "EventType",
    "Flush",
    "NominatedBy",
    "Nomination",
    "OwnerReplicas",
    "PDBReport",
    "PodOutcome",
    "Recreated",
    "RunEvent",
    "Simulation",
    "StopReason",
    "Termination",
    "Timeline",
    "default_cycle_limit",
    "simulate",
]
