"""scheduleOne over and over: the loop of schedule_one.go on a ClusterState.

Each cycle pops one pod, runs the engine's own schedulePod (PreFilter, Filter with
nominated pods, Score, selectHost) and, on failure, DefaultPreemption's PostFilter.
What the API server and the informers then do is applied at once, in this order:

- bound: spec.nodeName set, status.nominatedNodeName cleared, the pod running with
  status.startTime = the queue clock; an AssignedPod/Add event for the queue;
- failed: the pod back in the queue (AddUnschedulableIfNotPresent), its nomination set
  or cleared as PostFilter said; on a preemption (asynchronous in the real scheduler,
  finished here before the next cycle) the lower-priority pods nominated to that node
  lose their nomination, then the victims are deleted one by one, each an
  AssignedPod/Delete event; the preemptor itself is held by DefaultPreemption's
  PreEnqueue until its last victim goes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..analysis import parse_pending_pod
from ..cluster import Cluster, load_cluster
from ..config import EngineConfig
from ..errors import InvalidInput
from ..framework import CycleState, Handle
from ..message import fit_error_message, post_filter_message
from ..objects import NO_START_TIME, PREEMPT_LOWER_PRIORITY, Pod
from ..plugins import names
from ..plugins.podtopologyspread import PodTopologySpread
from ..preemption.evaluator import PreemptionResult, preempt
from ..runtime import Framework
from ..schedule import HOST_NOMINATED, HOST_SCORED, Diagnosis, ScheduleResult, schedule_pod
from .controllers import CREATED_AFTER, ControllerManager
from .hints import Event, QueueingHints
from .queue import QueuedPodInfo, SchedulingQueue
from .replicas import ReplicaCache, cacheable, template_key
from .result import (
    ChoiceKind,
    ChoicePoint,
    Cycle,
    CycleResult,
    EventType,
    Flush,
    NominatedBy,
    Nomination,
    RunEvent,
    StopReason,
)
from .simulation import Action, ActionKind, Simulation
from .state import ClusterState

# The fake queue clock's earliest origin; a pod bound at clock t ms started at origin + t
# (clock_origin: later when the snapshot's pods started later).
EPOCH = datetime(2025, 6, 2, 9, 0, 0, tzinfo=UTC)
# A run stops after this many cycles per submitted pod (and at least MIN_CYCLE_LIMIT):
# a cascade of recreated victims could otherwise go on for very long.
CYCLES_PER_POD = 20
MIN_CYCLE_LIMIT = 200


def default_cycle_limit(num_pods: int) -> int:
    return max(MIN_CYCLE_LIMIT, CYCLES_PER_POD * num_pods)


def clock_origin(base: Cluster) -> datetime:
    """When the run's clock starts: EPOCH, or the second after the latest start time in
    the snapshot if that is later. A pod bound during the run started after every pod
    already running, as it would in the cluster the snapshot was taken of; a clock that
    started before them would rank every replica the run binds as older than the pods
    it found, and later preemptions would pick their victims wrongly."""
    starts = [p.start_ns for p in base.pods if p.start_ns != NO_START_TIME]
    if not starts:
        return EPOCH
    after_latest = datetime.fromtimestamp(max(starts) // 1_000_000_000 + 1, tz=UTC)
    return max(EPOCH, after_latest)


def _start_time(origin: datetime, ms: int) -> tuple[str, int]:
    t = origin + timedelta(milliseconds=ms)
    text = t.strftime("%Y-%m-%dT%H:%M:%S") + f".{t.microsecond // 1000:03d}Z"
    return text, int(origin.timestamp()) * 1_000_000_000 + ms * 1_000_000


def created_after(raw: Mapping[str, Any]) -> str | None:
    """The pod this one's controller waits for (CREATED_AFTER), if any."""
    meta = raw.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    value = annotations.get(CREATED_AFTER) if isinstance(annotations, Mapping) else None
    return value if isinstance(value, str) and value else None


def rejector_plugins(diagnosis: Diagnosis) -> frozenset[str]:
    """Diagnosis.UnschedulablePlugins: every plugin that rejected the pod on some node."""
    return frozenset(
        s.plugin for s in diagnosis.node_to_status.values() if s.plugin and s.is_rejected()
    )


@dataclass
class CycleOutcome:
    """What one scheduling cycle decided, before the loop applies it."""

    sched: ScheduleResult
    preemption: PreemptionResult | None
    message: str


class Scheduler:
    """The queue, the cache (ClusterState) and the profile, run until nothing moves."""

    def __init__(
        self,
        base: Cluster,
        config: EngineConfig,
        *,
        recreate_victims: bool,
        cycle_limit: int | None,
        on_cycle: Callable[[int], None] | None,
        reuse_answers: bool = True,
    ) -> None:
        self.base = base
        self.origin = clock_origin(base)
        self.state = ClusterState(base)
        self.framework = Framework(Handle(self.state, config))
        spread = next(p for p in self.framework.plugins if p.name == names.POD_TOPOLOGY_SPREAD)
        assert isinstance(spread, PodTopologySpread)
        self.queue = SchedulingQueue(QueueingHints(spread))
        self.controllers = ControllerManager(self.state) if recreate_victims else None
        self.cycle_limit = cycle_limit
        self.on_cycle = on_cycle
        self.sim = Simulation(base=base, recreate_victims=recreate_victims)
        self.cycle = 0
        self.flushes = 0
        self.progress_since_flush = True
        self.bound_copy: dict[str, Pod] = {}  # pending pod key -> the running pod
        # Answers per pod template, reused while their nodes do not change.
        self.reuse = reuse_answers
        self.caches: dict[tuple[object, ...], ReplicaCache] = {}
        # Pods their controller creates once another pod runs: key of that pod -> them.
        self.waiting: dict[str, list[QueuedPodInfo]] = {}

    # Submission --------------------------------------------------------------
    def submit(self, pods: Sequence[Mapping[str, Any]]) -> None:
        seen: set[str] = set()
        for i, raw in enumerate(pods):
            try:
                pod = parse_pending_pod(self.state, raw)
            except InvalidInput as e:
                raise e.located(index=i) from None
            if pod.key in seen:
                raise InvalidInput(f"pod {pod.key} is listed twice", index=i, kind="Pod")
            seen.add(pod.key)
            after = created_after(raw)
            if after is not None and after not in seen:
                raise InvalidInput(
                    f"waits for {after}, which is not listed before it",
                    index=i,
                    kind="Pod",
                    field=f"metadata.annotations[{CREATED_AFTER}]",
                )
            self._enqueue(pod, waits_for=after)

    def _enqueue(
        self, pod: Pod, recreated_from: str | None = None, waits_for: str | None = None
    ) -> None:
        p = self.queue.add(pod, created=waits_for is None)
        if waits_for is not None:
            self.waiting.setdefault(waits_for, []).append(p)
        self.sim.pending.append(pod)
        self.sim.recreated_from[pod.key] = recreated_from
        if pod.nominated_node_name:
            self.state.nominate(pod, pod.nominated_node_name)
            self.sim.actions.append(Action(0, ActionKind.NOMINATE, pod, pod.nominated_node_name))
        self.sim.queued[pod.key] = p

    def _create_waiting(self, bound: Pod) -> None:
        """The controller makes the pods that waited for ``bound`` to run."""
        for p in self.waiting.pop(bound.key, []):
            self.queue.create(p)
            self.progress_since_flush = True

    # The loop ----------------------------------------------------------------
    def run(self) -> Simulation:
        limit = self.cycle_limit or default_cycle_limit(len(self.sim.pending))
        while True:
            p = self.queue.pop()
            if p is None:
                if not self.queue.unschedulable:
                    self.sim.stop_reason = StopReason.QUEUE_EMPTY
                    break
                if not self.progress_since_flush:
                    self.sim.stop_reason = StopReason.NO_PROGRESS_AFTER_FLUSH
                    break
                moved = self.queue.flush_unschedulable_leftover()
                self.flushes += 1
                self.progress_since_flush = False
                self.sim.flushes.append(Flush(self.cycle, sorted(q.key for q in moved)))
                continue
            if self.cycle >= limit:
                self.queue.put_back(p)
                self.sim.stop_reason = StopReason.CYCLE_LIMIT
                break
            self.queue.tick()
            self.cycle += 1
            self.schedule_one(p)
            if self.on_cycle is not None:
                self.on_cycle(self.cycle)
        self.sim.cycle_limit = limit
        self.sim.finish(self.state, self.queue, self.bound_copy)
        return self.sim

    def schedule_one(self, p: QueuedPodInfo) -> None:
        pod = p.pod
        self.sim.actions.append(Action(self.cycle, ActionKind.CYCLE, pod, None))
        out = self.scheduling_cycle(pod)
        if out.sched.host is not None:
            self.bind(p, out.sched)
        else:
            self.handle_failure(p, out)

    def scheduling_cycle(self, pod: Pod) -> CycleOutcome:
        fw = self.framework
        cycle_state = CycleState()
        sched, cache = self.schedule_pod(cycle_state, pod)
        if sched is None:
            cycle_state = CycleState()
            sched = schedule_pod(fw, cycle_state, pod)
        if sched.host is not None:
            return CycleOutcome(sched, None, "")
        diagnosis = sched.diagnosis
        pre = preempt(fw, cycle_state, pod, diagnosis, cache.dry_runs if cache else None)
        post = "" if pre.chosen is not None else post_filter_message(pre.message)
        message = fit_error_message(
            len(self.state.nodes),
            diagnosis.node_to_status,
            diagnosis.absent_status,
            diagnosis.pre_filter_msg,
            post,
        )
        return CycleOutcome(sched, pre, message)

    def schedule_pod(
        self, cs: CycleState, pod: Pod
    ) -> tuple[ScheduleResult | None, ReplicaCache | None]:
        """schedulePod the quick way where it gives the same answer: a feasible nominated
        node taken without looking at the others (as the real scheduler does), and
        node-local answers reused from earlier replicas. (None, None): take the plain path."""
        fw = self.framework
        nodes = self.state.node_infos
        pre_res, status, _ = fw.run_pre_filter(cs, pod, nodes)
        if not status.is_success() or (pre_res is not None and not pre_res.all_nodes()):
            return None, None
        if pod.nominated_node_name:
            ni = self.state.node_info_by_name.get(pod.nominated_node_name)
            if ni is None or not fw.run_filter_with_nominated_pods(cs, pod, ni).is_success():
                return None, None
            # evaluateNominatedNode passed: the other nodes are not even filtered.
            result = ScheduleResult(feasible=[ni], diagnosis=Diagnosis())
            result.host, result.host_selection = ni.name, HOST_NOMINATED
            result.top_nodes = [ni.name]
            return result, None
        if not self.reuse or not cacheable(cs, fw):
            return None, None
        for pl in fw.pre_score_plugins:
            if pl.pre_score(cs, pod, nodes).is_skip():
                cs.skip_score_plugins.add(pl.name)
        cache = self.caches.get(template_key(pod))
        if cache is None:
            cache = self.caches[template_key(pod)] = ReplicaCache(self.state)
        if not cache.can_score(fw, cs):
            return None, None
        return cache.schedule(fw, cs, pod), cache

    # Binding -----------------------------------------------------------------
    def bind(self, p: QueuedPodInfo, sched: ScheduleResult) -> None:
        pod = p.pod
        host = sched.host
        assert host is not None
        self.queue.done(p)
        running = copy.copy(pod)
        running.node_name = host
        running.phase = "Running"
        running.nominated_node_name = None
        running.start_time, running.start_ns = _start_time(self.origin, self.queue.now)
        self.bound_copy[pod.key] = running
        top = sched.top_nodes if sched.host_selection == HOST_SCORED else [host]
        self.sim.cycles.append(
            Cycle(
                self.cycle,
                pod.key,
                p.attempts,
                CycleResult.BOUND,
                node=host,
                host_selection=sched.host_selection,
                top_scored_nodes=list(top),
                after_flush=self.flushes,
            )
        )
        if sched.host_selection == HOST_SCORED and len(top) > 1:
            self.sim.choice_points.append(
                ChoicePoint(self.cycle, pod.key, ChoiceKind.BIND, sorted(top), host)
            )
        if self.state.nomination_of.get(pod.uid):
            self._nominate(pod, None, NominatedBy.BINDING)
        pod.nominated_node_name = None
        self.state.bind(running, host)
        self.sim.actions.append(Action(self.cycle, ActionKind.BIND, running, host))
        self._event(EventType.BIND, pod.key, host, [])
        self.progress_since_flush = True
        self.queue.on_event(Event.ASSIGNED_POD_ADD, running)
        self._create_waiting(pod)

    # Failure -----------------------------------------------------------------
    def handle_failure(self, p: QueuedPodInfo, out: CycleOutcome) -> None:
        pod = p.pod
        pre = out.preemption
        assert pre is not None
        chosen = pre.chosen
        # PostFilter's NominatingInfo: a node, "" to clear, or nothing (not eligible).
        nominating: str | None
        if chosen is not None:
            nominating = chosen.node
        elif pre.eligible:
            nominating = ""
        else:
            nominating = None
        cycle = Cycle(
            self.cycle,
            pod.key,
            p.attempts,
            CycleResult.PREEMPTED if chosen is not None else CycleResult.UNSCHEDULABLE,
            nominated_node=nominating,
            message=out.message,
            after_flush=self.flushes,
        )
        self.sim.cycles.append(cycle)
        self.queue.add_unschedulable(p, rejector_plugins(out.sched.diagnosis))
        if nominating is not None:
            current = self.state.nomination_of.get(pod.uid, "")
            if nominating != current:
                self._nominate(pod, nominating or None, NominatedBy.SCHEDULER)
                self.progress_since_flush = True
        if chosen is None:
            return
        victims = chosen.victims.pods
        cycle.tied_nodes = list(pre.tied)
        # Reported by name; deleted below in the order DefaultPreemption chose them.
        cycle.victims = sorted(v.key for v in victims)
        cycle.pdb_violations = chosen.victims.num_pdb_violations
        if len(pre.tied) > 1:
            self.sim.choice_points.append(
                ChoicePoint(self.cycle, pod.key, ChoiceKind.PREEMPT, list(pre.tied), chosen.node)
            )
        self.sim.preemptions.append((self.cycle, chosen.node, list(victims), cycle.pdb_violations))
        self._event(EventType.PREEMPT, pod.key, chosen.node, cycle.victims)
        # prepareCandidateAsync: lower-priority pods nominated to the node lose it first.
        for np in self.state.nominated_pods(chosen.node):
            if np.priority < pod.priority and np.uid != pod.uid:
                self._nominate(np, None, NominatedBy.SCHEDULER)
        # All victims but the last go while the preemptor is still held by PreEnqueue.
        for i, victim in enumerate(victims):
            last = i == len(victims) - 1
            self.state.delete(victim)
            self.sim.deleted_victims.append(victim.key)
            self.sim.actions.append(Action(self.cycle, ActionKind.DELETE, victim, victim.node_name))
            self.queue.on_event(
                Event.ASSIGNED_POD_DELETE, victim, frozenset() if last else frozenset({pod.key})
            )
        self.progress_since_flush = True
        if self.controllers is not None:
            for victim in victims:
                made = self.controllers.recreate(victim)
                if made is not None:
                    self.sim.recreated.append(made.record)
                    self._enqueue(made.pod, recreated_from=victim.key)

    # Records -----------------------------------------------------------------
    def _nominate(self, pod: Pod, node: str | None, by: NominatedBy) -> None:
        old = self.state.nomination_of.get(pod.uid, "")
        self.state.nominate(pod, node)
        pod.nominated_node_name = node
        self.sim.actions.append(Action(self.cycle, ActionKind.NOMINATE, pod, node))
        self.sim.nominations.append(Nomination(self.cycle, pod.key, old, node or "", by))
        self.progress_since_flush = True

    def _event(self, kind: EventType, pod: str, node: str, victims: list[str]) -> None:
        self.sim.events.append(
            RunEvent(len(self.sim.events) + 1, self.cycle, kind, pod, node, victims)
        )


def simulate(
    cluster_or_objects: Cluster | list[dict[str, Any]] | dict[str, Any],
    pods: Sequence[Mapping[str, Any]],
    *,
    recreate_victims: bool = False,
    cycle_limit: int | None = None,
    config: EngineConfig | None = None,
    on_cycle: Callable[[int], None] | None = None,
    reuse_answers: bool = True,
) -> Simulation:
    """Play kube-scheduler's scheduling loop over ``pods`` (pending Pods in submission
    order) on the cluster, until nothing can make progress. Never mutates the cluster.

    ``reuse_answers=False`` recomputes every node in every cycle (the same answers,
    slower: the tests compare the two)."""
    base = (
        cluster_or_objects
        if isinstance(cluster_or_objects, Cluster)
        else load_cluster(cluster_or_objects)
    )
    if not isinstance(pods, Sequence) or isinstance(pods, (str, bytes)):
        raise InvalidInput("the pending pods must be a list", kind="Pod")
    scheduler = Scheduler(
        base,
        config or EngineConfig(),
        recreate_victims=recreate_victims,
        cycle_limit=cycle_limit,
        on_cycle=on_cycle,
        reuse_answers=reuse_answers,
    )
    scheduler.submit(pods)
    return scheduler.run()


__all__ = ["PREEMPT_LOWER_PRIORITY", "default_cycle_limit", "simulate"]
