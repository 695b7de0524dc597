"""The kinds of advice, in the order ``advise`` searches them: each a module whose
``search(asked, base, budget)`` proposes its changes and proves them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..question import Asked, Run
from ..result import AdviceItem, AdviceKind, KindSearch, Note
from ..search import KindBudget


@dataclass
class KindAdvice:
    """What one kind's search found: its items, its notes, and what it cost."""

    items: list[AdviceItem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    search: KindSearch | None = None


KindSearchFn = Callable[[Asked, Run, KindBudget], KindAdvice]

# Filled as the kinds' modules land; advise() searches them in this order.
KINDS: list[tuple[AdviceKind, KindSearchFn]] = []
