"""Taking nodes away benchmark: after load_cluster, time take_nodes_away() on the
generated cluster.

- "drain 10": a rolling drain (one node at a time, force) of ten nodes of zone-a,
  about 300 pods; the goal is 10 s on the large cluster;
- "drain 10 at once": the same with max_unavailable 10 (every pod tried even where a
  budget blocks the rolling drain at its first node);
- "lose 1,000": 1,000 nodes of zone-a lost at once, under the analysis budget a
  worker gives (scheduling/running/budgets.py: PREEMPTLAB_ANALYSIS_MAX_CYCLES cycles, the
  default 20,000, and PREEMPTLAB_ANALYSIS_SECONDS, 120 s): it finishes or stops at
  the cycle limit saying what it reached.

Run: .venv/bin/python -m bench.take_nodes_away_bench [--large]   (500 nodes; --large: 5,000)
"""

from __future__ import annotations

import gc
import os
import resource
import time

import orjson

from bench.generate_cluster import generate, run_sized
from scheduling.engine import load_cluster
from scheduling.engine.cluster import Cluster
from scheduling.engine.simulate import default_cycle_limit
from scheduling.engine.take_nodes_away import TakeNodesAway, take_nodes_away

# The worker's defaults (config/settings.py), read here without Django.
MAX_CYCLES = 20_000
MAX_SECONDS = 120.0


def zone_nodes(cluster: Cluster, zone: str, count: int) -> tuple[str, ...]:
    names = sorted(
        n.name for n in cluster.nodes if n.labels.get("topology.kubernetes.io/zone") == zone
    )
    return tuple(names[:count])


def measure(cluster: Cluster, label: str, request: TakeNodesAway, budget: bool) -> None:
    pods = sum(len(cluster.node_info_by_name[n].pods) for n in request.nodes)
    limit = min(default_cycle_limit(pods), MAX_CYCLES) if budget else None
    gc.collect()
    t0 = time.perf_counter()
    # The worker's time budget, a little before it, so the answer says what it reached.
    deadline = time.monotonic() + MAX_SECONDS - 5 if budget else None
    r = take_nodes_away(cluster, request, cycle_limit=limit, deadline=deadline)
    elapsed = time.perf_counter() - t0
    within = "" if elapsed <= MAX_SECONDS else f" (past the {MAX_SECONDS:.0f} s budget)"
    print(
        f"  {label}: {len(request.nodes):,} nodes, {pods:,} pods on them, in {elapsed:.2f}s{within}; "
        f"verdict {r.verdict}, {r.cycles:,}/{r.cycle_limit:,} cycles, "
        f"stop {r.stop_reason}, {r.moved:,} returned and running, {len(r.pending):,} pending, "
        f"{len(r.preempted):,} preempted, {r.duration:.0f} s on the clock\n"
        f"    {r.sentence}"
    )


def run(nodes: int, pods: int, pdbs: int) -> None:
    snapshot = orjson.loads(orjson.dumps(generate(nodes, pods, pdbs, seed=1)))
    t0 = time.perf_counter()
    cluster = load_cluster(snapshot)
    del snapshot
    gc.collect()
    print(
        f"{nodes} nodes / {pods} pods / {pdbs} PDBs: load_cluster {time.perf_counter() - t0:.2f}s, "
        f"RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    ten = zone_nodes(cluster, "zone-a", 10)
    measure(cluster, "drain 10", TakeNodesAway(nodes=ten, force=True), budget=False)
    # The same ten at once: every pod is tried even where a budget blocks the first node.
    at_once = TakeNodesAway(nodes=ten, force=True, max_unavailable=10)
    measure(cluster, "drain 10 at once", at_once, budget=False)
    zone = zone_nodes(cluster, "zone-a", min(1000, nodes // 5))
    measure(cluster, "lose 1,000", TakeNodesAway(nodes=zone, how="lost"), budget=True)


def main() -> None:
    run_sized(run)


if __name__ == "__main__":
    main()
