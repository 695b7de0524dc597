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

With ``timeline=True`` the clock is a real one (clock.py): a victim's deletion is
issued (deletionTimestamp, the DisruptionTarget condition) and the victim keeps
running, and holding its room, for its grace period; a victim already terminating is
not deleted again, and a preemption whose victims all are returns before clearing any
nomination (prepareCandidateAsync); pods arrive and running pods are deleted at the
times their annotations give; when nothing can be popped the clock jumps to the next
of those or to the leftover flush's next useful tick.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from ..analysis import parse_pending_pod
from ..cluster import Cluster, load_cluster
from ..config import EngineConfig
from ..dra.objects import generate_claims
from ..errors import InvalidInput
from ..framework import CycleState, Handle
from ..hypothetical import with_priority_classes
from ..message import fit_error_message
from ..objects import (
    ARRIVAL_SECONDS,
    NO_START_TIME,
    PREEMPT_LOWER_PRIORITY,
    Pod,
    seconds_annotation_ms,
)
from ..plugins import names
from ..plugins.dynamicresources import DynamicResourcesState, waits_for_devices
from ..plugins.podtopologyspread import PodTopologySpread
from ..preemption.evaluator import PreemptionResult, post_filter, post_filter_suffix, preempt
from ..profile.profile_map import (
    DEFAULT_PROFILE_REF,
    ProfileMap,
    SchedulerConfigInput,
    profile_map,
)
from ..runtime import Framework
from ..schedule import HOST_NOMINATED, HOST_SCORED, Diagnosis, ScheduleResult, schedule_pod
from ..volumes.binding import ASSUME_PROVISIONED, bind_claims, create_claims
from ..volumes.claimtemplates import pod_claims
from .clock import SPAN_MS, Agenda, Happening, rfc3339, seconds
from .controllers import CREATED_AFTER, ControllerManager
from .hints import ClaimChange, Event, QueueingHints
from .nodetree import FilterStart
from .queue import LEFTOVER_FLUSH_PERIOD_MS, QueuedPodInfo, SchedulingQueue, Where
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
    Termination,
    Timeline,
)
from .simulation import Action, ActionKind, Simulation
from .state import ClusterState

# The run clock's origin when no pod in the snapshot has started (the conformance
# harness's fake clock starts there); a pod bound at clock t ms started at origin + t.
EPOCH = datetime(2025, 6, 2, 9, 0, 0, tzinfo=UTC)
# A run stops after this many cycles per submitted pod (and at least MIN_CYCLE_LIMIT):
# a cascade of recreated victims could otherwise go on for very long.
CYCLES_PER_POD = 20
MIN_CYCLE_LIMIT = 200


def default_cycle_limit(num_pods: int) -> int:
    return max(MIN_CYCLE_LIMIT, CYCLES_PER_POD * num_pods)


def clock_origin(base: Cluster) -> datetime:
    """Time zero: the second after the latest pod start in the snapshot (EPOCH when no pod
    has started). A pod bound during the run started after every pod already running, as
    it would in the cluster the snapshot was taken of; a clock that started before them
    would rank every replica the run binds as older than the pods it found, and later
    preemptions would pick their victims wrongly. Only that order counts (a pod without
    a start time sorts after all), so the origin is no later than it needs to be: a dump
    taken in 2021 runs in 2021."""
    starts = [p.start_ns for p in base.pods if p.start_ns != NO_START_TIME]
    if not starts:
        return EPOCH
    return datetime.fromtimestamp(max(starts) // 1_000_000_000 + 1, tz=UTC)


def _start_time(origin: datetime, ms: int) -> tuple[str, int]:
    return rfc3339(origin, ms), int(origin.timestamp()) * 1_000_000_000 + ms * 1_000_000


def arrival_ms(raw: Mapping[str, Any]) -> int | None:
    """preemptlab.io/arrival-seconds on a pending pod, in milliseconds (None: at once)."""
    meta = raw.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    return seconds_annotation_ms(annotations, ARRIVAL_SECONDS) if annotations else None


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


class ClockSource(Protocol):
    """Someone outside the scheduler acting on the cluster at times of its own (a drain
    cordoning nodes and evicting pods, a node controller deleting pods of lost nodes),
    on the timeline's clock. The loop asks it when it next acts and lets it act once
    the clock gets there, before popping a pod; when neither the queue nor the agenda
    nor any source has anything left, the run is over."""

    def next_at(self, now: int) -> int | None:
        """When it next acts (ms since time zero; at most ``now`` when it is due), or
        None while it waits for nothing the clock can bring."""
        ...

    def fire(self, now: int) -> None:
        """Act: everything due by ``now``."""
        ...


@dataclass
class CycleOutcome:
    """What one scheduling cycle decided, before the loop applies it."""

    sched: ScheduleResult
    preemption: PreemptionResult | None
    message: str
    # Diagnosis.UnschedulablePlugins, which the queue keeps with the pod.
    unschedulable_plugins: frozenset[str] = frozenset()
    # The pod's claims and what DynamicResources allocated for them on the chosen node.
    devices: DynamicResourcesState | None = None


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
        timeline: bool = False,
        profiles: ProfileMap | None = None,
    ) -> None:
        self.base = base
        self.origin = clock_origin(base)
        self.state = ClusterState(base)
        self.profiles = profiles
        self.framework = Framework(Handle(self.state, config))
        # A KubeSchedulerConfiguration's profiles by schedulerName; None: the default
        # profile schedules every pod, whatever its schedulerName.
        self.frameworks: dict[str, Framework] | None = None
        if profiles is not None:
            self.frameworks = {
                name: Framework(Handle(self.state, c)) for name, c in profiles.configs.items()
            }
        spread = next(
            (p for p in self.framework.plugins if p.name == names.POD_TOPOLOGY_SPREAD), None
        ) or PodTopologySpread(self.framework.handle)
        assert isinstance(spread, PodTopologySpread)
        self.filter_start = FilterStart(self.state.nodes)
        self.queue = SchedulingQueue(QueueingHints(spread, self.state), real_clock=timeline)
        # A timeline run: what the clock waits for, the leftover flush's next tick, and
        # when each pending pod was created and bound (ms).
        self.timed = timeline
        self.agenda = Agenda()
        self.next_leftover_tick = LEFTOVER_FLUSH_PERIOD_MS
        self.arrived: dict[str, int] = {}
        self.bound_at: dict[str, int] = {}
        self.not_arrived: set[str] = set()
        # Actors outside the scheduler on the same clock (timeline runs only).
        self.sources: list[ClockSource] = []
        if timeline:
            for pod in base.pods:
                if pod.delete_at_ms is not None and pod.node_name:
                    self.agenda.add(pod.delete_at_ms, Happening.DELETE, pod)
        self.controllers = ControllerManager(self.state) if recreate_victims else None
        self.cycle_limit = cycle_limit
        # Set by the caller (from on_cycle): end before the next cycle, as at the limit.
        self.stop_requested = False
        self.on_cycle = on_cycle
        self.sim = Simulation(base=base, recreate_victims=recreate_victims)
        self.sim.scheduler_config = profiles.configuration if profiles is not None else None
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
        claims: list[Mapping[str, Any]] = []
        for i, raw in enumerate(pods):
            try:
                pod = parse_pending_pod(self.state, raw)
            except InvalidInput as e:
                raise e.located(index=i) from None
            if pod.key in seen:
                raise InvalidInput(f"pod {pod.key} is listed twice", index=i, kind="Pod")
            seen.add(pod.key)
            try:
                claims.extend(pod_claims(raw))
            except InvalidInput as e:
                raise e.located(
                    index=i, kind="Pod", namespace=pod.namespace, name=pod.name
                ) from None
            if pod.resource_claims:
                self.generate_claims(pod)
            if self.profiles is not None and pod.scheduler_name not in self.profiles.configs:
                # responsibleForPod: no profile of this scheduler is named; never queued.
                self.sim.ignored.append((pod, self.profiles.ignored_reason(pod.scheduler_name)))
                continue
            after = created_after(raw)
            if after is not None and after not in seen:
                raise InvalidInput(
                    f"waits for {after}, which is not listed before it",
                    index=i,
                    kind="Pod",
                    field=f"metadata.annotations[{CREATED_AFTER}]",
                )
            arrives = arrival_ms(raw) if self.timed else None
            if arrives:
                self.agenda.add(arrives, Happening.ARRIVAL, pod)
                self.not_arrived.add(pod.key)
            self._enqueue(pod, waits_for=after, arrives_later=bool(arrives))
        self._create_claims(claims)

    def _create_claims(self, claims: Sequence[Mapping[str, Any]]) -> None:
        """The StatefulSet controllers create their replicas' missing claims (all at once:
        one copy of the storage, not one per replica)."""
        if not claims:
            return
        try:
            created = create_claims(self.state.storage, claims)
        except InvalidInput as e:
            raise e.located(kind="PersistentVolumeClaim") from None
        if created is not None:
            self.state.storage = created
            self.sim.storage_changes.append((self.cycle, created))
            self.caches.clear()

    def generate_claims(self, pod: Pod) -> None:
        """The resourceclaim controller for a pod submitted now (dra.objects)."""
        for made in generate_claims(self.state.dra, pod):
            self.state.add_claim(made)

    def _enqueue(
        self,
        pod: Pod,
        recreated_from: str | None = None,
        waits_for: str | None = None,
        arrives_later: bool = False,
    ) -> None:
        p = self.queue.add(pod, created=waits_for is None and not arrives_later)
        if p.where is not Where.NOT_CREATED:
            self.arrived[pod.key] = self.queue.now
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
            if p.key in self.not_arrived:
                continue  # created at its arrival, now that its predecessor runs
            self._create(p)

    def _create(self, p: QueuedPodInfo) -> None:
        self.queue.create(p)
        self.arrived[p.key] = self.queue.now
        self.progress_since_flush = True

    # The loop ----------------------------------------------------------------
    def run(self) -> Simulation:
        limit = self.cycle_limit or default_cycle_limit(len(self.sim.pending))
        while True:
            if self.timed:
                self.deliver_due()
            p = self.queue.pop()
            if p is None:
                if self.timed:
                    if self.wait():
                        continue
                    break
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
            if self.cycle >= limit or self.stop_requested:
                self.queue.put_back(p)
                self.sim.stop_reason = StopReason.CYCLE_LIMIT
                break
            self.queue.tick()
            self.cycle += 1
            self.schedule_one(p)
            if self.on_cycle is not None:
                self.on_cycle(self.cycle)
        self.sim.cycle_limit = limit
        self.sim.scheduler_profile = (
            DEFAULT_PROFILE_REF
            if self.profiles is None
            else self.profiles.ref({p.scheduler_name for p in self.sim.pending})
        )
        self.sim.finish(self.state, self.queue, self.bound_copy)
        if self.timed:
            for outcome in self.sim.pods:
                outcome.timed = True
                arrived = self.arrived.get(outcome.pod)
                bound = self.bound_at.get(outcome.pod)
                outcome.arrived_at = None if arrived is None else seconds(arrived)
                outcome.bound_at = None if bound is None else seconds(bound)
            self.sim.timeline = Timeline(rfc3339(self.origin), seconds(self.queue.now))
        return self.sim

    # The clock (timeline runs) -------------------------------------------------
    def _at(self) -> float | None:
        return seconds(self.queue.now) if self.timed else None

    def checkpoint(self) -> None:
        """The clock moved on: the caller's budget is checked here too, not only after a
        cycle (a run may wait through long stretches of time between cycles)."""
        if self.on_cycle is not None:
            self.on_cycle(self.cycle)

    def next_flush_tick(self) -> int | None:
        """The leftover flush's next tick that moves a pod (None: the pool is empty).
        The ticks before it find nothing to move and change nothing, so the clock goes
        straight there instead of through every 30 s."""
        return self.queue.next_leftover_flush(self.next_leftover_tick)

    def source_due(self) -> tuple[int, ClockSource] | None:
        """The source acting next, and when (None: none will until something changes)."""
        best: tuple[int, ClockSource] | None = None
        for source in self.sources:
            at = source.next_at(self.queue.now)
            if at is not None and (best is None or at < best[0]):
                best = (at, source)
        return best

    def deliver_due(self) -> None:
        """Everything due by now, in time order: happenings, then the outside sources,
        then leftover-flush ticks."""
        now = self.queue.now
        while True:
            due = self.agenda.next_at()
            tick = self.next_flush_tick()
            source = self.source_due() if self.sources else None
            if due is not None and due <= now and (tick is None or due <= tick):
                d = self.agenda.pop_due(now)
                assert d is not None
                self.happen(d.kind, d.pod, d.at)
            elif source is not None and source[0] <= now and (tick is None or source[0] <= tick):
                source[1].fire(now)
            elif tick is not None and tick <= now:
                self.leftover_flush(tick)
            else:
                return
            self.checkpoint()

    def wait(self) -> bool:
        """Nothing can be popped: move the clock to the next happening or to the
        leftover flush's next tick that moves a pod. False: the run is over."""
        due = self.agenda.next_at()
        if self.sources:
            source = self.source_due()
            if source is not None and (due is None or source[0] < due):
                due = max(source[0], self.queue.now)
        tick = self.next_flush_tick()
        if due is None and tick is None:
            self.sim.stop_reason = StopReason.QUEUE_EMPTY
            return False
        flush = due is None or (tick is not None and tick < due)
        if flush and due is None and not self.progress_since_flush:
            self.sim.stop_reason = StopReason.NO_PROGRESS_AFTER_FLUSH
            return False
        at = tick if flush else due
        assert at is not None
        if at > SPAN_MS:
            # Past the span a timed run covers: pods still waiting stop at the run's limit;
            # otherwise only grace periods were left to run out.
            waiting = self.queue.unschedulable or self.not_arrived
            self.sim.stop_reason = StopReason.CYCLE_LIMIT if waiting else StopReason.QUEUE_EMPTY
            return False
        self.queue.jump_to(at)
        if flush:
            self.leftover_flush(at)
        self.checkpoint()
        return True

    def leftover_flush(self, tick: int) -> None:
        self.next_leftover_tick = tick + LEFTOVER_FLUSH_PERIOD_MS
        moved = self.queue.flush_leftover_at(tick)
        if moved:
            self.flushes += 1
            self.progress_since_flush = False
            self.sim.flushes.append(Flush(self.cycle, sorted(q.key for q in moved), seconds(tick)))

    def happen(self, kind: Happening, pod: Pod, at: int) -> None:
        if kind is Happening.ARRIVAL:
            self.not_arrived.discard(pod.key)
            p = self.sim.queued[pod.key]
            waits_for = next((k for k, ps in self.waiting.items() if p in ps), None)
            if waits_for is None or waits_for in self.bound_copy:
                if waits_for is not None:
                    self.waiting[waits_for].remove(p)
                self._create(p)
        elif kind is Happening.DELETE:
            current = self._running(pod)
            if current is not None and not current.terminating:
                self.await_gone(self.issue_deletion(current, None, at), at)
        else:
            self.gone(pod)

    def _running(self, pod: Pod) -> Pod | None:
        ni = self.state.node_info_by_name.get(pod.node_name or "")
        if ni is None:
            return None
        return next((p for p in ni.pods if p.uid == pod.uid), None)

    def issue_deletion(self, victim: Pod, preemptor: Pod | None, at: int) -> Pod:
        """The API server sets deletionTimestamp (and the scheduler, for a preemption,
        the DisruptionTarget condition): the pod keeps running until then."""
        node = victim.node_name
        assert node is not None
        gone_at = at + victim.grace_seconds * 1000
        terminating = copy.copy(victim)
        terminating.terminating = True
        terminating.terminating_by_preemption = preemptor is not None
        terminating.deletion_timestamp = rfc3339(self.origin, gone_at)
        self.state.replace(terminating)
        self.sim.actions.append(Action(self.cycle, ActionKind.TERMINATE, terminating, node))
        self.sim.terminations.append(
            Termination(
                victim.key,
                node,
                self.cycle if preemptor is not None else None,
                preemptor.key if preemptor is not None else None,
                seconds(at),
                seconds(gone_at),
                victim.grace_seconds,
            )
        )
        self.progress_since_flush = True
        return terminating

    def await_gone(self, terminating: Pod, at: int, gated: frozenset[str] = frozenset()) -> None:
        """Gone when its grace period ends: at once when that is 0."""
        if terminating.grace_seconds:
            self.agenda.add(at + terminating.grace_seconds * 1000, Happening.GONE, terminating)
        else:
            self.gone(terminating, gated)

    def gone(self, pod: Pod, gated: frozenset[str] = frozenset()) -> None:
        """The pod is gone from the API server: the informer's AssignedPod/Delete."""
        self.state.delete(pod)
        self.sim.actions.append(Action(self.cycle, ActionKind.DELETE, pod, pod.node_name))
        self.progress_since_flush = True
        self.queue.on_event(Event.ASSIGNED_POD_DELETE, pod, gated)
        # The resourceclaim controller, at once: the pod's claims released.
        for before, after in self.state.release_claims(pod):
            self.queue.on_event(Event.RESOURCE_CLAIM_CHANGE, ClaimChange(before, after), gated)

    def schedule_one(self, p: QueuedPodInfo) -> None:
        pod = p.pod
        self.sim.actions.append(Action(self.cycle, ActionKind.CYCLE, pod, None))
        out = self.scheduling_cycle(pod)
        if out.sched.host is not None:
            self.bind(p, out.sched, out.devices)
        else:
            self.handle_failure(p, out)

    def framework_for(self, pod: Pod) -> Framework:
        """frameworkForPod: the profile the pod's spec.schedulerName names."""
        if self.frameworks is None:
            return self.framework
        return self.frameworks[pod.scheduler_name]

    def scheduling_cycle(self, pod: Pod) -> CycleOutcome:
        fw = self.framework_for(pod)
        cycle_state = CycleState()
        sched, cache = self.schedule_pod(cycle_state, pod)
        if sched is None:
            cycle_state = CycleState()
            sched = schedule_pod(fw, cycle_state, pod)
        if sched.host is not None:
            if not fw.score_plugins and sched.host_selection is not HOST_NOMINATED:
                # No Score plugin: the real Filter stops at the first feasible node.
                sched.host = self.filter_start.first_feasible({ni.name for ni in sched.feasible})
                sched.top_nodes = [sched.host]
            return CycleOutcome(sched, None, "", devices=waits_for_devices(cycle_state))
        diagnosis = sched.diagnosis
        if cache is None:
            pre = post_filter(
                fw, lambda: preempt(fw, cycle_state, pod, diagnosis), cycle_state, pod
            )
        else:
            pre = post_filter(
                fw, lambda: cache.preempt(fw, cycle_state, pod, diagnosis), cycle_state, pod
            )
        post = post_filter_suffix(fw, pre)
        if cache is not None:
            # The template's counts, kept up to date node by node: the same message.
            message = cache.fit_error_message(diagnosis, len(self.state.nodes), post)
            return CycleOutcome(sched, pre, message, cache.unschedulable_plugins())
        message = fit_error_message(
            len(self.state.nodes),
            diagnosis.node_to_status,
            diagnosis.absent_status,
            diagnosis.pre_filter_msg,
            post,
        )
        return CycleOutcome(sched, pre, message, rejector_plugins(diagnosis))

    def schedule_pod(
        self, cs: CycleState, pod: Pod
    ) -> tuple[ScheduleResult | None, ReplicaCache | None]:
        """schedulePod the quick way where it gives the same answer: a feasible nominated
        node taken without looking at the others (as the real scheduler does), and
        node-local answers reused from earlier replicas. (None, None): take the plain path."""
        fw = self.framework_for(pod)
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
    def bind(
        self, p: QueuedPodInfo, sched: ScheduleResult, devices: DynamicResourcesState | None = None
    ) -> None:
        pod = p.pod
        host = sched.host
        assert host is not None
        self.queue.done(p)
        self.bound_at[pod.key] = self.queue.now
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
                at=self._at(),
            )
        )
        if sched.host_selection == HOST_SCORED and len(top) > 1:
            self.sim.choice_points.append(
                ChoicePoint(self.cycle, pod.key, ChoiceKind.BIND, sorted(top), host)
            )
        if self.state.nomination_of.get(pod.uid):
            self._nominate(pod, None, NominatedBy.BINDING)
        pod.nominated_node_name = None
        if devices is not None:
            # Reserve and PreBind write the claims before the pod is bound.
            made = devices.node_allocations.get(host) or []
            befores = [self.state.dra.claims.get(c.key) for c in devices.claims]
            written = self.state.reserve_claims(running, host, devices.claims, made)
            for before, after in zip(befores, written, strict=True):
                self.queue.on_event(Event.RESOURCE_CLAIM_CHANGE, ClaimChange(before, after))
        self.state.bind(running, host)
        if running.volumes:
            self._bind_claims(running, host)
        self.sim.actions.append(Action(self.cycle, ActionKind.BIND, running, host))
        self._event(EventType.BIND, pod.key, host, [])
        self.progress_since_flush = True
        self.queue.on_event(Event.ASSIGNED_POD_ADD, running)
        self._create_waiting(pod)

    def _bind_claims(self, pod: Pod, host: str) -> None:
        """The pod's unbound WaitForFirstConsumer claims are bound on its node (assumed:
        no PV controller or provisioner runs); they pin later pods from now on."""
        view, bound = bind_claims(self.state.storage, pod, self.state.node_info_by_name[host])
        if view is None:
            return
        self.state.storage = view
        self.sim.storage_changes.append((self.cycle, view))
        self.caches.clear()  # answers of templates using these claims are stale
        for key in bound:
            self.sim.bound_claims[key] = host
        if ASSUME_PROVISIONED not in self.sim.assumptions:
            self.sim.assumptions.append(ASSUME_PROVISIONED)

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
        elif pre.eligible and not pre.post_filter_error:
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
            at=self._at(),
        )
        self.sim.cycles.append(cycle)
        self.queue.add_unschedulable(p, out.unschedulable_plugins)
        answer = pre.dynamic_resources
        if answer is not None and answer.deallocated is not None:
            # DynamicResources' PostFilter cleared the claim's allocation: the update
            # reaches the queue, this pod included (it was in flight).
            before = self.state.dra.claims.get(answer.deallocated.key)
            after = self.state.deallocate(answer.deallocated)
            self.queue.on_event(Event.RESOURCE_CLAIM_CHANGE, ClaimChange(before, after))
        if nominating is not None:
            current = self.state.nomination_of.get(pod.uid, "")
            if nominating != current:
                self._nominate(pod, nominating or None, NominatedBy.SCHEDULER)
                self.progress_since_flush = True

        if chosen is None:
            return
        chosen_victims = chosen.victims.pods
        # A timeline run does not delete a victim already terminating again.
        victims = [v for v in chosen_victims if not (self.timed and v.terminating)]
        cycle.tied_nodes = list(pre.tied)
        # Reported by name; deleted below in the order DefaultPreemption chose them.
        cycle.victims = sorted(v.key for v in victims)
        cycle.chosen_victims = sorted(v.key for v in chosen_victims)
        cycle.pdb_violations = chosen.victims.num_pdb_violations
        if len(pre.tied) > 1:
            self.sim.choice_points.append(
                ChoicePoint(self.cycle, pod.key, ChoiceKind.PREEMPT, list(pre.tied), chosen.node)
            )
        self.sim.preemptions.append((self.cycle, chosen.node, list(victims), cycle.pdb_violations))
        self._event(EventType.PREEMPT, pod.key, chosen.node, cycle.victims)
        if not victims:
            # prepareCandidateAsync returns before its goroutine: no nomination cleared.
            return
        # prepareCandidateAsync: lower-priority pods nominated to the node lose it first.
        for np in self.state.nominated_pods(chosen.node):
            if np.priority < pod.priority and np.uid != pod.uid:
                self._nominate(np, None, NominatedBy.SCHEDULER)
        # All victims but the last go while the preemptor is still held by PreEnqueue.
        for i, victim in enumerate(victims):
            gated = frozenset() if i == len(victims) - 1 else frozenset({pod.key})
            self.sim.deleted_victims.append(victim.key)
            if not self.timed:
                self.gone(victim, gated)
                continue
            now = self.queue.now
            self.await_gone(self.issue_deletion(victim, pod, now), now, gated)
        self.progress_since_flush = True
        if self.controllers is not None:
            for victim in victims:
                made = self.controllers.recreate(victim)
                if made is not None:
                    if made.pod.resource_claims:
                        self.generate_claims(made.pod)
                    self.sim.recreated.append(made.record)
                    self._enqueue(made.pod, recreated_from=victim.key)

    # Records -----------------------------------------------------------------
    def _nominate(self, pod: Pod, node: str | None, by: NominatedBy) -> None:
        old = self.state.nomination_of.get(pod.uid, "")
        self.state.nominate(pod, node)
        pod.nominated_node_name = node
        self.sim.actions.append(Action(self.cycle, ActionKind.NOMINATE, pod, node))
        self.sim.nominations.append(
            Nomination(self.cycle, pod.key, old, node or "", by, self._at())
        )
        self.progress_since_flush = True
        if old and by is NominatedBy.SCHEDULER:
            self.left_nominated(pod, old)

    def left_nominated(self, pod: Pod, node: str) -> None:
        """The pod no longer holds room on ``node`` (updatePodInSchedulingQueue's
        hasNominatedNodeNameChanged, deletePodFromSchedulingQueue): pods of lower or equal
        priority, which counted it there, may fit now (EventUnscheduledPodDelete)."""
        left = copy.copy(pod)
        left.node_name, left.nominated_node_name = None, node
        self.queue.on_event(Event.UNSCHEDULED_POD_DELETE, left, at_most_priority=pod.priority)

    def _event(self, kind: EventType, pod: str, node: str, victims: list[str]) -> None:
        self.sim.events.append(
            RunEvent(len(self.sim.events) + 1, self.cycle, kind, pod, node, victims, self._at())
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
    timeline: bool = False,
    priority_classes: Sequence[Mapping[str, Any]] = (),
    scheduler_config: SchedulerConfigInput | None = None,
    scheduler_source: str | None = None,
    scheduler_preset: str | None = None,
) -> Simulation:
    """Play kube-scheduler's scheduling loop over ``pods`` (pending Pods in submission
    order) on the cluster, until nothing can make progress. Never mutates the cluster.

    ``reuse_answers=False`` recomputes every node in every cycle (the same answers,
    slower: the tests compare the two). ``timeline=True`` keeps time (DESIGN.md,
    "Timeline contract"): grace periods, arrivals, deletions by others.
    ``priority_classes``: PriorityClass objects in effect for this run only
    (hypothetical.py): the pending pods, and the victims their controllers make again,
    are admitted against them. ``scheduler_config``: a KubeSchedulerConfiguration
    (kubescheduler.config.k8s.io/v1, parsed, or loaded with its source and preset);
    each pod runs under the profile its spec.schedulerName names (profile/)."""
    profiles = profile_map(
        scheduler_config, config, source=scheduler_source, preset=scheduler_preset
    )
    base = with_priority_classes(
        cluster_or_objects
        if isinstance(cluster_or_objects, Cluster)
        else load_cluster(cluster_or_objects),
        priority_classes,
    )
    if not isinstance(pods, Sequence) or isinstance(pods, (str, bytes)):
        raise InvalidInput("the pending pods must be a list", kind="Pod")
    scheduler = Scheduler(
        base,
        profiles.first if profiles is not None else config or EngineConfig(),
        recreate_victims=recreate_victims,
        cycle_limit=cycle_limit,
        on_cycle=on_cycle,
        reuse_answers=reuse_answers,
        timeline=timeline,
        profiles=profiles,
    )
    scheduler.submit(pods)
    return scheduler.run()


__all__ = ["PREEMPT_LOWER_PRIORITY", "default_cycle_limit", "simulate"]
