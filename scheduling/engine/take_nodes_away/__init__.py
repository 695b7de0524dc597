"""take_nodes_away(): nodes drained (kubectl drain) or lost, and what the controllers
and the scheduler make of their pods (DESIGN.md, "Taking nodes away")."""

from .request import DRAIN, HOWS, LOST, AddNodes, TakeNodesAway
from .result import (
    BLOCKED,
    COMPLETES,
    STOPPED,
    Blocked,
    NodeRecord,
    NodesTakenAway,
    PreemptionRecord,
    ReturningPod,
)
from .run import take_nodes_away

__all__ = [
    "BLOCKED",
    "COMPLETES",
    "DRAIN",
    "HOWS",
    "LOST",
    "STOPPED",
    "AddNodes",
    "Blocked",
    "NodeRecord",
    "NodesTakenAway",
    "PreemptionRecord",
    "ReturningPod",
    "TakeNodesAway",
    "take_nodes_away",
]
