"""Workload simulation benchmark: after load_cluster, roll out N replicas through
simulate() and time it, with the memory it takes above the loaded cluster.

- "preempt": 100 replicas of a critical-apps pod that only fits by preempting (28 cpu,
  8Gi: more than any node of the generated cluster has free, as in engine_bench);
- "fit": 1,000 replicas of a small pod (50m cpu, 64Mi) that fit without preemption;
- "preempt, timeline": the 100 preempting replicas with timeline=True: every victim
  keeps its room for its grace period (the generated pods set none: 30 s).

Run: .venv/bin/python -m bench.simulate_bench [--large]   (500 nodes; --large: 5,000 nodes)
"""

from __future__ import annotations

import gc
import resource
import time
import tracemalloc
from typing import Any

import orjson

from bench.generate_cluster import generate, run_sized
from scheduling.engine import load_cluster, simulate


def replicas(name: str, count: int, cpu: str, memory: str, cls: str) -> list[dict[str, Any]]:
    owner = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": f"{name}-7d9f",
        "controller": True,
    }
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"{name}-7d9f-{i:05d}",
                "namespace": "bench",
                "labels": {"app": name},
                "ownerReferences": [owner],
            },
            "spec": {
                "priorityClassName": cls,
                "containers": [
                    {
                        "name": "c",
                        "image": "x",
                        "resources": {"requests": {"cpu": cpu, "memory": memory}},
                    }
                ],
            },
        }
        for i in range(count)
    ]


def measure(cluster: Any, label: str, pods: list[dict[str, Any]], timeline: bool = False) -> None:
    gc.collect()
    t0 = time.perf_counter()
    sim = simulate(cluster, pods, timeline=timeline)
    elapsed = time.perf_counter() - t0
    # Memory is measured on a second run: tracemalloc slows Python down several times.
    del sim
    gc.collect()
    tracemalloc.start()
    sim = simulate(cluster, pods, timeline=timeline)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    bound = sum(p.bound for p in sim.pods)
    clock = f", {sim.timeline.duration:.0f}s on the clock" if sim.timeline else ""
    print(
        f"  {label}: {len(pods)} replicas in {elapsed:.2f}s, {len(sim.cycles)} cycles, "
        f"{bound} bound, {len(sim.deleted_victims)} victims, "
        f"{sum(r.exceeded for r in sim.pdb_report)} PDBs exceeded, stop {sim.stop_reason.value}"
        f"{clock}; "
        f"peak Python memory above the loaded cluster {peak / 2**20:.0f} MiB"
    )


def run(nodes: int, pods: int, pdbs: int) -> None:
    snapshot = orjson.loads(orjson.dumps(generate(nodes, pods, pdbs, seed=1)))
    t0 = time.perf_counter()
    cluster = load_cluster(snapshot)
    del snapshot
    gc.collect()
    print(
        f"{nodes} nodes / {pods} pods / {pdbs} PDBs: load_cluster {time.perf_counter() - t0:.2f}s, "
        f"RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )
    measure(cluster, "preempt", replicas("urgent", 100, "28", "8Gi", "critical-apps"))
    measure(cluster, "fit", replicas("small", 1000, "50m", "64Mi", "critical-apps"))
    urgent = replicas("urgent", 100, "28", "8Gi", "critical-apps")
    measure(cluster, "preempt, timeline", urgent, timeline=True)


def main() -> None:
    run_sized(run)


if __name__ == "__main__":
    main()
