"""Engine benchmark: load_cluster from parsed JSON, one what-if ending in preemption
over every node, peak memory. Run: .venv/bin/python -m bench.engine_bench [--large]

--dense: the dense what-if instead (5,000 nodes each packed with 30 pods below the
pending pod, 2,170 PodDisruptionBudgets: every untainted node is a candidate and all
its 30 pods go through victim selection), timed ROUNDS times against a fixed
calibration loop, rounds alternating, garbage collected before each timing; the
median, and the what-if's ratio to the loop. With --against CHECKOUT (another git
worktree, say of the commit before a change), that checkout's engine is timed in the
same rounds, in a process of its own beside this one's, and both answers must agree.
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from bench.generate_cluster import DENSE, LARGE, SMALL, dense_preemptor, generate
from scheduling.engine import analyze, load_cluster

ROUNDS = 9
ROOT = Path(__file__).resolve().parent.parent


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


def calibration_loop() -> float:
    """Seconds of a fixed pure-Python workload (dict and list updates, integer arithmetic:
    what the engine's hot loops do), to read the engine's times against on a machine
    whose speed varies from minute to minute."""
    t0 = time.perf_counter()
    totals: dict[int, int] = {}
    rows: list[int] = []
    for i in range(2_800_000):
        k = i % 997
        totals[k] = totals.get(k, 0) + i
        if i % 3 == 0:
            rows.append(i * i % 7)
    assert len(totals) == 997 and len(rows) == 933_334
    return time.perf_counter() - t0


class Worker:
    """A what-if timed in a process of its own, on the engine of ``checkout``."""

    def __init__(self, checkout: Path, snapshot: Path, pod: Path) -> None:
        self.checkout = checkout
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "bench" / "whatif_worker.py"),
                str(checkout),
                str(snapshot),
                str(pod),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        if self.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the worker on {checkout} did not load the snapshot")

    def run(self) -> dict[str, Any]:
        self.stdin.write("run\n")
        self.stdin.flush()
        report: dict[str, Any] = orjson.loads(self.stdout.readline())
        return report

    def close(self) -> None:
        self.stdin.close()
        self.proc.wait(timeout=60)


def run_dense(rounds: int, against: Path | None) -> None:
    """The dense what-if: this checkout (and ``against``), rounds alternating with the
    calibration loop; the first what-if on each fresh cluster is reported apart (it
    also sorts every node's pods once for the ones after it)."""
    nodes, pods, pdbs = DENSE
    with tempfile.TemporaryDirectory(prefix="dense-bench-") as tmp:
        snapshot, pod = Path(tmp) / "snapshot.json", Path(tmp) / "pod.json"
        snapshot.write_bytes(orjson.dumps(generate(nodes, pods, pdbs, seed=1, dense=True)))
        pod.write_bytes(orjson.dumps(dense_preemptor()))
        sides = {"new": Worker(ROOT, snapshot, pod)}
        if against is not None:
            sides["old"] = Worker(against, snapshot, pod)
        try:
            first = {name: w.run() for name, w in sides.items()}
            times: dict[str, list[float]] = {name: [] for name in [*sides, "calibration"]}
            answers = {name: {r["answer"]} for name, r in first.items()}
            for i in range(rounds):
                order = [*sides, "calibration"]
                for name in order if i % 2 else order[::-1]:
                    if name == "calibration":
                        gc.collect()
                        times[name].append(calibration_loop())
                        continue
                    report = sides[name].run()
                    times[name].append(report["seconds"])
                    answers[name].add(report["answer"])
        finally:
            for w in sides.values():
                w.close()
    calibration = statistics.median(times["calibration"])
    print(
        f"dense: {nodes} nodes / {pods} pods ({pods // nodes} a node, all below the pending "
        f"pod) / {pdbs} PDBs: {first['new']['outcome']} on {first['new']['node']}; "
        f"median of {rounds} rounds, calibration loop {calibration:.3f}s"
    )
    for name, w in sides.items():
        median = statistics.median(times[name])
        print(
            f"  {name} ({w.checkout}): what-if {median:.3f}s = {median / calibration:.2f}x the "
            f"loop (runs {min(times[name]):.3f}-{max(times[name]):.3f}s; first on a fresh "
            f"cluster {first[name]['seconds']:.3f}s)"
        )
    if "old" in sides:
        old, new = statistics.median(times["old"]), statistics.median(times["new"])
        print(f"  new / old: {new / old:.2f} (old / new: {old / new:.2f}x faster)")
        same = answers["old"] == answers["new"] and len(answers["new"]) == 1
        print(f"  answers {'identical' if same else 'DIFFER'} (Result.to_dict() of every run)")
        if not same:
            raise SystemExit(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--large", action="store_true", help="5,000 nodes / 150,000 pods / 2,000 PDBs")
    ap.add_argument("--dense", action="store_true", help="the dense what-if (see above)")
    ap.add_argument("--rounds", type=int, default=ROUNDS, help="timed rounds of --dense")
    ap.add_argument("--against", type=Path, help="with --dense: another checkout to time")
    args = ap.parse_args()
    if args.dense:
        run_dense(args.rounds, args.against)
    else:
        run(*(LARGE if args.large else SMALL))


if __name__ == "__main__":
    main()
