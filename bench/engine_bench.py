"""Engine benchmark: load_cluster from parsed JSON, one what-if ending in preemption
over every node, peak memory. Run: .venv/bin/python -m bench.engine_bench [--large]"""

from __future__ import annotations

import gc
import resource
import time

import orjson

from bench.generate_cluster import generate, run_sized
from scheduling.engine import analyze, load_cluster


def _preemptor() -> dict[str, object]:
    # Too big for any node's free room, small enough to fit once low-priority pods go.
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "whatif", "namespace": "default", "uid": "whatif"},
        "spec": {
            "priority": 1_000_000,
            "containers": [
                {
                    "name": "c",
                    "image": "x",
                    "resources": {"requests": {"cpu": "28", "memory": "8Gi"}},
                }
            ],
        },
    }


def _constrained_preemptor() -> dict[str, object]:
    """The same pod with a zone spread constraint and hostname anti-affinity: victim
    selection then runs every filter plugin with AddPod/RemovePod, not the resources-only path."""
    pod = _preemptor()
    pod["metadata"] = {**pod["metadata"], "labels": {"app": "whatif"}}  # type: ignore[dict-item]
    selector = {"matchLabels": {"app": "whatif"}}
    pod["spec"] = {
        **pod["spec"],  # type: ignore[dict-item]
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": selector,
            }
        ],
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "kubernetes.io/hostname", "labelSelector": selector}
                ]
            }
        },
    }
    return pod


def run(nodes: int, pods: int, pdbs: int) -> None:
    snapshot = orjson.loads(orjson.dumps(generate(nodes, pods, pdbs, seed=1)))
    gc.collect()
    t0 = time.perf_counter()
    cluster = load_cluster(snapshot)
    t1 = time.perf_counter()
    result = analyze(cluster, _preemptor())
    t2 = time.perf_counter()
    explanation = result.explanation
    stored = explanation.to_json()
    t2x = time.perf_counter()
    result2 = analyze(cluster, _preemptor())
    t3 = time.perf_counter()
    pre = explanation.preemption
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{nodes} nodes / {pods} pods / {pdbs} PDBs: load_cluster {t1 - t0:.2f}s, analyze {t2 - t1:.3f}s "
        f"(again {t3 - t2x:.3f}s), explanation + JSON {t2x - t2:.3f}s "
        f"({len(orjson.dumps(stored)) / 1024:.0f} KiB), "
        f"outcome {result.outcome} on {result.node}, {len(result.candidates)} candidates, "
        f"{pre.potential_nodes if pre else 0} potential nodes (real scheduler would dry-run "
        f"{pre.real_scheduler_would_sample if pre else 0}), fast path "
        f"{pre.resources_only_fast_path if pre else None}, "
        f"peak RSS {peak:.0f} MiB (includes the parsed JSON)"
    )
    assert result2.to_dict() == result.to_dict()
    t4 = time.perf_counter()
    constrained = analyze(cluster, _constrained_preemptor())
    t5 = time.perf_counter()
    cpre = constrained.explanation.preemption
    print(
        f"  with spread + anti-affinity: analyze {t5 - t4:.3f}s, outcome {constrained.outcome} on "
        f"{constrained.node}, {len(constrained.candidates)} candidates, "
        f"fast path {cpre.resources_only_fast_path if cpre else None}"
    )


def main() -> None:
    run_sized(run)


if __name__ == "__main__":
    main()
