"""The FailedScheduling event text: FitError.Error() and the PostFilter suffix."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from .framework import Status

# What the DynamicResources PostFilter says when the pod has no claims; the real
# RunPostFilterPlugins joins every PostFilter plugin's message, this one first.
DRA_POST_FILTER_MSG = "no new claims to deallocate"
# Its other answers, for a pod with claims (plugins/dynamicresources.py).
DRA_POST_FILTER_MSGS = (
    DRA_POST_FILTER_MSG,
    "deallocation of ResourceClaim completed",
    "still not schedulable",
)
# What RunPostFilterPlugins puts before DefaultPreemption's message.
PREEMPTION_PREFIX = "preemption: "


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


def post_filter_message(
    preemption_msg: str | None,
    dynamic_resources: bool = True,
    dynamic_resources_msg: str | None = None,
) -> str:
    """RunPostFilterPlugins' joined messages: DynamicResources' first (what its PostFilter
    said: "no new claims to deallocate" for a pod without claims), then
    DefaultPreemption's prefixed "preemption: " (None: the profile runs no preemption)."""
    parts = [dynamic_resources_msg or DRA_POST_FILTER_MSG] if dynamic_resources else []
    if preemption_msg is not None:
        parts.append(f"{PREEMPTION_PREFIX}{preemption_msg}")
    return ", ".join(parts)


@dataclass(frozen=True)
class FitErrorText:
    """A FailedScheduling message read back: the nodes kube-scheduler counted, each
    reason with the nodes that gave it (the histogram, in its own order) and what the
    PostFilter plugins said ("" when none ran)."""

    nodes: int
    reasons: tuple[tuple[str, int], ...]
    post_filter: str
    # The histogram as written ("4 Too many pods, 2 Insufficient cpu"), or PreFilter's words.
    histogram: str = ""

    @property
    def filters(self) -> str:
        """The message up to the PostFilter part: "0/4 nodes are available: 4 Too many pods"."""
        head = f"0/{self.nodes} nodes are available"
        return f"{head}: {self.histogram}" if self.histogram else head

    @property
    def preemption(self) -> str | None:
        """DefaultPreemption's part ("0/4 nodes are available: 4 No preemption victims
        found for incoming pod."), None when the profile ran no preemption."""
        _, found, said = self.post_filter.partition(PREEMPTION_PREFIX)
        return said if found else None


_FIT_ERROR_HEAD = re.compile(r"0/(\d+) nodes are available:")
# The histogram's parts are "N reason", joined with ", ": a part starts at a count.
_HISTOGRAM_PART = re.compile(r", (?=\d+ )")
_COUNTED = re.compile(r"(\d+) (.+)", re.DOTALL)


def read_fit_error(message: str) -> FitErrorText | None:
    """:func:`fit_error_message_of_counts` read back (None: not such a message). A
    PreFilter rejection, which names no count, comes back as one reason of every node."""
    head = _FIT_ERROR_HEAD.match(message)
    if head is None:
        return None
    nodes = int(head.group(1))
    rest = message[head.end() :]
    # The PostFilter part follows the histogram's closing period and a space.
    cut = min(
        (
            i
            for i in (
                rest.find(f". {marker}") for marker in (*DRA_POST_FILTER_MSGS, PREEMPTION_PREFIX)
            )
            if i >= 0
        ),
        default=-1,
    )
    if cut >= 0:
        histogram, post = rest[: cut + 1], rest[cut + 2 :]
    elif rest.lstrip().startswith((*DRA_POST_FILTER_MSGS, PREEMPTION_PREFIX)):
        histogram, post = "", rest.lstrip()
    else:
        histogram, post = rest, ""
    histogram = histogram.strip().removesuffix(".")
    if not histogram:
        return FitErrorText(nodes, (), post, "")
    parts = [_COUNTED.fullmatch(p) for p in _HISTOGRAM_PART.split(histogram)]
    if all(parts):
        reasons = tuple((m.group(2), int(m.group(1))) for m in parts if m is not None)
        return FitErrorText(nodes, reasons, post, histogram)
    return FitErrorText(nodes, ((histogram, nodes),), post, histogram)
