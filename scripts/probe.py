"""`make probe`: replays what a hostile or careless user once did and prints the bounds.

On the embedded default (a fresh SQLite file and broker under a temporary var/), in this
process, through the pages and the API the way a browser and a script reach them, and
with the services a worker runs:

1. the alias bomb: 100 KB of YAML whose aliases expand to 1 GB, as a snapshot upload
   and as a what-if manifest;
2. the kept-file multiplication: a refused upload (with a Secret in it) posted again
   with kept=REF repeated 500 times;
3. the long workload: a 1,000-replica Deployment with anti-affinity, spread
   constraints and recreated victims on a 1,000-node snapshot, run as the worker runs
   it, with the default budget and again with a 15 s one; and a fifth submission of
   one user beside another's;
4. the padding bomb: a 1 MB .gz expanding to 1.07 GB of whitespace, uploaded 30 times
   at once by one user (how many are accepted, how many refused with 429 or 400), and
   the accepted ones ingested as a worker does (the memory one ingest takes);
5. the timed bomb: on the demo, a cat-1 Deployment whose pods take 2^62 s to terminate
   and a cat-2 one arriving 2 s later that preempts it, kept on a clock, run as the
   worker runs it; then the same with arrival-seconds 999999999;
6. a what-if pod with a 100 MB annotation, posted to the API (the answer, the
   analyses kept, the disk growth).

Prints a table: what was sent, the answer, time, peak memory growth, disk growth.
Never part of the tests (it takes the analysis budget, two minutes by default).
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VAR = Path(tempfile.mkdtemp(prefix="preemptlab-probe-"))
os.environ.update(
    {
        "DEBUG": "1",
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "PREEMPTLAB_VAR_DIR": str(VAR),
        "ALLOWED_HOSTS": "testserver",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
)
os.environ.pop("TEST_DB_NAME", None)

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.files.uploadedfile import SimpleUploadedFile  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402

from bench.generate_cluster import generate, spread_deployment  # noqa: E402
from clusters import services as cluster_services  # noqa: E402
from clusters.models import Snapshot  # noqa: E402
from scheduling import services  # noqa: E402
from scheduling.models import Analysis  # noqa: E402

ROWS: list[tuple[str, str, float, float, float]] = []
# A budget the long workload cannot finish in, to show where and how a run stops.
TIGHT_SECONDS = 15.0


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _disk_mib() -> float:
    return sum(p.stat().st_size for p in VAR.rglob("*") if p.is_file()) / 2**20


def measure(what: str, run: Any) -> Any:
    peak, disk, start = _peak_mib(), _disk_mib(), time.monotonic()
    answer, result = run()
    ROWS.append((what, answer, time.monotonic() - start, _peak_mib() - peak, _disk_mib() - disk))
    return result


def alias_bomb_yaml() -> bytes:
    """~100 KB: one anchored 100,000-character string and 10,000 aliases of it (1 GB)."""
    big = "x" * 100_000
    aliases = ",".join(["*big"] * 10_000)
    return (
        "apiVersion: v1\nkind: Pod\n"
        f"metadata: {{name: bomb, namespace: default, annotations: {{a: &big {big}}}}}\n"
        "spec:\n  nodeName: node-00000\n"
        f"  containers: [{{name: c, args: [{aliases}]}}]\n"
    ).encode()


def main() -> int:
    call_command("migrate", verbosity=0)
    users = get_user_model()
    alice = users.objects.create_user("alice", password="probe-alice-1")
    bob = users.objects.create_user("bob", password="probe-bob-1")
    web = Client()
    web.force_login(alice)

    bomb = alias_bomb_yaml()

    def upload_bomb() -> tuple[str, None]:
        r = web.post("/snapshots/new/", {"files": [SimpleUploadedFile("bomb.yaml", bomb)]})
        return f"{r.status_code}, {Snapshot.objects.count()} snapshots kept", None

    measure(f"alias bomb upload ({len(bomb) / 1024:,.0f} KB -> 1 GB)", upload_bomb)

    demo = cluster_services.snapshot_load_demo(owner=alice)

    def manifest_bomb() -> tuple[str, None]:
        r = web.post(
            f"/snapshots/{demo.pk}/analyses/new/",
            {"mode": "manifest", "manifest": bomb.decode()},
        )
        return f"{r.status_code}, {Analysis.objects.count()} analyses kept", None

    measure("alias bomb what-if manifest", manifest_bomb)

    secret = (
        b'{"kind":"List","items":[{"apiVersion":"v1","kind":"Secret","metadata":'
        b'{"name":"db"},"stringData":{"password":"hunter2"}},'
        + b'{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":"nope"}}'
        + b"]}"
    )
    padded = secret + b" " * (1_300_000 - len(secret))

    def kept_multiplication() -> tuple[str, None]:
        r = web.post("/snapshots/new/", {"files": [SimpleUploadedFile("s.json", padded)]})
        first = r.status_code
        r = web.post("/snapshots/new/", {"kept": ["0" * 32 + "/0"] * 500, "paste": ""})
        leaked = [p for p in VAR.rglob("*") if p.is_file() and b"hunter2" in p.read_bytes()]
        return f"{first} then {r.status_code}; files holding the Secret: {len(leaked)}", None

    measure("refused 1.3 MB upload, kept=REF x500", kept_multiplication)

    cluster = generate(1000, 3000, 20, seed=7)
    big = measure(
        "1,000-node snapshot (3,000 pods) ingested",
        lambda: _ingest(alice, cluster),
    )
    deployment = _long_workload()
    analysis = measure(
        "1,000-replica workload queued",
        lambda: _submit(web, big, deployment),
    )

    def run_it() -> tuple[str, None]:
        done = services.analysis_run(analysis_id=analysis.pk)  # the one submitted last
        words = done.error[:70] if done.error else done.simulation["contract"]["stop_reason"]
        return f"{done.status} after {done.progress_cycle:,} cycles: {words}", None

    limit = settings.PREEMPTLAB_ANALYSIS_SECONDS
    measure(f"... run as the worker runs it (budget {limit:g} s)", run_it)

    # The same run under a budget it cannot finish in: where and how it stops.
    settings.PREEMPTLAB_ANALYSIS_SECONDS = TIGHT_SECONDS
    analysis = _submit(web, big, deployment)[1]
    measure(f"... the same with a {TIGHT_SECONDS:g} s budget", run_it)
    settings.PREEMPTLAB_ANALYSIS_SECONDS = limit

    def fairness() -> tuple[str, None]:
        for _ in range(settings.PREEMPTLAB_UNFINISHED_PER_USER):
            _submit(web, demo, None)
        extra = web.post(
            f"/api/snapshots/{demo.pk}/analyses/", {"pod": _pod()}, content_type="application/json"
        )
        other = Client()
        other.force_login(bob)
        theirs = cluster_services.snapshot_load_demo(owner=bob)
        r = other.post(
            f"/api/snapshots/{theirs.pk}/analyses/",
            {"pod": _pod()},
            content_type="application/json",
        )
        return (
            f"alice's extra one {extra.status_code} (Retry-After {extra.get('Retry-After')}),"
            f" bob's {r.status_code}",
            None,
        )

    measure(f"{settings.PREEMPTLAB_UNFINISHED_PER_USER + 1} unfinished for one user", fairness)

    # Another user's: alice's unfinished what-ifs above hold all of her places.
    dave = users.objects.create_user("dave", password="probe-dave-1")
    dave_web = Client()
    dave_web.force_login(dave)
    dave_demo = cluster_services.snapshot_load_demo(owner=dave)
    _timed_bombs(dave_web, dave_demo)
    _annotation_bomb(dave_web, dave_demo)

    # Last: the padding bombs' ingests raise the process's peak past every row above.
    carol = users.objects.create_user("carol", password="probe-carol-1")
    gz = whitespace_gzip()
    accepted: list[int] = []

    def parallel_uploads() -> tuple[str, None]:
        codes = _post_in_parallel(carol, gz, GZ_UPLOADS)
        accepted.extend(Snapshot.objects.filter(owner=carol).values_list("pk", flat=True))
        counts = ", ".join(f"{n} x {code}" for code, n in sorted(Counter(codes).items()))
        return f"{counts}; {len(accepted)} kept", None

    measure(
        f"{GZ_UPLOADS} parallel uploads of a {len(gz) / 2**20:.1f} MB .gz"
        f" ({GZ_PADDING / 1e9:.2f} GB whitespace)",
        parallel_uploads,
    )

    def ingest_them() -> tuple[str, None]:
        ends: Counter[str] = Counter()
        for pk in accepted:  # one after another, as one worker process would
            done = cluster_services.snapshot_ingest(snapshot=Snapshot.objects.get(pk=pk))
            ends[f"{done.status}: {done.error[:40]}"] += 1
        return "; ".join(f"{n} {end}" for end, n in ends.items()), None

    measure("... the accepted ones ingested as the worker does", ingest_them)

    width = max(len(r[0]) for r in ROWS)
    print(f"{'probe':<{width}}  {'answer':<60}  {'time':>8}  {'peak RSS +':>10}  {'disk +':>8}")
    for what, answer, seconds, mem, disk in ROWS:
        print(f"{what:<{width}}  {answer:<60}  {seconds:7.2f}s  {mem:8.1f}MB  {disk:6.1f}MB")
    print(f"(process peak RSS {_peak_mib():,.0f} MB; var/ at {VAR}, {_disk_mib():,.1f} MB)")
    return 0


# The padding bomb: a 1 MB .gz that expands to 1.07 GB of whitespace around an empty List,
# posted this many times at once by one user (threads, each its own connection to the
# SQLite file; no network: the test client calls the app in this process).
GZ_UPLOADS = 30
GZ_PADDING = 1_070_000_000
GZ_SECONDS = 120.0


def whitespace_gzip() -> bytes:
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [deflate.compress(b'{"apiVersion": "v1", "kind": "List", "items": [')]
    step = b" " * 2**20
    for _ in range(GZ_PADDING // len(step)):
        parts.append(deflate.compress(step))
    parts.append(deflate.compress(b" " * (GZ_PADDING % len(step)) + b"]}") + deflate.flush())
    return b"".join(parts)


def _post_in_parallel(user: Any, gz: bytes, n: int) -> list[int]:
    """``n`` POSTs of ``gz`` to /api/snapshots/ at once; their status codes (each thread
    given at most GZ_SECONDS)."""
    start = threading.Barrier(n)

    def post(i: int) -> int:
        client = Client()
        client.force_login(user)
        start.wait()
        try:
            upload = SimpleUploadedFile(f"padded-{i}.json.gz", gz)
            return int(client.post("/api/snapshots/", {"files": [upload]}).status_code)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=n) as pool:
        futures = [pool.submit(post, i) for i in range(n)]
        return [f.result(timeout=GZ_SECONDS) for f in futures]


def _pod() -> dict[str, Any]:
    from clusters.demo import demo_cat3_pod

    return demo_cat3_pod()


def _ingest(owner: Any, cluster: Any) -> tuple[str, Any]:
    snapshot = cluster_services.snapshot_create(
        owner=owner,
        name="probe-1000",
        files=[cluster_services.UploadedFile(name="big.json", data=orjson.dumps(cluster))],
        run_async=False,
    )
    return snapshot.status, snapshot


def _long_workload() -> dict[str, Any]:
    return spread_deployment(1000, priority_class="critical-apps")


def _submit(web: Client, snapshot: Any, deployment: dict[str, Any] | None) -> tuple[str, Any]:
    if deployment is None:
        r = web.post(
            f"/api/snapshots/{snapshot.pk}/analyses/",
            {"pod": _pod()},
            content_type="application/json",
        )
        return str(r.status_code), None
    analysis = services.analysis_create_workload(
        snapshot=snapshot, objects=[deployment], recreate_victims=True
    )
    return f"{analysis.status}, {len(analysis.pod['pods']):,} pods", analysis


def _timed_deployment(name: str, klass: str, cpu: str, **extra: Any) -> dict[str, Any]:
    """One replica in ``klass``; ``extra``: the pod spec's grace period, the workload's
    arrival annotation, or the node it must run on."""
    spec: dict[str, Any] = {
        "priorityClassName": klass,
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
    }
    if "node" in extra:
        spec["nodeSelector"] = {"kubernetes.io/hostname": extra["node"]}
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if "grace" in extra:
        spec["terminationGracePeriodSeconds"] = extra["grace"]
    if "arrival" in extra:
        meta["annotations"] = {"preemptlab.io/arrival-seconds": str(extra["arrival"])}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        },
    }


def _timed_bombs(web: Client, demo: Any) -> None:
    """The timed what-if that once ran until Celery's hard limit (and raised OverflowError
    at 2^62): each grace period and arrival is now bounded, the clock jumps."""
    for what, b_arrival in (("2 s", 2), ("999999999 s", 999999999)):
        objects = [
            # a lands on node-3, the only node with room; b needs node-3 and preempts a.
            _timed_deployment("a", "cat-1", "300m", grace=2**62),
            _timed_deployment("b", "cat-2", "400m", arrival=b_arrival, node="node-3"),
        ]

        def run_it(objects: list[dict[str, Any]] = objects) -> tuple[str, None]:
            r = web.post(
                f"/api/snapshots/{demo.pk}/analyses/",
                {"objects": objects, "timeline": True},
                content_type="application/json",
            )
            if r.status_code != 202:
                return f"{r.status_code}: {r.content.decode()[:70]}", None
            done = services.analysis_run(analysis_id=r.json()["id"])
            if done.error:
                return f"{done.status}: {done.error[:60]}", None
            contract = done.simulation["contract"]
            span = contract["timeline"]["duration"]
            return f"{done.status}: {contract['stop_reason']}, {span:,.0f} simulated s", None

        measure(f"timed bomb: grace 2^62 s, arrival {what}", run_it)


def _annotation_bomb(web: Client, demo: Any) -> None:
    pod = _pod()
    pod["metadata"]["annotations"] = {"note": "x" * 100_000_000}
    body = orjson.dumps({"pod": pod})
    del pod

    def post_it() -> tuple[str, None]:
        before = Analysis.objects.count()
        r = web.post(f"/api/snapshots/{demo.pk}/analyses/", body, content_type="application/json")
        kept = Analysis.objects.count() - before
        return f"{r.status_code}, {kept} analyses kept: {r.content.decode()[:40]}", None

    measure(f"what-if with a {len(body) / 1e6:,.0f} MB annotation", post_it)


if __name__ == "__main__":
    sys.exit(main())
