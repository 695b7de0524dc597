"""The "what if this pod had class X" page on a large snapshot: GET the form, POST the clone.

    DEBUG=1 DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python bench/clone_bench.py [--nodes 5000 --pods 150000 --pdbs 2000]

Reuses analysis_bench's cached cluster file under bench/out/, ingests it into a
throwaway database through the snapshots service, then times the clone page of
a few pods (GET) and the clone's submission (POST, which stores a queued
analysis; tasks run eagerly off, so nothing is sent to a broker). Target: 300 ms.
Run on demand; never part of the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pages import large_snapshot_client, size_arguments  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    size_arguments(ap)
    args = ap.parse_args()

    with large_snapshot_client(args) as (client, snapshot):
        from clusters.models import Pod

        rows = list(Pod.objects.filter(snapshot=snapshot).order_by("pk"))
        picks = [rows[0], rows[len(rows) // 2], rows[-1]]
        get_times, post_times = [], []
        with mock.patch("scheduling.services.common.analysis_enqueue"):
            for i in range(args.runs):
                row = picks[i % len(picks)]
                url = f"/snapshots/{snapshot.pk}/pods/{row.pk}/what-if/"
                t0 = time.perf_counter()
                r = client.get(url)
                get_times.append((time.perf_counter() - t0) * 1000)
                assert r.status_code == 200, (url, r.status_code)
                t0 = time.perf_counter()
                r = client.post(url, {"priority_class": "critical-apps"})
                post_times.append((time.perf_counter() - t0) * 1000)
                assert r.status_code == 302, (url, r.status_code, r.content[:2000])
        for label, times in (("GET clone page", get_times), ("POST clone", post_times)):
            print(
                f"{label} on {snapshot.pod_count:,} pods: median {statistics.median(times):.0f} ms, "
                f"max {max(times):.0f} ms over {len(times)} (target <= 300 ms)"
            )


if __name__ == "__main__":
    main()
