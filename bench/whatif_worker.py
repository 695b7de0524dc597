"""One side of engine_bench's old-against-new comparison: a process that loads a
snapshot with the engine of the checkout it is given and times one what-if each time
it is asked, so two checkouts can be timed in turn on one machine.

Run by engine_bench (not by hand): python bench/whatif_worker.py CHECKOUT SNAPSHOT POD
(SNAPSHOT and POD are JSON files). It answers "ready" once the cluster is loaded, then
to each line "run" one JSON line: the what-if's seconds (garbage collected before the
timing), its outcome and node, and a digest of the whole answer (Result.to_dict()).
"""

from __future__ import annotations

import gc
import hashlib
import sys
import time
from pathlib import Path


def main() -> None:
    checkout, snapshot, pod_file = sys.argv[1:4]
    sys.path.insert(0, checkout)  # this checkout's engine, not the one beside this file
    import orjson

    from scheduling.engine import analyze, load_cluster

    cluster = load_cluster(orjson.loads(Path(snapshot).read_bytes()))
    pod = orjson.loads(Path(pod_file).read_bytes())
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            break
        gc.collect()
        t0 = time.perf_counter()
        result = analyze(cluster, pod)
        seconds = time.perf_counter() - t0
        answer = hashlib.sha256(
            orjson.dumps(result.to_dict(), option=orjson.OPT_SORT_KEYS)
        ).hexdigest()
        report = {
            "seconds": seconds,
            "outcome": str(result.outcome),
            "node": result.node,
            "answer": answer,
        }
        print(orjson.dumps(report).decode(), flush=True)


if __name__ == "__main__":
    main()
