"""A workload's what-if: the objects expanded and admitted when submitted
(analysis_create_workload), kube-scheduler's loop run over their pods (workload_simulate)
and the run stored with its one-word outcome and sentence (workload_store)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

import orjson

from clusters.models import Snapshot
from scheduling.analyses.submission import SnapshotNotReady, priority_classes_check, workload_expand
from scheduling.analyses.workloads import WorkloadRun
from scheduling.constants import AnalysisKind, AnalysisSource
from scheduling.engine import Cluster, InvalidInput, simulate
from scheduling.engine.budgets import manifest_record, with_budgets
from scheduling.engine.simulate import default_cycle_limit
from scheduling.engine.workload import Workload, WorkloadObject, manifest_budgets, skipped_kinds
from scheduling.models import Analysis
from scheduling.presenters.workload import workload_sentence
from scheduling.running.budgets import AnalysisBudget, OutOfTime, result_too_large
from scheduling.scheduler_config import SchedulerChoice
from scheduling.scheduler_config.difference import difference_sentence
from scheduling.services.common import (
    Progress,
    analysis_done,
    analysis_fail,
    analysis_queue,
    engine_profile,
)


def analysis_create_workload(
    *,
    snapshot: Snapshot,
    objects: Any,
    recreate_victims: bool = False,
    timeline: bool = False,
    source: str = AnalysisSource.MANIFEST,
    field: str = "objects",
    taken: Iterable[str] = (),
    priority_classes: list[dict[str, Any]] | None = None,
    classes_field: str | None = None,
    scheduler: SchedulerChoice | None = None,
    requested_by: Any = None,
) -> Analysis:
    """A queued workload what-if: the objects expanded and admitted now (bad input is
    refused before anything is stored), simulated by a worker. ``priority_classes``: the
    what-if's own PriorityClass objects (refused under ``classes_field``, else ``field``)."""
    if not snapshot.is_ready:
        raise SnapshotNotReady(snapshot)
    classes = priority_classes_check(
        snapshot=snapshot, classes=priority_classes or [], field=classes_field or field
    )
    workload = workload_expand(
        snapshot=snapshot, objects=objects, field=field, taken=taken, priority_classes=classes
    )
    return analysis_queue(
        snapshot=snapshot,
        kind=AnalysisKind.WORKLOAD,
        pod={
            "objects": objects,
            "pods": workload.pods,
            "made": [asdict(o) for o in workload.objects],
            # Counted now: the scrub drops a Secret whole before the row is stored. Pairs
            # in document order (PostgreSQL's jsonb keeps no key order).
            "skipped": [[kind, n] for kind, n in workload.skipped.items()],
        },
        pod_key=workload.describe()[:507],
        recreate_victims=recreate_victims,
        timeline=timeline,
        source=source,
        priority_classes=classes,
        scheduler=scheduler,
        requested_by=requested_by,
    )


def workload_simulate(
    *,
    cluster: Cluster,
    made: list[dict[str, Any]],
    pods: list[dict[str, Any]],
    recreate_victims: bool,
    timeline: bool = False,
    on_cycle: Any = None,
    cycle_limit: int | None = None,
    priority_classes: list[dict[str, Any]] | None = None,
    scheduler_config: dict[str, Any] | None = None,
    objects: list[Any] | None = None,
    skipped: dict[str, int] | None = None,
) -> WorkloadRun:
    """Runs the scheduling loop over the workload's pods (as expanded and admitted when
    submitted) and keeps what the page needs. ``objects``, as stored: the budgets
    among them join the snapshot for this run; ``skipped``: the kinds the manifest held
    that the run skips, counted when submitted (else counted in ``objects``), noted."""
    workload = Workload(
        pods=pods,
        objects=[WorkloadObject(**{**o, "pod_keys": tuple(o["pod_keys"])}) for o in made],
    )
    cluster, budgets = with_budgets(cluster, manifest_budgets(objects or []))
    sim = simulate(
        cluster,
        pods,
        recreate_victims=recreate_victims,
        on_cycle=on_cycle,
        cycle_limit=cycle_limit,
        timeline=timeline,
        priority_classes=priority_classes or [],
        **engine_profile(scheduler_config),
    )
    run = WorkloadRun.from_simulation(sim, workload)
    record = manifest_record(
        budgets, skipped if skipped is not None else skipped_kinds(objects or [])
    )
    if record is not None:
        run.contract["manifest"] = record
    return run


def workload_outcome(run: WorkloadRun) -> str:
    """The lists' one-word outcome of a run (WorkloadRun.outcome, as the row stores it):
    all-run, some-run or none-run."""
    return run.outcome.value


def workload_summary(run: WorkloadRun) -> str:
    """The lists' and the API's words for a workload's answer: the page's sentence, and
    whether the victims' owners recreated them (two such runs must not look alike)."""
    sentence = workload_sentence(run)
    return f"{sentence}; victims recreated (the cascade)" if run.recreate_victims else sentence


def _workload_compute(
    analysis: Analysis, cluster: Cluster, budget: AnalysisBudget, *, default_profile: bool = False
) -> WorkloadRun:
    """The run under the analysis' configuration, or kube-scheduler's default profile."""
    run_of = analysis.parent if analysis.parent_id is not None else analysis
    assert run_of is not None
    return workload_simulate(
        cluster=cluster,
        made=run_of.pod["made"],
        pods=run_of.pod["pods"],
        recreate_victims=run_of.recreate_victims,
        timeline=run_of.timeline,
        on_cycle=budget.watch(
            Progress(analysis.pk) if run_of is analysis and not default_profile else None
        ),
        cycle_limit=budget.cycle_limit(default_cycle_limit(len(run_of.pod["pods"]))),
        priority_classes=run_of.priority_classes,
        scheduler_config=None if default_profile else analysis.scheduler.effective,
        objects=run_of.pod.get("objects"),
        skipped=dict(run_of.pod["skipped"]) if "skipped" in run_of.pod else None,
    )


def workload_store(
    analysis: Analysis, cluster: Cluster, *, cached: bool, t0: float, t1: float
) -> Analysis:
    budget = AnalysisBudget.from_settings()
    try:
        run = _workload_compute(analysis, cluster, budget)
    except InvalidInput as e:
        return analysis_fail(analysis_id=analysis.pk, error=f"The workload is invalid: {e}")
    except OutOfTime as e:
        return analysis_fail(analysis_id=analysis.pk, error=e.message)
    t2 = time.perf_counter()
    stored = run.to_json()
    too_large = result_too_large(len(orjson.dumps(stored)), budget)
    if too_large:
        return analysis_fail(analysis_id=analysis.pk, error=too_large)
    difference = ""
    if analysis.parent_id is None and not analysis.scheduler.is_default:
        with_default = _workload_compute(analysis, cluster, budget, default_profile=True)
        difference = difference_sentence(analysis.scheduler, run, with_default)
    return analysis_done(
        analysis,
        load_seconds=0.0 if cached else t1 - t0,
        engine_seconds=t2 - t1,
        outcome=workload_outcome(run),
        summary=workload_summary(run)[:500],
        simulation=stored,
        progress_cycle=len(run.cycles),
        scheduler_difference=difference[:500],
    )
