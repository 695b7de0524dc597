"""Fault drills: kill workers, restart Redis, stop PostgreSQL, and count what was lost.

`make drills` (never part of `make test`: it kills and restarts things). It
starts everything privately in a temporary folder: PostgreSQL (port
DRILL_PG_PORT, 15440), Redis (DRILL_REDIS_PORT, 16390, keeping nothing on disk
as in docker-compose), gunicorn (DRILL_WEB_PORT, 8920, 3 workers) and a Celery
worker (prefork, 2 processes), all with the production settings (DEBUG off,
the default lease and reconciler intervals). Then:

  pool-child   kill -9 of the worker's pool processes while an analysis runs, x10
  whole-worker kill -9 of the whole worker (its process group) while an analysis
               runs, then start it again, x10
  redis        10 analyses and one large ingest queued while no worker runs; Redis
               killed and started empty; the worker started again
  postgres     PostgreSQL stopped for 20 s while analyses run and clients poll

A prober polls a page, the API, a share link and /healthz all along and counts
the answers by status. The table printed at the end gives, per drill, the work
submitted, how much was lost (never finished within 180 s), the time to
recover and the 5xx answers. Exit status 1 if anything was lost or any request
answered 500.
"""

from __future__ import annotations

import contextlib
import http.client
import http.cookiejar
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG_PORT = int(os.environ.get("DRILL_PG_PORT", "15440"))
REDIS_PORT = int(os.environ.get("DRILL_REDIS_PORT", "16390"))
WEB_PORT = int(os.environ.get("DRILL_WEB_PORT", "8920"))
PG_BIN = Path(os.environ.get("DRILL_PG_BIN", "/usr/lib/postgresql/15/bin"))
BASE = f"http://127.0.0.1:{WEB_PORT}"
LOST_AFTER = 180.0  # seconds without finishing: counted as lost
PASSWORD = "drills-password-not-secret"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Stack:
    """The private services and the app's processes."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="preemptlab-drills-"))
        self.tmp.chmod(0o755)
        self.pgdata = self.tmp / "pg"
        self.env = {
            **os.environ,
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:{PG_PORT}/postgres",
            "REDIS_URL": f"redis://127.0.0.1:{REDIS_PORT}/0",
            "DEBUG": "0",
            "SECRET_KEY": "drills-only-" + "x" * 40,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PREEMPTLAB_VAR_DIR": str(self.tmp / "var"),
            "PYTHONUNBUFFERED": "1",
            # Served over plain http here: cookies flagged Secure would never come back.
            "SESSION_COOKIE_SECURE": "false",
            "CSRF_COOKIE_SECURE": "false",
            # One token polls as fast as it can to time each recovery, and queues ten
            # analyses at once while no worker runs: neither throttled nor capped.
            "PREEMPTLAB_API_RATE": "100000000/min",
            "PREEMPTLAB_UNFINISHED_PER_USER": "1000",
        }
        self.env.pop("TEST_DB_NAME", None)
        self.redis: subprocess.Popen[bytes] | None = None
        self.web: subprocess.Popen[bytes] | None = None
        self.worker: subprocess.Popen[bytes] | None = None
        self.bin = Path(sys.executable).parent

    # -- PostgreSQL, as its own user when run as root (initdb refuses root) --
    def _as_postgres(self, args: list[str]) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(prefix + args, check=True, stdout=subprocess.DEVNULL)

    def pg_init(self) -> None:
        self.pgdata.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.pgdata, "postgres", "postgres")
        self._as_postgres(
            [str(PG_BIN / "initdb"), "-D", str(self.pgdata), "-U", "postgres", "-A", "trust"]
        )

    def pg_start(self) -> None:
        opts = f"-p {PG_PORT} -c listen_addresses=127.0.0.1 -k {self.pgdata}"
        self._as_postgres(
            [
                str(PG_BIN / "pg_ctl"),
                "-D",
                str(self.pgdata),
                "-o",
                opts,
                "-l",
                str(self.pgdata / "log"),
                "-w",
                "start",
            ]
        )

    def pg_stop(self) -> None:
        self._as_postgres(
            [str(PG_BIN / "pg_ctl"), "-D", str(self.pgdata), "-m", "fast", "-w", "stop"]
        )

    def redis_start(self) -> None:
        self.redis = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(REDIS_PORT),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.tmp),
            ],
            stdout=open(self.tmp / "redis.log", "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
        )
        for _ in range(100):
            if (
                subprocess.run(
                    ["redis-cli", "-p", str(REDIS_PORT), "ping"], capture_output=True
                ).stdout.strip()
                == b"PONG"
            ):
                return
            time.sleep(0.1)
        raise RuntimeError("redis did not start")

    def redis_kill(self) -> None:
        assert self.redis is not None
        self.redis.kill()
        self.redis.wait()

    def manage(self, *args: str) -> str:
        out = subprocess.run(
            [str(self.bin / "python"), "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
            text=True,
        )
        return out.stdout

    def _spawn(self, args: list[str], log_name: str) -> subprocess.Popen[bytes]:
        """An app process in a session of its own (so kill -9 of the group takes all of it)."""
        return subprocess.Popen(
            args,
            cwd=ROOT,
            env=self.env,
            stdout=open(self.tmp / log_name, "ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def web_start(self) -> None:
        self.web = self._spawn(
            [
                str(self.bin / "gunicorn"),
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{WEB_PORT}",
                "--workers",
                "3",
                "--timeout",
                "120",
            ],
            "web.log",
        )
        wait_until(lambda: http_status("/healthz") == 200, 60, "gunicorn")

    def worker_start(self) -> None:
        self.worker = self._spawn(
            [
                str(self.bin / "celery"),
                "-A",
                "config",
                "worker",
                "--concurrency=2",
                "--loglevel=INFO",
            ],
            "worker.log",
        )
        wait_until(lambda: len(children(self.worker.pid)) == 2, 60, "the worker's pool")  # type: ignore[union-attr]

    def worker_kill(self) -> None:
        assert self.worker is not None
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait()

    def worker_stop(self) -> None:
        assert self.worker is not None
        os.killpg(self.worker.pid, signal.SIGTERM)
        self.worker.wait(timeout=60)

    def close(self) -> None:
        for proc in (self.worker, self.web):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if self.redis is not None and self.redis.poll() is None:
            self.redis_kill()
        with contextlib.suppress(subprocess.CalledProcessError):
            self.pg_stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                out.extend(int(c) for c in (task / "children").read_text().split())
            except FileNotFoundError:
                continue
    except FileNotFoundError:
        pass
    return out


def wait_until(predicate: Any, timeout: float, what: str, interval: float = 0.2) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not ready after {timeout}s")
        time.sleep(interval)


# -- HTTP ------------------------------------------------------------------------------

TOKEN = ""


def request(
    path: str, *, method: str = "GET", body: Any = None, token: bool = True, opener: Any = None
) -> tuple[int, bytes]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(BASE + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token and TOKEN:
        req.add_header("Authorization", f"Token {TOKEN}")
    try:
        with (
            opener.open(req, timeout=30) if opener else urllib.request.urlopen(req, timeout=30)
        ) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    # A server stopped mid-response (IncompleteRead) counts as no answer, like a refused
    # connection: raising would end a prober's thread and silently stop its counting.
    except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError):
        return 0, b""


def http_status(path: str) -> int:
    return request(path, token=False)[0]


class Prober(threading.Thread):
    """Polls a page (logged in), the API, a share link and /healthz; counts statuses."""

    def __init__(self, paths: list[tuple[str, bool]], opener: Any) -> None:
        super().__init__(daemon=True)
        self.paths = paths
        self.opener = opener
        self.counts: Counter[int] = Counter()
        self.active = threading.Event()
        self.lock = threading.Lock()

    def run(self) -> None:
        while True:
            self.active.wait()
            for path, page in self.paths:
                status, _ = request(path, token=not page, opener=self.opener if page else None)
                with self.lock:
                    self.counts[status] += 1
            time.sleep(0.05)

    def window(self) -> Counter[int]:
        with self.lock:
            counts, self.counts = self.counts, Counter()
        return counts


# -- the work -----------------------------------------------------------------------------


def status_of(conn: psycopg.Connection[Any], table: str, pk: int) -> str:
    row = conn.execute(f"SELECT status FROM {table} WHERE id = %s", [pk]).fetchone()
    return str(row[0]) if row else "gone"


def submit(snapshot_id: int, pod: dict[str, Any]) -> int:
    for _ in range(100):
        status, body = request(
            f"/api/snapshots/{snapshot_id}/analyses/", method="POST", body={"pod": pod}
        )
        if status == 202:
            return int(json.loads(body)["id"])
        time.sleep(0.3)
    raise RuntimeError(f"could not submit an analysis: {status} {body[:200]!r}")


def wait_done(pg: Any, ids: list[tuple[str, int]], since: float) -> tuple[float | None, int]:
    """(seconds from ``since`` until every row finished, or None; how many never did)."""
    deadline = since + LOST_AFTER
    pending = set(ids)
    while pending and time.monotonic() < deadline:
        try:
            with pg() as conn:
                for table, pk in list(pending):
                    if status_of(conn, table, pk) in ("done", "failed", "ready"):
                        pending.discard((table, pk))
        except psycopg.OperationalError:
            pass
        time.sleep(0.1)
    return (None if pending else time.monotonic() - since), len(pending)


def main() -> int:
    global TOKEN
    from bench.generate_cluster import generate, preemptor_pod

    stack = Stack()
    results: list[dict[str, Any]] = []
    try:
        log(f"private services in {stack.tmp}")
        stack.pg_init()
        stack.pg_start()
        stack.redis_start()
        stack.manage("migrate", "--no-input")
        stack.manage("collectstatic", "--no-input")
        TOKEN = (
            stack.manage(
                "shell",
                "-c",
                (
                    "from django.contrib.auth import get_user_model;"
                    "from rest_framework.authtoken.models import Token;"
                    f"u=get_user_model().objects.create_user('drill', password='{PASSWORD}');"
                    "print('TOKEN', Token.objects.create(user=u).key)"
                ),
            )
            .split("TOKEN ")[-1]
            .strip()
        )
        stack.web_start()
        stack.worker_start()
        dsn = f"postgresql://postgres@127.0.0.1:{PG_PORT}/postgres"

        def pg() -> psycopg.Connection[Any]:
            return psycopg.connect(dsn, autocommit=True, connect_timeout=3)

        cluster = generate(500, 15000, 100, 3)
        status, body = request(
            "/api/snapshots/", method="POST", body={"name": "drill", "objects": cluster}
        )
        snapshot_id = int(json.loads(body)["id"])
        with pg() as conn:
            wait_until(
                lambda: status_of(conn, "clusters_snapshot", snapshot_id) == "ready",
                120,
                "the drill snapshot",
            )
            free = conn.execute(
                "SELECT max(cpu_allocatable - cpu_requested) FROM clusters_node "
                "WHERE snapshot_id = %s",
                [snapshot_id],
            ).fetchone()[0]
        pod = preemptor_pod("drill", most_free_millicpu=free)
        first = submit(snapshot_id, pod)
        wait_done(pg, [("scheduling_analysis", first)], time.monotonic())
        status, body = request(f"/api/analyses/{first}/share-links/", method="POST")
        share = json.loads(body)["token"]

        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = opener.open(BASE + "/accounts/login/").read().decode()
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        login = urllib.request.Request(
            BASE + "/accounts/login/",
            method="POST",
            data=urllib.parse.urlencode(
                {"username": "drill", "password": PASSWORD, "csrfmiddlewaretoken": csrf}
            ).encode(),
        )
        login.add_header("Referer", BASE + "/accounts/login/")
        opener.open(login).read()
        prober = Prober(
            [
                ("/snapshots/", True),
                (f"/analyses/{first}/", True),
                ("/api/snapshots/", False),
                (f"/api/analyses/{first}/", False),
                (f"/s/{share}/", False),
                ("/healthz", False),
            ],
            opener,
        )
        prober.start()

        def caught_running(pk: int) -> bool:
            with pg() as conn:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    s = status_of(conn, "scheduling_analysis", pk)
                    if s == "running":
                        return True
                    if s in ("done", "failed"):
                        return False
                    time.sleep(0.005)
            return False

        def record(
            name: str, rounds: int, submitted: int, lost: int, times: list[float], note: str
        ) -> None:
            counts = prober.window()
            results.append(
                {
                    "drill": name,
                    "rounds": rounds,
                    "work": submitted,
                    "lost": lost,
                    "max": max(times) if times else None,
                    "median": statistics.median(times) if times else None,
                    "500": sum(v for k, v in counts.items() if k == 500 or k > 503),
                    "503": counts.get(503, 0),
                    "requests": sum(counts.values()),
                    "note": note,
                }
            )
            log(f"{name}: {results[-1]}")

        prober.active.set()
        prober.window()

        # 1. kill -9 of the pool processes while an analysis runs.
        times: list[float] = []
        lost = rounds = 0
        while rounds < 10:
            pk = submit(snapshot_id, pod)
            if not caught_running(pk):
                wait_done(pg, [("scheduling_analysis", pk)], time.monotonic())
                continue
            for child in children(stack.worker.pid):  # type: ignore[union-attr]
                os.kill(child, signal.SIGKILL)
            rounds += 1
            took, missing = wait_done(pg, [("scheduling_analysis", pk)], time.monotonic())
            lost += missing
            if took is not None:
                times.append(took)
        record("kill -9 pool processes", rounds, rounds, lost, times, "from kill to done")

        # 2. kill -9 of the whole worker, then start it again.
        times, lost, rounds = [], 0, 0
        while rounds < 10:
            pk = submit(snapshot_id, pod)
            if not caught_running(pk):
                wait_done(pg, [("scheduling_analysis", pk)], time.monotonic())
                continue
            stack.worker_kill()
            stack.worker_start()
            back = time.monotonic()
            rounds += 1
            took, missing = wait_done(pg, [("scheduling_analysis", pk)], back)
            lost += missing
            if took is not None:
                times.append(took)
        record("kill -9 whole worker", rounds, rounds, lost, times, "from restart to done")

        # 3. Redis restarted (empty) with 10 analyses and a large ingest queued.
        stack.worker_stop()
        ids = [("scheduling_analysis", submit(snapshot_id, pod)) for _ in range(10)]
        big = generate(300, 9000, 50, 5)
        status, body = request("/api/snapshots/", method="POST", body={"name": "q", "objects": big})
        assert status == 202, (status, body[:300])
        ids.append(("clusters_snapshot", int(json.loads(body)["id"])))
        stack.redis_kill()
        status, _ = request(
            f"/api/snapshots/{snapshot_id}/analyses/", method="POST", body={"pod": pod}
        )
        refused = status
        stack.redis_start()
        stack.worker_start()
        back = time.monotonic()
        took, missing = wait_done(pg, ids, back)
        record(
            "Redis restart, 10 analyses + 1 ingest queued",
            1,
            len(ids),
            missing,
            [took] if took is not None else [],
            f"from Redis and worker back to all done; a POST while Redis was down: {refused}",
        )

        # 4. PostgreSQL down for 20 s while analyses run and clients poll.
        ids = [("scheduling_analysis", submit(snapshot_id, pod)) for _ in range(4)]
        caught_running(ids[0][1])
        stack.pg_stop()
        time.sleep(20)
        stack.pg_start()
        back = time.monotonic()
        took, missing = wait_done(pg, ids, back)
        time.sleep(2)
        record(
            "PostgreSQL down 20 s, 4 analyses in flight",
            1,
            len(ids),
            missing,
            [took] if took is not None else [],
            "from PostgreSQL back to all done",
        )
        prober.active.clear()
    finally:
        stack.close()

    print()
    header = (
        "drill",
        "rounds",
        "work",
        "lost",
        "recovery max s",
        "median s",
        "HTTP 500",
        "HTTP 503",
        "requests",
    )
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    bad = False

    def fmt(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    for r in results:
        print(
            f"| {r['drill']} | {r['rounds']} | {r['work']} | {r['lost']} | {fmt(r['max'])} | "
            f"{fmt(r['median'])} | {r['500']} | {r['503']} | {r['requests']} |"
        )
        bad = bad or r["lost"] > 0 or r["500"] > 0 or (r["max"] or 0) > 60
    for r in results:
        print(f"  {r['drill']}: {r['note']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
