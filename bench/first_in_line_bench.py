"""First-in-line benchmark: every app of bench/generate_cluster's cluster ranked.

One capacity() run of ``limit`` probe replicas per priority level in use (never one per
app): the generated cluster has four user levels, each probed at level + 1. The time
printed covers the plan index (apps, budgets) and every run; the cluster is loaded
before the clock starts, as the Plan tab finds it in the cluster cache.
Run: .venv/bin/python -m bench.first_in_line_bench [--large]
"""

from __future__ import annotations

import gc
import resource
import time

import orjson

from bench.generate_cluster import generate, run_sized
from scheduling.engine import load_cluster
from scheduling.engine.plan.first_in_line import (
    DEFAULT_CPU_MILLIS,
    DEFAULT_LIMIT,
    DEFAULT_MEMORY_BYTES,
    first_in_line,
)


def run(nodes: int, pods: int, pdbs: int) -> None:
    t0 = time.perf_counter()
    cluster = load_cluster(orjson.loads(orjson.dumps(generate(nodes, pods, pdbs, seed=1))))
    gc.collect()
    print(f"{nodes} nodes / {pods} pods / {pdbs} PDBs loaded in {time.perf_counter() - t0:.1f}s")
    for limit in (DEFAULT_LIMIT, 200):
        t0 = time.perf_counter()
        answer = first_in_line(
            cluster,
            cpu_millis=DEFAULT_CPU_MILLIS,
            memory_bytes=DEFAULT_MEMORY_BYTES,
            limit=limit,
        )
        elapsed = time.perf_counter() - t0
        reached = sum(1 for a in answer.apps if a.absorbed is not None)
        print(
            f"  limit {limit}: {elapsed:.2f}s for {len(answer.apps)} apps "
            f"({reached} reached within the limit), {len(answer.runs)} runs"
        )
        for r in answer.runs:
            print(f"    level {r.priority}: {r.apps} apps, {r.placed} placed, {r.victims} victims")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak memory {peak:.0f} MiB")


def main() -> None:
    run_sized(run)


if __name__ == "__main__":
    main()
