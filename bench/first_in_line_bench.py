"""First-in-line benchmark: every app of bench/generate_cluster's cluster ranked.

One capacity() run of ``limit`` probe replicas per priority level in use (never one per
app). The generated cluster draws each pod's class at random, so nearly every app has a
pod at batch-low (-100) and is probed there: two runs. A second copy gives every app
the class of its first pod, as real apps have one class: then all four levels are probed
(critical-apps too: the system classes are above it). Two sizes: 1 CPU / 2Gi (the
default; the cluster has room for most of them) and 28 CPU / 8Gi (more than any node has
free, as in capacity_bench: every replica preempts). The time printed covers the plan
index (apps, budgets) and every run; the cluster is loaded before the clock starts, as
the Plan tab finds it in the cluster cache.
Run: .venv/bin/python -m bench.first_in_line_bench [--large]
"""

from __future__ import annotations

import gc
import resource
import time
from typing import Any

import orjson

from bench.generate_cluster import generate, run_sized
from scheduling.engine import load_cluster
from scheduling.engine.cluster import Cluster
from scheduling.engine.plan.first_in_line import DEFAULT_LIMIT, MAX_LIMIT, first_in_line

GIB = 1024**3
SIZES = ((1000, 2 * GIB), (28_000, 8 * GIB))


def one_class_per_app(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Every pod of an app (its ReplicaSet) in the class of the app's first pod."""
    first: dict[str, tuple[str, int]] = {}
    for obj in snapshot["items"]:
        if obj["kind"] != "Pod":
            continue
        owner = obj["metadata"]["ownerReferences"][0]["name"]
        spec = obj["spec"]
        cls, prio = first.setdefault(owner, (spec["priorityClassName"], spec["priority"]))
        spec["priorityClassName"], spec["priority"] = cls, prio
    return snapshot


def measure(label: str, cluster: Cluster) -> None:
    for cpu, memory in SIZES:
        for limit in (DEFAULT_LIMIT, MAX_LIMIT):
            t0 = time.perf_counter()
            answer = first_in_line(cluster, cpu_millis=cpu, memory_bytes=memory, limit=limit)
            elapsed = time.perf_counter() - t0
            reached = sum(1 for a in answer.apps if a.absorbed is not None)
            runs = ", ".join(
                f"{r.priority}: {r.apps} apps, {r.placed} placed, {r.victims} victims"
                for r in answer.runs
            )
            print(
                f"  {label}, {cpu}m / {memory // GIB}Gi, limit {limit}: {elapsed:.2f}s, "
                f"{len(answer.apps)} apps ({reached} reached); runs {runs}"
            )


def run(nodes: int, pods: int, pdbs: int) -> None:
    raw = orjson.dumps(generate(nodes, pods, pdbs, seed=1))
    print(f"{nodes} nodes / {pods} pods / {pdbs} PDBs")
    measure("as generated", load_cluster(orjson.loads(raw)))
    gc.collect()
    measure("one class per app", load_cluster(one_class_per_app(orjson.loads(raw))))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak memory {peak:.0f} MiB")


def main() -> None:
    run_sized(run)


if __name__ == "__main__":
    main()
