"""The FailedScheduling message read back: whatever fit_error_message_of_counts writes,
read_fit_error gives its counts, and the PostFilter part, back."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from scheduling.engine.framework import Status
from scheduling.engine.message import (
    fit_error_message_of_counts,
    post_filter_message,
    read_fit_error,
)

# The filters' own reason strings (the plugins' ErrReason constants), a taint's too.
REASONS = (
    "Too many pods",
    "Insufficient cpu",
    "Insufficient memory",
    "Insufficient nvidia.com/gpu",
    "node(s) didn't match Pod's node affinity/selector",
    "node(s) had untolerated taint(s)",
    "node(s) had untolerated taint {node.kubernetes.io/unreachable: }",
    "node(s) were unschedulable",
    "node(s) didn't satisfy existing pods anti-affinity rules",
)
PREEMPTION = (
    None,
    "0/4 nodes are available: 4 No preemption victims found for incoming pod.",
    "0/6 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for "
    "incoming pod, 3 Preemption is not helpful for scheduling.",
    "not eligible due to preemptionPolicy=Never.",
)


@given(
    lists=st.dictionaries(
        st.lists(st.sampled_from(REASONS), min_size=1, max_size=3, unique=True).map(tuple),
        st.integers(1, 2000),
        min_size=1,
        max_size=4,
    ),
    preemption=st.sampled_from(PREEMPTION),
    dra=st.booleans(),
)
def test_what_is_written_reads_back(
    lists: dict[tuple[str, ...], int], preemption: str | None, dra: bool
) -> None:
    nodes = sum(lists.values())
    post = post_filter_message(preemption, dynamic_resources=dra)
    message = fit_error_message_of_counts(nodes, lists, nodes, Status(), "", post)
    read = read_fit_error(message)
    assert read is not None
    counts: Counter[str] = Counter()
    for listed, n in lists.items():
        for r in listed:
            counts[r] += n
    assert read.nodes == nodes
    assert dict(read.reasons) == dict(counts)
    assert read.preemption == preemption
    assert read.post_filter == post
    assert message.startswith(read.filters + ".")


def test_a_pre_filter_rejection_is_one_reason_of_every_node() -> None:
    # NodeAffinity's PreFilter when no node is left to try: no histogram, its words alone.
    words = "node(s) didn't match Pod's node affinity/selector"
    message = fit_error_message_of_counts(5, {}, 0, Status(), words)
    assert message == f"0/5 nodes are available: {words}."
    read = read_fit_error(message)
    assert read is not None
    assert read.reasons == ((words, 5),)
    assert read.filters == message.removesuffix(".")
    assert read.preemption is None


def test_another_message_is_not_read() -> None:
    assert read_fit_error("the pod was preempted") is None
    assert read_fit_error("") is None
