"""backoffQ as kube-scheduler v1.35 orders and drains it (backend/queue/backoff_queue.go).

The first two tests are Kubernetes' own TestBackoffQueueOrdering and
TestBackoffQueue_popAllBackoffCompleted (backoff_queue_test.go), with the
SchedulerPopFromBackoffQ gate on as v1.35 has it by default: the same pods, clock and
expected orders, in milliseconds.
"""

from __future__ import annotations

import pytest

from scheduling.engine import EngineConfig, load_cluster, simulate
from scheduling.engine.framework import Handle
from scheduling.engine.plugins.podtopologyspread import PodTopologySpread
from scheduling.engine.simulate.hints import QueueingHints
from scheduling.engine.simulate.queue import QueuedPodInfo, SchedulingQueue, Where

from .builders import as_list, make_node, make_pod

SECOND = 1_000
REJECTED = frozenset({"plugin"})


def _queue(now: int) -> SchedulingQueue:
    cluster = load_cluster([])
    queue = SchedulingQueue(QueueingHints(PodTopologySpread(Handle(cluster, EngineConfig()))))
    queue.jump_to(now)
    return queue


def _info(
    seq: int, name: str, priority: int, timestamp: int, rejectors: frozenset[str] = REJECTED
) -> QueuedPodInfo:
    """A pod tried once, queued at ``timestamp``; no rejectors: it failed with an error."""
    pod = load_cluster([make_pod(name).priority(priority).obj()]).pods[0]
    return QueuedPodInfo(pod, seq=seq, timestamp=timestamp, attempts=1, rejectors=rejectors)


def _names(infos: list[QueuedPodInfo]) -> list[str]:
    return [p.pod.name for p in infos]


def test_pods_of_one_window_leave_by_priority() -> None:
    # TestBackoffQueueOrdering: the clock sits on a window's start. pod0's backoff ends
    # in the next window and pod1's exactly at this one's start: both still back off.
    # pod2..pod4 end in the previous window, pod5 in the one before it.
    now = 100 * SECOND
    queue = _queue(now)
    pods = [
        _info(0, "pod0", 1, now),
        _info(1, "pod1", 1, now - SECOND),
        _info(2, "pod2", 2, now - 2 * SECOND + 1),
        _info(3, "pod3", 1, now - 2 * SECOND),
        _info(4, "pod4", 2, now - 2 * SECOND),
        _info(5, "pod5", 1, now - 3 * SECOND),
    ]
    for p in pods:
        queue.add_backoff(p)
    assert _names(queue.pop_all_backoff_completed()) == ["pod5", "pod4", "pod2", "pod3"]
    assert sorted(_names(queue.backoff)) == ["pod0", "pod1"]
    assert sorted(_names(queue.active)) == ["pod2", "pod3", "pod4", "pod5"]


@pytest.mark.parametrize(
    ("in_backoff", "moved"),
    [
        ([], []),
        (["pod0", "pod1"], ["pod0"]),
        (["pod2", "pod3"], ["pod2"]),
        (["pod0", "pod1", "pod2", "pod3"], ["pod0", "pod2"]),
        (["pod0", "pod2"], ["pod0", "pod2"]),
        (["pod1", "pod3"], []),
    ],
    ids=[
        "both queues empty",
        "only podBackoffQ, some move",
        "only podErrorBackoffQ, some move",
        "both queues, some move",
        "both queues, all move",
        "both queues, none moves",
    ],
)
def test_both_heaps_drain_what_completed_backoff(in_backoff: list[str], moved: list[str]) -> None:
    # TestBackoffQueue_popAllBackoffCompleted: pod0 and pod1 were rejected by a plugin
    # (podBackoffQ), pod2 and pod3 failed with an error (podErrorBackoffQ); pod0 and pod2
    # were queued 2 s ago, pod1 and pod3 are queued 1 s from now. The clock is not aligned.
    now = 100 * SECOND + 437
    queue = _queue(now)
    pods = {
        "pod0": _info(0, "pod0", 0, now - 2 * SECOND),
        "pod1": _info(1, "pod1", 0, now + SECOND),
        "pod2": _info(2, "pod2", 0, now - 2 * SECOND, frozenset()),
        "pod3": _info(3, "pod3", 0, now + SECOND, frozenset()),
    }
    for name in in_backoff:
        queue.add_backoff(pods[name])
    assert _names(queue.pop_all_backoff_completed()) == moved
    assert len(queue.backoff) == len(in_backoff) - len(moved)


def test_a_backoff_ending_within_the_current_window_still_holds_the_pod() -> None:
    # isPodBackingoff: the expiry 35.000 s (35.0 s aligned) is not before the window of
    # 35.999 s, so the pod waits for the flush at 36 s.
    queue = _queue(35 * SECOND + 999)
    p = _info(0, "web-0", 0, 34 * SECOND)
    queue.add_backoff(p)
    assert queue.pop_all_backoff_completed() == []
    queue.jump_to(36 * SECOND)
    assert _names(queue.pop_all_backoff_completed()) == ["web-0"]


def test_an_empty_active_queue_pops_the_higher_priority_of_one_backoff_window() -> None:
    # A timed rollout: a medium pod tried once (backoff 1 s) and a high one tried twice
    # (2 s) both end their backoff in the window of 35 s. With activeQ empty at 35.013 s
    # neither has completed its backoff, and Pop takes podBackoffQ's head: the high one,
    # though it was tried more often.
    queue = _queue(35 * SECOND + 13)
    medium = _info(0, "medium", 1_000, 34 * SECOND + 13)
    high = _info(1, "high", 10_000, 33 * SECOND + 500)
    high.attempts = 2
    queue.add_backoff(medium)
    queue.add_backoff(high)
    assert medium.backoff_expiry() == high.backoff_expiry() == 35 * SECOND
    popped = queue.pop()
    assert popped is high
    assert popped.attempts == 3 and popped.where is Where.IN_FLIGHT
    assert _names(queue.backoff) == ["medium"]


def test_an_earlier_window_leaves_before_a_higher_priority() -> None:
    # Priority orders only within a window: a low pod whose backoff ended a second
    # earlier goes first.
    queue = _queue(10 * SECOND)
    low = _info(0, "low", 0, 8 * SECOND)
    high = _info(1, "high", 1_000, 9 * SECOND)
    queue.add_backoff(high)
    queue.add_backoff(low)
    assert _names([p for p in (queue.pop(), queue.pop()) if p is not None]) == ["low", "high"]


def test_a_pod_that_failed_with_an_error_is_not_popped_before_its_backoff() -> None:
    # podErrorBackoffQ is never popped while it backs off: with nothing else queued,
    # the clock waits for the flush of the second after its window.
    queue = _queue(5 * SECOND + 200)
    errored = _info(0, "errored", 0, 5 * SECOND + 200, frozenset())
    queue.add_unschedulable(errored, frozenset())
    assert errored.where is Where.BACKOFF and queue.unschedulable == []
    popped = queue.pop()
    assert popped is errored
    assert queue.now == 7 * SECOND


def test_a_pod_rejected_by_a_plugin_still_waits_in_unschedulable_pods() -> None:
    queue = _queue(5 * SECOND)
    rejected = _info(0, "rejected", 0, 0)
    queue.add_unschedulable(rejected, REJECTED)
    assert rejected.where is Where.UNSCHEDULABLE
    assert queue.pop() is None


def test_a_timed_rollout_binds_the_higher_priority_of_one_backoff_window() -> None:
    # medium fails at 331.502 s (backoff ends 332.502 s), high at 331.902 s (332.902 s):
    # both ends fall in the window of 332 s. The job's deletion at 332.6 s queues both,
    # and both still back off then (the window is the current one): activeQ is empty,
    # Pop takes podBackoffQ's head, and within the window priority decides: high binds,
    # where going by each pod's own expiry would have let medium in first for high to
    # preempt it again.
    snapshot = as_list(
        make_node("n1").capacity(cpu="1", memory="4Gi", pods="10").obj(),
        make_pod("job").priority(5000).req(cpu="1").node("n1").grace(0).deleted_at(332.6).obj(),
    )
    pending = [
        make_pod("high").priority(1000).req(cpu="1").arrives(331.9).obj(),
        make_pod("medium").priority(100).req(cpu="1").arrives(331.5).obj(),
    ]
    d = simulate(snapshot, pending, timeline=True).to_dict()
    after_deletion = [c for c in d["cycles"] if c["at"] > 332.6]
    assert after_deletion[0]["pod"] == "default/high"
    assert after_deletion[0]["result"] == "bound"
    assert after_deletion[0]["at"] == pytest.approx(332.601)
    assert after_deletion[1]["pod"] == "default/medium"
    assert after_deletion[1]["result"] == "unschedulable"
    assert [t["pod"] for t in d["terminations"]] == ["default/job"]  # nothing preempted


def test_a_pod_no_plugin_rejected_is_retried_after_each_backoff() -> None:
    # With no node at all no plugin rejects the pod: it failed with an error, and the real
    # queue retries it from podErrorBackoffQ at the flush after each backoff (1, 2, 4, 8,
    # then 10 s), never parking it in unschedulablePods for the 5-minute flush.
    d = simulate(as_list(), [make_pod("web").req(cpu="1").obj()], timeline=True, cycle_limit=7)
    got = d.to_dict()
    assert [c["at"] for c in got["cycles"]] == pytest.approx(
        [0.002, 2.001, 5.001, 10.001, 19.001, 30.001, 41.001]
    )
    assert got["flushes"] == []
    assert got["stop_reason"] == "cycle-limit"
