"""The kinds of advice, in the order ``advise`` searches them: each a module whose
``search(asked, base, budget)`` proposes its changes and proves them."""

from __future__ import annotations

from collections.abc import Callable

from ..question import Asked, Run
from ..result import AdviceKind
from ..search import KindBudget
from . import add_nodes, devices, fewer_replicas, protect, relax, smaller_request, wait_instead
from .common import KindAdvice

KindSearchFn = Callable[[Asked, Run, KindBudget], KindAdvice]

KINDS: list[tuple[AdviceKind, KindSearchFn]] = [
    (AdviceKind.SMALLER_REQUEST, smaller_request.search),
    (AdviceKind.FEWER_DEVICES, devices.search_fewer),
    (AdviceKind.FIRST_AVAILABLE, devices.search_first_available),
    (AdviceKind.ADD_NODES, add_nodes.search),
    (AdviceKind.FEWER_REPLICAS, fewer_replicas.search),
    (AdviceKind.WAIT_INSTEAD, wait_instead.search),
    (AdviceKind.RELAX, relax.search),
    # Last: one run per app and one for its step less, the first the advice's time cuts.
    (AdviceKind.PROTECT, protect.search),
]

__all__ = ["KINDS", "KindAdvice", "KindSearchFn"]
