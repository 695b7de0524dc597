"""What a scheduler profile costs: the exhaustive what-if of engine_bench under the default
profile and under each preset, on one loaded cluster, rounds alternating in order and
reversed so a noisy machine weighs on every profile alike, the garbage of one run
collected before the next is timed; medians, and each profile's ratio to the default.

Run: .venv/bin/python -m bench.profile_bench [--large] (5,000 nodes / 150,000 pods)
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

import orjson

from bench.engine_bench import _preemptor
from bench.generate_cluster import generate, run_sized
from scheduling.engine import analyze, load_cluster, load_scheduler_config, presets

ROUNDS = 7


def run(nodes: int, pods: int, pdbs: int) -> None:
    cluster = load_cluster(orjson.loads(orjson.dumps(generate(nodes, pods, pdbs, seed=1))))
    configs: dict[str, Any] = {"(none: the default path)": None}
    for preset in presets():
        configs[preset.name] = load_scheduler_config(preset.config, preset=preset.name)
    times: dict[str, list[float]] = {name: [] for name in configs}
    answers: dict[str, str] = {}
    for i in range(ROUNDS):
        for name in list(configs) if i % 2 else list(configs)[::-1]:
            config = configs[name]
            gc.collect()
            t0 = time.perf_counter()
            result = analyze(cluster, _preemptor(), scheduler_config=config)
            times[name].append(time.perf_counter() - t0)
            answers[name] = f"{result.outcome} on {result.node}, {len(result.victims)} victims"
    base = statistics.median(times["(none: the default path)"])
    print(f"{nodes} nodes / {pods} pods / {pdbs} PDBs, median of {ROUNDS} rounds:")
    for name, spent in times.items():
        median = statistics.median(spent)
        print(f"  {name:<34} {median:7.3f}s  x{median / base:5.2f}  {answers[name]}")


def main() -> None:
    run_sized(run)


if __name__ == "__main__":
    main()
