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
    msg = f"0/{num_all_nodes} nodes are available:"
    if pre_filter_msg:
        msg += f" {pre_filter_msg}."
    else:
        reasons: Counter[str] = Counter()
        # Thousands of nodes share a handful of reason lists: count the lists, then
        # their reasons (one pass in C instead of a Counter.update per node).
        for listed, n in Counter(tuple(st.reasons) for st in node_to_status.values()).items():
            for r in listed:
                reasons[r] += n
        if len(node_to_status) < num_all_nodes:
            for r in absent_status.reasons:
                reasons[r] += num_all_nodes - len(node_to_status)
        # The histogram is sorted as strings ("10 ..." before "9 ..."), as Go's sort.Strings does.
        parts = sorted(f"{n} {r}" for r, n in reasons.items())
        if parts:
            msg += f" {', '.join(parts)}."
    if post_filter_msg:
        msg += f" {post_filter_msg}"
    return msg


def post_filter_message(preemption_msg: str) -> str:
    """DefaultPreemption prefixes "preemption: "; DynamicResources' message comes first."""
    return f"{DRA_POST_FILTER_MSG}, preemption: {preemption_msg}"
