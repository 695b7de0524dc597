"""The pods page on a large snapshot: each filter, the name search, each sort, a jump
to the middle page.

    DEBUG=1 DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python bench/pods_page_bench.py [--nodes 5000 --pods 150000 --pdbs 2000]

Reuses analysis_bench's cached cluster file under bench/out/, ingests it into a
throwaway database, then GETs the pods page (as htmx asks for its panel) for
each query and prints the median of --runs. Run on demand; never a test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pages import large_snapshot_client, size_arguments  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    size_arguments(ap)
    args = ap.parse_args()

    with large_snapshot_client(args) as (client, snapshot):
        from clusters.models import Pod

        some = Pod.objects.filter(snapshot=snapshot).exclude(node_name="").order_by("pk")
        pod = some[snapshot.pod_count // 3]
        middle = (snapshot.pod_count // 50) // 2
        queries = {
            "plain": {},
            "name contains": {"q": pod.name[-6:]},
            "node exact": {"node": pod.node_name},
            "node substring": {"node": pod.node_name[:-1]},
            "namespace": {"namespace": pod.namespace},
            "sort -priority": {"sort": "-priority"},
            "sort node": {"sort": "node"},
            "sort -start": {"sort": "-start"},
            f"jump to page {middle:,}": {"page": str(middle)},
            f"sort -priority, page {middle:,}": {"sort": "-priority", "page": str(middle)},
        }
        url = f"/snapshots/{snapshot.pk}/pods/"
        for label, params in queries.items():
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                r = client.get(url, params, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="pods-panel")
                times.append((time.perf_counter() - t0) * 1000)
                assert r.status_code == 200, (label, r.status_code)
            print(
                f"{label:32} on {snapshot.pod_count:,} pods: median {statistics.median(times):.0f} ms, "
                f"max {max(times):.0f} ms over {len(times)}"
            )


if __name__ == "__main__":
    main()
