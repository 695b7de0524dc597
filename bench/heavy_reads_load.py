"""One user hammers first in line with new parameters; another user's snapshot list must
stay fast. Run on demand (never part of the tests), against a real gunicorn and a real
Celery worker, on loopback only:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/preemptlab_heavy_reads \
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/heavy_reads_load.py

(the database must exist and may be empty; the script migrates it). It ingests a
LOAD_NODES-node snapshot (3,000 by default, 10 pods a node) for the user "hammer" and
two small ones for the user "reader", serves the app as docker-compose does (gunicorn,
3 sync workers, DEBUG off, the API rate limit as configured) on LOAD_WEB_PORT (8922),
starts a Celery worker with 2 processes on a queue of its own, measures the reader's
snapshot list (the page and the API) idle, then again while LOAD_HAMMERS threads of the
hammer ask GET /api/snapshots/{id}/plan/ with a probe size never asked before, for
LOAD_SECONDS seconds, and prints p50, p95 and the slowest reader request, and what the
hammer got (202 queued, 429 over its unfinished work or the rate limit, 200).
"""

from __future__ import annotations

import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.polling_load import login, manage_py_shell  # noqa: E402  (run as a script)

PORT = int(os.environ.get("LOAD_WEB_PORT", "8922"))
NODES = int(os.environ.get("LOAD_NODES", "3000"))
HAMMERS = int(os.environ.get("LOAD_HAMMERS", "6"))
SECONDS = float(os.environ.get("LOAD_SECONDS", "30"))
# The worker's niceness: on one machine, its CPU-bound rankings yield to the web
# processes (docker-compose gives them containers of their own instead). 0: none.
WORKER_NICE = int(os.environ.get("LOAD_WORKER_NICE", "10"))
# Ask the hammer's plan once per web process first: its ladder and audit are parsed
# and kept per process (planning/services.py), about 1-2 s each on 3,000 nodes.
WARM_PLAN = os.environ.get("LOAD_WARM_PLAN", "1") == "1"
BASE = f"http://127.0.0.1:{PORT}"
PASSWORD = "load-password-not-secret"
# The reader's bound (the brief of this measurement): every snapshot list within it.
READER_BOUND_SECONDS = 0.3


def setup(env: dict[str, str]) -> tuple[int, str, str]:
    """(the hammer's snapshot id, the hammer's API token, the reader's API token)."""
    script = f"""
import orjson
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from bench.generate_cluster import generate
from clusters.models import Snapshot
from clusters.services import UploadedFile, snapshot_create
from planning.models import FirstInLineRanking
from scheduling.models import Analysis
User = get_user_model()
def user(name):
    return User.objects.filter(username=name).first() or User.objects.create_user(
        name, password='{PASSWORD}')
hammer, reader = user('hammer'), user('reader')
def snap(owner, name, nodes):
    found = Snapshot.objects.filter(owner=owner, name=name, status='ready').first()
    return found or snapshot_create(owner=owner, name=name, files=[UploadedFile(
        name='c.json', data=orjson.dumps(generate(nodes, nodes * 10, nodes // 10, 7)))],
        run_async=False)
big = snap(hammer, 'big-{NODES}', {NODES})
snap(reader, 'small-a', 20)
snap(reader, 'small-b', 40)
# Every run starts from no stored ranking and nothing unfinished.
FirstInLineRanking.objects.all().delete()
Analysis.objects.all().delete()
print('IDS', big.pk, Token.objects.get_or_create(user=hammer)[0].key,
      Token.objects.get_or_create(user=reader)[0].key)
"""
    out = manage_py_shell(script, env)
    fields = out.split("IDS ")[-1].split()
    if len(fields) != 3:
        raise RuntimeError(f"setup printed {out!r}")
    return int(fields[0]), fields[1], fields[2]


def timed_get(opener: Any, url: str, headers: dict[str, str]) -> tuple[int, float]:
    t0 = time.perf_counter()
    try:
        with opener.open(urllib.request.Request(url, headers=headers), timeout=60) as r:
            r.read()
            code = r.status
    except urllib.error.HTTPError as e:
        e.read()
        code = e.code
    return code, time.perf_counter() - t0


def read_lists(browser: Any, token: str, seconds: float) -> dict[str, list[float]]:
    """The reader, one request at a time as a person clicks: the page, then the API."""
    api = urllib.request.build_opener()
    auth = {"Authorization": f"Token {token}", "Accept": "application/json"}
    took: dict[str, list[float]] = {"page /snapshots/": [], "API /api/snapshots/": []}
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        code, t = timed_get(browser, BASE + "/snapshots/", {})
        assert code == 200, code
        took["page /snapshots/"].append(t)
        code, t = timed_get(api, BASE + "/api/snapshots/", auth)
        assert code == 200, code
        took["API /api/snapshots/"].append(t)
        time.sleep(0.1)
    return took


def hammer(snapshot: int, token: str, stop: float, sizes: Any, codes: dict[int, int]) -> None:
    """Asks the plan with a probe size never asked before, again and again."""
    opener = urllib.request.build_opener()
    auth = {"Authorization": f"Token {token}", "Accept": "application/json"}
    while time.monotonic() < stop:
        cpu = next(sizes)
        url = f"{BASE}/api/snapshots/{snapshot}/plan/?cpu={cpu}m&memory=2Gi&limit=50"
        code, _ = timed_get(opener, url, auth)
        codes[code] = codes.get(code, 0) + 1


def report(label: str, took: dict[str, list[float]]) -> None:
    for target, times in took.items():
        q = statistics.quantiles(times, n=20)
        print(
            f"| {label} | {target} | {len(times)} | {statistics.median(times) * 1000:.0f} | "
            f"{q[18] * 1000:.0f} | {max(times) * 1000:.0f} |",
            flush=True,
        )


def main() -> int:
    var = Path(tempfile.mkdtemp(prefix="preemptlab-heavy-"))
    queue = f"heavy-reads-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "load-only-" + "x" * 40,
        "PREEMPTLAB_VAR_DIR": str(var),
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        "CELERY_QUEUE": queue,
    }
    for step in (["migrate", "--no-input"], ["collectstatic", "--no-input"]):
        subprocess.run(
            [sys.executable, "manage.py", *step], cwd=ROOT, env=env, check=True, capture_output=True
        )
    print(f"ingesting a {NODES:,}-node snapshot (once per database)…", flush=True)
    snapshot, hammer_token, reader_token = setup(env)
    bin_dir = Path(sys.executable).parent
    web = subprocess.Popen(
        [str(bin_dir / "gunicorn"), "config.wsgi:application", "--bind", f"127.0.0.1:{PORT}",
         "--workers", "3", "--timeout", "120"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    worker = subprocess.Popen(
        [*(["nice", "-n", str(WORKER_NICE)] if WORKER_NICE else []), sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=prefork",
         "--concurrency=2", "-Q", queue, "-n", f"{queue}@%h", "--without-gossip",
         "--without-mingle", "--loglevel=WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(BASE + "/healthz", timeout=2).read()
                break
            except Exception:
                time.sleep(0.2)
        reader = login(BASE, "reader", PASSWORD)
        read_lists(reader, reader_token, 2)  # warm every web worker
        if WARM_PLAN:
            auth = {"Authorization": f"Token {hammer_token}"}
            plain = urllib.request.build_opener()
            for _ in range(9):  # gunicorn's workers take turns: each sees a few
                timed_get(plain, f"{BASE}/api/snapshots/{snapshot}/plan/?first_in_line=0", auth)
        print(
            f"{NODES:,} nodes; {HAMMERS} hammering threads; {SECONDS:.0f} s a phase; worker "
            f"nice {WORKER_NICE}; plan {'warmed' if WARM_PLAN else 'cold'} in the web processes"
        )
        print("| phase | reader's target | requests | p50 ms | p95 ms | slowest ms |")
        print("|---|---|---|---|---|---|")
        report("idle", read_lists(reader, reader_token, SECONDS / 3))
        codes: dict[int, int] = {}
        sizes = itertools.count(101)  # 101m, 102m, …: each a question never asked
        stop = time.monotonic() + SECONDS
        threads = [
            threading.Thread(target=hammer, args=(snapshot, hammer_token, stop, sizes, codes))
            for _ in range(HAMMERS)
        ]
        for t in threads:
            t.start()
        loaded = read_lists(reader, reader_token, SECONDS)
        for t in threads:
            t.join()
        report("hammered", loaded)
        print(f"hammer's answers by status: {dict(sorted(codes.items()))}")
        slowest = max(max(times) for times in loaded.values())
        verdict = "within" if slowest <= READER_BOUND_SECONDS else "OVER"
        print(f"slowest reader request {slowest:.3f} s: {verdict} {READER_BOUND_SECONDS} s")
    finally:
        for proc in (web, worker):
            proc.terminate()
        for proc in (web, worker):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
