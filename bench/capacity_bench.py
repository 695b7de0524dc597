"""Room per tier benchmark: capacity() on the generated cluster, per replica.

- "preempt": a critical-apps pod of 28 cpu / 8Gi (more than any node has free, as in
  simulate_bench): every replica preempts;
- "fit": a standard pod of 2 cpu / 4Gi: most replicas fit as the cluster stands;
- "by class": capacity_by_class for 2 cpu / 4Gi, every user class.

Run: .venv/bin/python -m bench.capacity_bench [--large]   (500 nodes; --large: 5,000 nodes)
"""

from __future__ import annotations

import gc
import time
from typing import Any

import orjson

from bench.generate_cluster import generate, run_sized
from bench.simulate_bench import replicas
from scheduling.engine import load_cluster
from scheduling.engine.capacity import capacity, capacity_by_class

LIMIT = 50


def template(cls: str, cpu: str, memory: str) -> dict[str, Any]:
    """One pod of simulate_bench's replicas: capacity() makes the ReplicaSet of it."""
    return replicas("room", 1, cpu, memory, cls)[0]


def run(nodes: int, pods: int, pdbs: int) -> None:
    cluster = load_cluster(orjson.loads(orjson.dumps(generate(nodes, pods, pdbs, seed=1))))
    gc.collect()
    print(f"{nodes} nodes / {pods} pods / {pdbs} PDBs, limit {LIMIT}")
    for label, pod in (
        ("preempt", template("critical-apps", "28", "8Gi")),
        ("fit", template("standard", "2", "4Gi")),
    ):
        t0 = time.perf_counter()
        answer = capacity(cluster, pod, limit=LIMIT)
        elapsed = time.perf_counter() - t0
        print(
            f"  {label}: {elapsed:.2f}s, {elapsed / LIMIT * 1000:.0f} ms a replica; "
            f"{answer.fit_now} now, {answer.fit_by_preempting} by preempting "
            f"{len(answer.victims)} pods, {answer.unplaced} unplaced, {answer.cycles} cycles"
        )
    t0 = time.perf_counter()
    table = capacity_by_class(cluster, "2", "4Gi", limit=LIMIT)
    elapsed = time.perf_counter() - t0
    print(f"  by class: {len(table.rows)} classes in {elapsed:.2f}s")


def main() -> None:
    run_sized(run)


if __name__ == "__main__":
    main()
