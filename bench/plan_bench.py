"""Priority-plan benchmark: plan_ladder + audit on a loaded cluster.

The cluster comes from bench/generate_cluster.py (cached under bench/out/), with what
the audit looks for mixed in so its rules do real work: every node's first pod turned
into a DaemonSet pod at the default priority, one pod in ten given a 300 s grace
period, one in 500 a required pod affinity, and ResourceQuotas scoped to the top class
in a few namespaces. Run: .venv/bin/python -m bench.plan_bench [--large]
"""

from __future__ import annotations

import gc
import resource
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from bench.generate_cluster import generate, run_sized
from scheduling.engine import load_cluster
from scheduling.engine.plan import audit, plan_ladder

OUT = Path(__file__).resolve().parent / "out"


def _snapshot(nodes: int, pods: int, pdbs: int, seed: int = 1) -> dict[str, Any]:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"plan-{nodes}n-{pods}p-{pdbs}b-s{seed}.json"
    if not path.exists():
        path.write_bytes(orjson.dumps(_with_plan_cases(generate(nodes, pods, pdbs, seed))))
    snapshot: dict[str, Any] = orjson.loads(path.read_bytes())
    return snapshot


def _with_plan_cases(snapshot: dict[str, Any]) -> dict[str, Any]:
    items = snapshot["items"]
    seen_nodes: set[str] = set()
    j = 0
    for obj in items:
        if obj["kind"] != "Pod":
            continue
        spec, meta = obj["spec"], obj["metadata"]
        if spec["nodeName"] not in seen_nodes:
            seen_nodes.add(spec["nodeName"])
            meta["name"] = f"node-agent-{spec['nodeName']}"
            meta["namespace"] = "kube-system"
            meta["labels"] = {"app": "node-agent"}
            meta["ownerReferences"] = [
                {
                    "apiVersion": "apps/v1",
                    "kind": "DaemonSet",
                    "name": "node-agent",
                    "controller": True,
                }
            ]
            spec["priorityClassName"], spec["priority"] = "default-apps", 0
        elif j % 500 == 0:
            spec["affinity"] = {
                **spec.get("affinity", {}),
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "topologyKey": "topology.kubernetes.io/zone",
                            "labelSelector": {"matchLabels": {"tier": "web"}},
                        }
                    ]
                },
            }
        if j % 10 == 0:
            spec["terminationGracePeriodSeconds"] = 300
        j += 1
    for k in range(5):
        items.append(
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"name": "critical-apps", "namespace": f"team-{k}"},
                "spec": {
                    "hard": {"pods": "50"},
                    "scopeSelector": {
                        "matchExpressions": [
                            {
                                "scopeName": "PriorityClass",
                                "operator": "In",
                                "values": ["critical-apps"],
                            }
                        ]
                    },
                },
            }
        )
    return snapshot


def run(nodes: int, pods: int, pdbs: int) -> None:
    snapshot = _snapshot(nodes, pods, pdbs)
    gc.collect()
    t0 = time.perf_counter()
    cluster = load_cluster(snapshot)
    t1x = time.perf_counter()
    # As in the app, where the cluster comes from its stored form: no parsed JSON about.
    del snapshot
    gc.collect()
    t1 = time.perf_counter()
    c1 = time.process_time()
    ladder = plan_ladder(cluster)
    t2 = time.perf_counter()
    findings = audit(cluster)
    t3 = time.perf_counter()
    # CPU time as well as wall time: on a shared machine the latter counts others' work.
    cpu = time.process_time() - c1
    payload = orjson.dumps(
        {"ladder": ladder.to_dict(), "findings": [f.to_dict() for f in findings]}
    )
    t4 = time.perf_counter()
    again = audit(cluster, critical_classes=["standard", "critical-apps"])
    t5 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    by_rule = Counter(f.rule for f in findings)
    print(
        f"{nodes} nodes / {len(cluster.pods)} pods / {len(cluster.pdbs)} PDBs: "
        f"load_cluster {t1x - t0:.2f}s; plan_ladder {t2 - t1:.3f}s + audit {t3 - t2:.3f}s "
        f"= {t3 - t1:.3f}s after load ({cpu:.3f}s of CPU) (JSON {t4 - t3:.3f}s, {len(payload) / 1024:.0f} KiB); "
        f"audit again with other critical classes {t5 - t4:.3f}s ({len(again)} findings); "
        f"peak RSS {peak:.0f} MiB"
    )
    print("  findings: " + ", ".join(f"{rule} {n}" for rule, n in by_rule.items()))


def main() -> None:
    run_sized(run)


if __name__ == "__main__":
    main()
