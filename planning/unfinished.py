"""One user's unfinished work, every kind counted: analyses and first-in-line rankings
share PREEMPTLAB_UNFINISHED_PER_USER, so a user who asks for many rankings waits as one
who submits many what-ifs does, and another user's request never queues behind more.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from scheduling.budgets import UNFINISHED, TooManyUnfinished


class TooMuchUnfinished(TooManyUnfinished):
    """The user has as much work queued or running as one user may (429)."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.message = (
            f"You have {limit} analyses and first-in-line rankings queued or running, as "
            "many as one user may have at once (PREEMPTLAB_UNFINISHED_PER_USER): ask again "
            "when one of them ends."
        )
        self.args = (self.message,)


def unfinished_count(*, owner: Any) -> int:
    """The owner's analyses and rankings that are queued or running."""
    from planning.models import FirstInLineRanking
    from scheduling.models import Analysis

    mine = {"snapshot__owner": owner, "status__in": UNFINISHED}
    return (
        Analysis.objects.filter(**mine).count() + FirstInLineRanking.objects.filter(**mine).count()
    )


def check_unfinished_work(*, owner: Any) -> None:
    """TooMuchUnfinished when ``owner`` has the most unfinished work one user may have.
    (Like scheduling.budgets.check_unfinished, a fairness bound, not an exact count.)"""
    limit = int(settings.PREEMPTLAB_UNFINISHED_PER_USER)
    if unfinished_count(owner=owner) >= limit:
        raise TooMuchUnfinished(limit)
