"""take_nodes_away(): the nodes go, the controllers bring their pods back, and the
scheduler places them, on one clock.

The drain (or the node controllers of lost nodes) is a ClockSource of the workload
what-if's Scheduler (simulate/scheduler.py), run with timeline=True and
recreate_victims=True: every returning pod goes through the real scheduling queue,
preemption included, and the victims of those preemptions that have a controller come
back too (the cascade, bounded by the cycle limit as a workload what-if is). The
drain and the scheduling loop interleave: an eviction refused by a budget waits, and
is retried on kubectl's 5 s cadence once a replacement running makes the budget
allow it again.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cluster import Cluster, api_list_key, load_cluster
from ..config import EngineConfig
from ..hypothetical import with_priority_classes
from ..objects import Pod
from ..profile.profile_map import SchedulerConfigInput, profile_map
from ..simulate.clock import seconds
from ..simulate.result import CycleResult, StopReason
from ..simulate.scheduler import Scheduler, default_cycle_limit
from .disruption import Budgets
from .drain import EVICTION_RETRY_MS, Fate, Refusal, cordoned, fate
from .lost import toleration_seconds, unreachable
from .request import DRAIN, TakeNodesAway
from .result import (
    BARE_POD,
    BLOCKED,
    COMPLETES,
    CYCLE_LIMIT,
    STOPPED,
    TIME_LIMIT,
    Blocked,
    NodeRecord,
    NodesTakenAway,
    PreemptionRecord,
    ReturningPod,
)
from .returning import Returning
from .selection import select_nodes, with_surge_nodes
from .sentence import sentence


@dataclass
class _Waiting:
    """An eviction the API refused (429), retried every 5 s from its first try."""

    pod: Pod
    node: NodeRecord
    first_at: int
    pdb: int | None
    refusal: Refusal


@dataclass
class _Batch:
    nodes: list[NodeRecord]
    gone_by: int = 0  # ms: the last of its evicted pods gone
    finished: bool = False  # every pod evicted: only their deletions to wait for
    waiting: list[_Waiting] = field(default_factory=list)


class NodeTaking:
    """The drain, or the node controllers of lost nodes, as a ClockSource."""

    def __init__(self, scheduler: Scheduler, order: Sequence[str], request: TakeNodesAway) -> None:
        self.scheduler = scheduler
        self.request = request
        self.records = [NodeRecord(n) for n in order]
        self.budgets = Budgets(scheduler.base)
        self.returning = Returning(scheduler)
        self.drain = request.how == DRAIN
        n = request.max_unavailable
        self.batches = [_Batch(self.records[i : i + n]) for i in range(0, len(self.records), n)]
        self.batch = -1  # the batch draining now
        self.next_batch_at: int | None = 0
        self.stopped = False
        # The finished (Succeeded/Failed) pods by node, read on first use (_pods_of).
        self._finished: dict[str, list[Pod]] | None = None
        # Lost nodes: (ms, record, pod) deletions by the taint manager still to come.
        self.lost_due: list[tuple[int, NodeRecord, Pod]] = []
        self.lost_started = False
        self.finished_at: int | None = None
        self.budgets.preload([p for n in order for p in scheduler.state.node_info_by_name[n].pods])

    # ClockSource ---------------------------------------------------------------
    def next_at(self, now: int) -> int | None:
        actions = self.scheduler.sim.actions
        self.returning.observe(actions)
        self.budgets.observe(actions)
        times: list[int] = []
        if not self.drain:
            if not self.lost_started:
                times.append(0)
            elif self.lost_due:
                times.append(self.lost_due[0][0])
        elif self.next_batch_at is not None:
            times.append(self.next_batch_at)
        made = self.returning.next_at()
        if made is not None:
            times.append(made)
        for w in self._waiting():
            # A retry is worth playing only once the budget allows a disruption again
            # (kubectl's tries before that get the same 429); more than one budget: never.
            if w.pdb is not None and self.budgets.allowed(w.pdb) > 0:
                times.append(self._retry_tick(w, now))
        return min(times) if times else None

    def fire(self, now: int) -> None:
        self.budgets.observe(self.scheduler.sim.actions)
        if not self.drain:
            if not self.lost_started:
                self._lose_nodes(now)
            while self.lost_due and self.lost_due[0][0] <= now:
                _, record, pod = self.lost_due.pop(0)
                self._lose_pod(record, pod, now)
        self.returning.make_due(now)
        for w in list(self._waiting()):
            if w.pdb is not None and self._retry_tick(w, now) <= now:
                self._try(w, now)
        if self.drain and self.next_batch_at is not None and self.next_batch_at <= now:
            self._next_batch(now)
        self._batch_done(now)

    # The drain -------------------------------------------------------------------
    def _waiting(self) -> list[_Waiting]:
        if 0 <= self.batch < len(self.batches):
            return self.batches[self.batch].waiting
        return []

    @staticmethod
    def _retry_tick(w: _Waiting, now: int) -> int:
        """kubectl's next try after ``now``: every 5 s from the first."""
        if now <= w.first_at:
            return w.first_at + EVICTION_RETRY_MS
        k = -(-(now - w.first_at) // EVICTION_RETRY_MS)
        return w.first_at + max(k, 1) * EVICTION_RETRY_MS

    def _next_batch(self, now: int) -> None:
        self.next_batch_at = None
        if self.batch >= 0:
            for r in self.batches[self.batch].nodes:
                r.done_at = seconds(now)
        self.batch += 1
        if self.batch >= len(self.batches):
            self.finished_at = now
            return
        batch = self.batches[self.batch]
        batch.gone_by = now
        state = self.scheduler.state
        for record in batch.nodes:
            # kubectl cordons the node, then lists its pods and filters them.
            state.update_node(cordoned(state.node_info_by_name[record.node].node))
            record.started_at = seconds(now)
            pods = self._pods_of(record.node)
            bare = [p for p in pods if fate(p) is Fate.BARE]
            if bare and not self.request.force:
                record.stopped_at = bare[0].key
                self.stopped = True
                break
            for pod in pods:
                f = fate(pod)
                if f is Fate.LEFT:
                    record.left.append(pod.key)
                elif f is Fate.DELETE:
                    record.deleted.append(pod.key)
                else:
                    self._try(_Waiting(pod, record, now, None, Refusal((), "", False)), now)
        if self.stopped:
            # The nodes of the batch after the refused one are never begun.
            stop = next(i for i, r in enumerate(batch.nodes) if r.stopped_at)
            del batch.nodes[stop + 1 :]

    def _pods_of(self, node: str) -> list[Pod]:
        """The node's pods as kubectl lists them (by namespace and name), finished ones
        too (the scheduler's cache never holds those)."""
        ni = self.scheduler.state.node_info_by_name[node]
        pods = [p for p in ni.pods if not p.terminating]
        if self._finished is None:
            # Read once for every node taken: a zone of 1,000 nodes would otherwise scan
            # the cluster's pods 1,000 times.
            self._finished = {}
            for p in self.scheduler.base.pods:
                if p.node_name and p.phase in ("Succeeded", "Failed"):
                    self._finished.setdefault(p.node_name, []).append(p)
        pods += self._finished.get(node, [])
        return sorted(pods, key=api_list_key)

    def _try(self, w: _Waiting, now: int) -> None:
        batch = self.batches[self.batch]
        current = self.scheduler._running(w.pod)
        if current is None or current.terminating:  # preempted meanwhile: already going
            if w in batch.waiting:
                batch.waiting.remove(w)
            return
        refusal, _ = self.budgets.check(current)
        if refusal is not None:
            if w not in batch.waiting:
                pdb = None
                if not refusal.final:
                    pdb = self.budgets.selecting(current)[0]
                batch.waiting.append(_Waiting(current, w.node, w.first_at, pdb, refusal))
            return
        if w in batch.waiting:
            batch.waiting.remove(w)
        terminating = self.scheduler.issue_deletion(current, None, now)
        self.scheduler.await_gone(terminating, now)
        gone_at = now + current.grace_seconds * 1000
        batch.gone_by = max(batch.gone_by, gone_at)
        if current.owner:
            w.node.evicted.append(current.key)
        else:
            w.node.deleted.append(current.key)
        self.returning.taken(current, now, gone_at)
        self.budgets.observe(self.scheduler.sim.actions)

    def _batch_done(self, now: int) -> None:
        if not self.drain or self.batch < 0 or self.batch >= len(self.batches):
            return
        batch = self.batches[self.batch]
        if batch.waiting or self.next_batch_at is not None:
            return
        if self.stopped:
            return
        # kubectl waits for the deletions; the next batch begins once they are gone
        # (and the nodes count as done only when the clock gets there).
        if not batch.finished:
            batch.finished = True
            self.next_batch_at = max(batch.gone_by, now)

    # Lost nodes ------------------------------------------------------------------
    def _lose_nodes(self, now: int) -> None:
        self.lost_started = True
        state = self.scheduler.state
        due: list[tuple[int, int, NodeRecord, Pod]] = []
        for record in self.records:
            state.update_node(unreachable(state.node_info_by_name[record.node].node))
            record.started_at = seconds(now)
            for pod in self._pods_of(record.node):
                if pod.phase in ("Succeeded", "Failed"):
                    continue
                after = toleration_seconds(pod)
                if after is None:
                    record.left.append(pod.key)
                else:
                    due.append((now + after * 1000, len(due), record, pod))
        due.sort(key=lambda d: (d[0], d[1]))
        self.lost_due = [(at, record, pod) for at, _, record, pod in due]
        if not self.lost_due:
            self._lost_done(now)

    def _lose_pod(self, record: NodeRecord, pod: Pod, now: int) -> None:
        """The taint manager deletes it; its Node deleted, PodGC force-deletes it (lost.py)."""
        current = self.scheduler._running(pod)
        if current is not None and not current.terminating:
            terminating = self.scheduler.issue_deletion(current, None, now)
            t = self.scheduler.sim.terminations[-1]
            self.scheduler.sim.terminations[-1] = dataclasses.replace(
                t, gone_at=seconds(now), grace_seconds=0
            )
            self.scheduler.gone(terminating)
            record.deleted.append(current.key)
            self.returning.taken(current, now, now)
        elif current is not None:
            self.scheduler.gone(current)
            record.deleted.append(current.key)
            self.returning.taken(current, now, now)
        if not self.lost_due:
            self._lost_done(now)

    def _lost_done(self, now: int) -> None:
        for r in self.records:
            r.done_at = seconds(now)
        self.finished_at = now

    # The end -----------------------------------------------------------------------
    def close(self) -> None:
        """Evictions still refused when nothing more can happen: blocked."""
        for w in self._waiting():
            w.node.blocked.append(
                Blocked(
                    w.pod.key, ", ".join(w.refusal.pdbs), w.refusal.message, seconds(w.first_at)
                )
            )


def _reasons(scheduler: Scheduler) -> dict[str, str]:
    """Each pod's last FailedScheduling message."""
    out: dict[str, str] = {}
    for c in scheduler.sim.cycles:
        if c.result is CycleResult.BOUND:
            out.pop(c.pod, None)
        elif c.message:
            out[c.pod] = c.message
    return out


def take_nodes_away(
    cluster: Cluster | list[dict[str, Any]] | dict[str, Any],
    request: TakeNodesAway,
    *,
    config: EngineConfig | None = None,
    scheduler_config: SchedulerConfigInput | None = None,
    scheduler_source: str | None = None,
    scheduler_preset: str | None = None,
    priority_classes: Sequence[Mapping[str, Any]] = (),
    cycle_limit: int | None = None,
    on_cycle: Callable[[int], None] | None = None,
    deadline: float | None = None,
) -> NodesTakenAway:
    """Take the request's nodes away (drain or lost) and play what follows until nothing
    more can happen. Never mutates the cluster. InvalidInput for nodes the cluster does
    not hold. ``deadline`` (a time.monotonic() value): the run ends there as at the
    cycle limit, and the answer says what it reached (stop_reason "time-limit"); give
    it a little before the worker's own time budget."""
    profiles = profile_map(
        scheduler_config, config, source=scheduler_source, preset=scheduler_preset
    )
    base = with_priority_classes(
        cluster if isinstance(cluster, Cluster) else load_cluster(cluster), priority_classes
    )
    order = select_nodes(base, request)
    added: list[str] = []
    if request.add_nodes is not None:
        base, added = with_surge_nodes(base, request.add_nodes.like, request.add_nodes.count)
    taken_pods = sum(len(base.node_info_by_name[n].pods) for n in order)
    limit = cycle_limit or default_cycle_limit(taken_pods)
    scheduler = Scheduler(
        base,
        profiles.first if profiles is not None else config or EngineConfig(),
        recreate_victims=True,
        cycle_limit=limit,
        on_cycle=on_cycle,
        timeline=True,
        profiles=profiles,
    )
    if deadline is not None:
        outer = on_cycle

        def watch(cycle: int) -> None:
            if time.monotonic() >= deadline:
                scheduler.stop_requested = True
            if outer is not None:
                outer(cycle)

        scheduler.on_cycle = watch
    taking = NodeTaking(scheduler, order, request)
    scheduler.sources.append(taking)
    sim = scheduler.run()
    hit_limit = sim.stop_reason is StopReason.CYCLE_LIMIT
    if not hit_limit:
        taking.close()

    reasons = _reasons(scheduler)
    outcomes = {p.pod: p for p in sim.pods}
    returning: list[ReturningPod] = []
    for r in taking.returning.returns:
        o = outcomes.get(r.pod) if r.created_at is not None else None
        node = o.node if o is not None and o.bound else None
        reason = None
        if node is None:
            reason = reasons.get(r.pod) or (
                "not made yet: its StatefulSet makes pods in ordinal order (OrderedReady)"
                if r.created_at is None
                else "not scheduled yet"
            )
        returning.append(
            ReturningPod(
                r.pod,
                r.replaces,
                r.owner,
                node,
                reason,
                None if r.created_at is None else seconds(r.created_at),
                o.bound_at if o is not None and node is not None else None,
            )
        )
    preemptions = [
        PreemptionRecord(
            c.pod,
            c.nominated_node or "",
            list(c.victims),
            list(c.tied_nodes),
            c.cycle,
            c.at,
            c.pdb_violations,
        )
        for c in sim.cycles
        if c.result is CycleResult.PREEMPTED and c.victims
    ]
    returned = {x.pod for x in returning}
    pending = sorted(
        {r.pod for r in returning if r.node is None}
        | {p.pod for p in sim.pods if not p.bound and p.pod not in returned}
    )
    blocked = any(r.blocked for r in taking.records)
    if taking.stopped:
        verdict, stop_reason = STOPPED, BARE_POD
    elif hit_limit:
        verdict = STOPPED
        stop_reason = TIME_LIMIT if scheduler.stop_requested else CYCLE_LIMIT
    elif blocked:
        verdict, stop_reason = BLOCKED, None
    else:
        verdict, stop_reason = COMPLETES, None
    completed_at = (
        seconds(taking.finished_at)
        if taking.finished_at is not None and verdict == COMPLETES
        else None
    )
    result = NodesTakenAway(
        request=request,
        verdict=verdict,
        sentence="",
        nodes=taking.records,
        returning=returning,
        preemptions=preemptions,
        pdbs_exceeded=sorted(r.pdb for r in sim.pdb_report if r.exceeded),
        pending=pending,
        completed_at=completed_at,
        duration=sim.timeline.duration if sim.timeline is not None else 0.0,
        stop_reason=stop_reason,
        cycles=scheduler.cycle,
        cycle_limit=limit,
        added_nodes=added,
        simulation=sim,
    )
    result.sentence = sentence(result)
    return result
