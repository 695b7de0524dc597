"""The product side of a workload what-if, timed: expanding and admitting a Deployment,
keeping the run for the page (WorkloadRun), its stored size, and rendering the result
page's body, for 100 replicas that preempt and 1,000 that fit (as in simulate_bench).

Run: DEBUG=1 .venv/bin/python -m bench.workload_page_bench [--large]
(500 nodes; --large: 5,000 nodes / 150,000 pods / 2,000 PDBs). Needs no database.
"""

from __future__ import annotations

import os
import time
from typing import Any

import django
import orjson

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.template.loader import render_to_string  # noqa: E402

from bench.generate_cluster import generate, run_sized  # noqa: E402
from bench.simulate_bench import replicas  # noqa: E402
from scheduling.analyses.workloads import WorkloadRun  # noqa: E402
from scheduling.engine import load_cluster, simulate  # noqa: E402
from scheduling.engine.workload import admit, expand_workload  # noqa: E402
from scheduling.models import Analysis  # noqa: E402
from scheduling.views.contexts import workload_context  # noqa: E402


def deployment(name: str, count: int, cpu: str, memory: str, cls: str) -> dict[str, Any]:
    """simulate_bench's replica pod as the template of a Deployment of ``count``."""
    spec = replicas(name, 1, cpu, memory, cls)[0]["spec"]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "bench"},
        "spec": {
            "replicas": count,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        },
    }


def measure(cluster: Any, label: str, obj: dict[str, Any]) -> None:
    t0 = time.perf_counter()
    workload = expand_workload([obj], max_replicas=10_000)
    admit(workload, cluster.resolver)
    t1 = time.perf_counter()
    sim = simulate(cluster, workload.pods)
    t2 = time.perf_counter()
    stored = WorkloadRun.from_simulation(sim, workload).to_json()
    size = len(orjson.dumps(stored))
    t3 = time.perf_counter()
    run = WorkloadRun.from_json(orjson.loads(orjson.dumps(stored)))
    analysis = Analysis(pk=1, kind="workload", status="done", pod={"objects": [obj]})
    html = render_to_string(
        "scheduling/partials/workload.html",
        {"analysis": analysis, "shared": False, **workload_context(run)},
    )
    t4 = time.perf_counter()
    print(
        f"  {label}: {len(workload.pods)} replicas; expand+admit {t1 - t0:.3f}s, "
        f"simulate {t2 - t1:.2f}s ({len(sim.cycles)} cycles, {len(sim.deleted_victims)} "
        f"victims), keep for the page {t3 - t2:.3f}s, stored {size / 1024:.0f} KiB, "
        f"read back + render page body {t4 - t3:.3f}s ({len(html) / 1024:.0f} KiB of HTML)"
    )


def run(nodes: int, pods: int, pdbs: int) -> None:
    t0 = time.perf_counter()
    cluster = load_cluster(orjson.loads(orjson.dumps(generate(nodes, pods, pdbs, seed=1))))
    print(f"{nodes} nodes / {pods} pods / {pdbs} PDBs: loaded in {time.perf_counter() - t0:.1f}s")
    measure(cluster, "preempt", deployment("urgent", 100, "28", "8Gi", "critical-apps"))
    measure(cluster, "fit", deployment("small", 1000, "50m", "64Mi", "critical-apps"))


if __name__ == "__main__":
    run_sized(run)
