"""Advice benchmark: after load_cluster, the full advice (every kind, at most 20
re-runs each) for a pod that preempts, and for a 100-replica workload that does.

- pod: engine_bench's preemptor (critical-apps priority, 28 cpu, 8Gi: more than any
  node has free, so it preempts on one of ~1,500 candidates);
- workload: a Deployment of 100 such replicas (simulate_bench's "preempt" rollout).

Targets (5,000 nodes): a pod's advice in 10 s, the workload's in 60 s.
Run: .venv/bin/python -m bench.advice_bench [--large]   (500 nodes; --large: 5,000)
"""

from __future__ import annotations

import gc
import time
from typing import Any

import orjson

from bench.engine_bench import _preemptor
from bench.generate_cluster import generate, run_sized
from scheduling.engine import load_cluster
from scheduling.engine.advice import Advice, PodQuestion, WorkloadQuestion, advise


def _deployment(replicas: int) -> dict[str, Any]:
    spec = _preemptor()["spec"]
    assert isinstance(spec, dict)
    template_spec = {k: v for k, v in spec.items() if k != "priority"}
    template_spec["priorityClassName"] = "critical-apps"
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "advice-bench", "namespace": "bench"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "advice-bench"}},
            "template": {"metadata": {"labels": {"app": "advice-bench"}}, "spec": template_spec},
        },
    }


def report(label: str, advice: Advice, seconds: float, target: float) -> None:
    print(
        f"  {label}: {seconds:.2f}s (target {target:.0f}s), {advice.runs} engine runs, "
        f"baseline {advice.baseline.outcome} with {len(advice.baseline.victims)} victims, "
        f"{len(advice.items)} items, stopped early: {advice.stopped_early}"
    )
    for s in advice.searches:
        print(
            f"    {s.kind.value:16} {s.runs:2} runs {s.seconds:6.2f}s"
            + (f"  (stopped: {s.stopped})" if s.stopped else "")
        )
    for item in advice.items:
        less = item.proof.one_step_less
        print(
            f"    - {item.summary}: {item.outcome}, {len(item.victims)} victims"
            + (f"; one step less: {less.outcome}, {len(less.victims)} victims" if less else "")
        )


def run(nodes: int, pods: int, pdbs: int) -> None:
    snapshot = orjson.loads(orjson.dumps(generate(nodes, pods, pdbs, seed=1)))
    cluster = load_cluster(snapshot)
    del snapshot
    print(f"{nodes} nodes / {pods} pods / {pdbs} PDBs")
    for label, question, target in (
        ("pod", PodQuestion(_preemptor()), 10.0),
        ("100-replica workload", WorkloadQuestion([_deployment(100)]), 60.0),
    ):
        gc.collect()
        t0 = time.perf_counter()
        advice = advise(cluster, question)
        report(label, advice, time.perf_counter() - t0, target)


def main() -> None:
    run_sized(run)


if __name__ == "__main__":
    main()
