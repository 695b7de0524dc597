"""The FailedScheduling event text: FitError.Error() and the PostFilter suffix."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from .framework import Status

# What the DynamicResources PostFilter says when the pod has no claims; the real
# RunPostFilterPlugins joins every PostFilter plugin's message, this one first.
DRA_POST_FILTER_MSG = "no new claims to deallocate"


def fit_error_message(
    num_all_nodes: int,
    node_to_status: Mapping[str, Status],
    absent_status: Status,
    pre_filter_msg: str = "",
    post_filter_msg: str = "",
) -> str:
    # Thousands of nodes share a handful of reason lists: count the lists, then their
    # reasons (one pass in C instead of a Counter.update per node).
    reason_lists = Counter(tuple(st.reasons) for st in node_to_status.values())
    return fit_error_message_of_counts(
        num_all_nodes,
        reason_lists,
        len(node_to_status),
        absent_status,
        pre_filter_msg,
        post_filter_msg,
    )


def fit_error_message_of_counts(
    num_all_nodes: int,
    reason_lists: Mapping[tuple[str, ...], int],
    num_statuses: int,
    absent_status: Status,
    pre_filter_msg: str = "",
    post_filter_msg: str = "",
) -> str:
    """FitError.Error() from how many of the ``num_statuses`` nodes with a status gave
    each list of reasons: a caller that keeps those counts up to date (a simulation's
    replicas) need not walk every node's status for each message."""
    msg = f"0/{num_all_nodes} nodes are available:"
    if pre_filter_msg:
        msg += f" {pre_filter_msg}."
    else:
        reasons: Counter[str] = Counter()
        for listed, n in reason_lists.items():
            for r in listed:
                reasons[r] += n
        if num_statuses < num_all_nodes:
            for r in absent_status.reasons:
                reasons[r] += num_all_nodes - num_statuses
        # The histogram is sorted as strings ("10 ..." before "9 ..."), as Go's sort.Strings does.
        parts = sorted(f"{n} {r}" for r, n in reasons.items())
        if parts:
            msg += f" {', '.join(parts)}."
    if post_filter_msg:
        msg += f" {post_filter_msg}"
    return msg


def post_filter_message(preemption_msg: str | None, dynamic_resources: bool = True) -> str:
    """RunPostFilterPlugins' joined messages: DynamicResources' first, then
    DefaultPreemption's prefixed "preemption: " (None: the profile runs no preemption)."""
    parts = [DRA_POST_FILTER_MSG] if dynamic_resources else []
    if preemption_msg is not None:
        parts.append(f"preemption: {preemption_msg}")
    return ", ".join(parts)
