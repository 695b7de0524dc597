"""A single pod's what-if: submitted (analysis_create), analyzed by the engine with its
explanation stored (pod_store), and one cycle of a workload's run explained as a pod's
(cycle_explanation_create)."""

from __future__ import annotations

import time
from typing import Any

import orjson

from clusters.models import Snapshot
from scheduling.analyses.submission import (
    PodRejected,
    SnapshotNotReady,
    pod_validate,
    priority_classes_check,
)
from scheduling.constants import AnalysisSource
from scheduling.engine import Cluster, EngineConfig, InvalidInput, analyze, simulate
from scheduling.engine.budgets import with_budgets
from scheduling.engine.profile import DEFAULT_SCHEDULER_NAME
from scheduling.engine.workload import manifest_budgets
from scheduling.models import Analysis
from scheduling.running.budgets import AnalysisBudget, OutOfTime, result_too_large
from scheduling.scheduler_config import SchedulerChoice
from scheduling.scheduler_config.difference import difference_sentence
from scheduling.services.common import analysis_done, analysis_fail, analysis_queue, engine_profile


def analysis_create(
    *,
    snapshot: Snapshot,
    pod: Any,
    source: str = AnalysisSource.MANIFEST,
    preemption_args: dict[str, int] | None = None,
    priority_classes: list[dict[str, Any]] | None = None,
    field: str = "priority_classes",
    scheduler: SchedulerChoice | None = None,
    requested_by: Any = None,
) -> Analysis:
    """A queued analysis of ``pod`` on ``snapshot``, its task sent once the row is committed.
    ``priority_classes``: the what-if's own PriorityClass objects (refused under ``field``).

    BrokerUnavailable when the task cannot be sent: the row is then deleted again,
    so a refused POST stores nothing (the caller answers 503 and the client retries).
    """
    if not snapshot.is_ready:
        raise SnapshotNotReady(snapshot)
    classes = priority_classes_check(snapshot=snapshot, classes=priority_classes or [], field=field)
    pod_key = pod_validate(snapshot=snapshot, pod=pod, priority_classes=classes)
    pod = dict(pod)
    pod.setdefault("apiVersion", "v1")
    pod.setdefault("kind", "Pod")
    return analysis_queue(
        snapshot=snapshot,
        pod=pod,
        pod_key=pod_key,
        source=source,
        preemption_args=dict(preemption_args or {}),
        priority_classes=classes,
        scheduler=scheduler,
        requested_by=requested_by,
    )


def cycle_explanation_create(*, parent: Analysis, cycle: int, requested_by: Any = None) -> Analysis:
    """The single-pod explanation of one cycle of a workload run (made once, then reused)."""
    existing = parent.cycle_explanations.filter(cycle=cycle).first()
    if existing is not None:
        return existing
    run = parent.run
    if run is None or not any(y.cycle == cycle for y in run.cycles):
        raise PodRejected(f"The run has no cycle {cycle}.", field="cycle")
    popped = next(y.pod for y in run.cycles if y.cycle == cycle)
    return analysis_queue(
        snapshot=parent.snapshot,
        parent=parent,
        cycle=cycle,
        pod={"cycle": cycle, "pod": popped},
        pod_key=popped,
        source=parent.source,
        scheduler=parent.scheduler,
        requested_by=requested_by,
    )


def _pod_explain(analysis: Analysis, cluster: Cluster, config: dict[str, Any] | None) -> Any:
    return analyze(
        cluster,
        analysis.pod,
        EngineConfig(**analysis.preemption_args),
        priority_classes=analysis.priority_classes,
        **engine_profile(config),
    ).explanation


def _cycle_explain(analysis: Analysis, cluster: Cluster) -> Any:
    """The parent run played again (it is deterministic) up to the cycle, and that
    cycle's pod analyzed on the cluster as it stood then."""
    parent = analysis.parent
    assert parent is not None and analysis.cycle is not None
    cluster, _ = with_budgets(cluster, manifest_budgets(parent.pod.get("objects") or []))
    sim = simulate(
        cluster,
        parent.pod["pods"],
        recreate_victims=parent.recreate_victims,
        timeline=parent.timeline,
        cycle_limit=analysis.cycle,
        on_cycle=AnalysisBudget.from_settings().watch(),
        priority_classes=parent.priority_classes,
        **engine_profile(parent.scheduler.effective),
    )
    return sim.explain(analysis.cycle).explanation


def pod_store(
    analysis: Analysis, cluster: Cluster, *, cached: bool, t0: float, t1: float
) -> Analysis:
    """A pod's explanation (or a workload cycle's) computed and stored; beside a scheduler
    configuration of its own, the sentence saying what it changed."""
    try:
        if analysis.parent_id is not None:
            explanation = _cycle_explain(analysis, cluster)
        else:
            explanation = _pod_explain(analysis, cluster, analysis.scheduler.effective)
    except InvalidInput as e:
        return analysis_fail(analysis_id=analysis.pk, error=f"The pod is invalid: {e}")
    except OutOfTime as e:
        return analysis_fail(analysis_id=analysis.pk, error=e.message)
    t2 = time.perf_counter()
    stored = explanation.to_json()
    too_large = result_too_large(len(orjson.dumps(stored)), AnalysisBudget.from_settings())
    if too_large:
        return analysis_fail(analysis_id=analysis.pk, error=too_large)
    difference = ""
    if analysis.parent_id is None and not analysis.scheduler.is_default:
        default = _pod_explain(analysis, cluster, None)
        spec = analysis.pod.get("spec") or {}
        difference = difference_sentence(
            analysis.scheduler,
            explanation,
            default,
            scheduler_name=spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME,
        )
    return analysis_done(
        analysis,
        load_seconds=0.0 if cached else t1 - t0,
        engine_seconds=t2 - t1,
        outcome=explanation.outcome.value,
        explanation=stored,
        scheduler_difference=difference[:500],
    )
