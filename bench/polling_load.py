"""50 clients polling one finished 2,000-node analysis: latency of the page and the API.

Run on demand (never part of the tests), against a real gunicorn; the clients are wrk
when it is installed (apt-get install wrk), else Python threads (LOAD_TOOL=python forces
them):

    DATABASE_URL=postgres://... REDIS_URL=redis://... python bench/polling_load.py

It ingests a 2,000-node snapshot, runs one analysis in-process, serves the app
with gunicorn (3 sync workers, as docker-compose does, DEBUG off) on
LOAD_WEB_PORT (8921), then for each target lets CLIENTS threads poll it for
SECONDS seconds and prints requests per second, p50, p95 and p99 in ms.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PORT = int(os.environ.get("LOAD_WEB_PORT", "8921"))
CLIENTS = int(os.environ.get("LOAD_CLIENTS", "50"))
SECONDS = float(os.environ.get("LOAD_SECONDS", "20"))
# wrk (Debian's package) when installed: a C load generator, so the clients do not
# take the server's CPU the way 50 Python threads on the same two cores do.
WRK = shutil.which("wrk") if os.environ.get("LOAD_TOOL", "wrk") == "wrk" else None
# wrk prints p50/p90/p99 only; this script makes it print p95 too.
WRK_SCRIPT = """
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, latency:percentile(50),
    latency:percentile(95), latency:percentile(99), summary.errors.status))
end
"""
BASE = f"http://127.0.0.1:{PORT}"
PASSWORD = "load-password-not-secret"


def manage_py_shell(script: str, env: dict[str, str]) -> str:
    """What ``script`` printed, run by manage.py shell with ``env``."""
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def login(base: str, username: str, password: str) -> Any:
    """A urllib opener holding ``username``'s session on the app served at ``base``."""
    jar = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = browser.open(base + "/accounts/login/").read().decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    browser.open(
        urllib.request.Request(
            base + "/accounts/login/",
            data=urllib.parse.urlencode(
                {"username": username, "password": password, "csrfmiddlewaretoken": csrf}
            ).encode(),
            headers={"Referer": base + "/accounts/login/"},
        )
    ).read()
    return browser


def setup(env: dict[str, str]) -> tuple[int, str, str]:
    """(analysis id, API token, share token) of a finished analysis on 2,000 nodes."""
    script = """
import orjson
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from bench.generate_cluster import generate, preemptor_pod
from clusters.models import Node
from clusters.services import UploadedFile, snapshot_create
from scheduling import services
from scheduling.models import Analysis
User = get_user_model()
user = User.objects.filter(username='load').first() or User.objects.create_user('load', password='PASSWORD')
a = Analysis.objects.filter(snapshot__owner=user, status='done').first()
if a is None:
  snap = snapshot_create(owner=user, name='load', files=[UploadedFile(name='c.json',
    data=orjson.dumps(generate(2000, 20000, 200, 7)))], run_async=False)
  free = max(n.cpu_allocatable - n.cpu_requested for n in Node.objects.filter(snapshot=snap))
  a = services.analysis_create(snapshot=snap, pod=preemptor_pod('load', most_free_millicpu=free))
  a = services.analysis_run(analysis_id=a.pk)
link = services.share_link_create(analysis=a)
token, _ = Token.objects.get_or_create(user=user)
print('IDS', a.pk, token.key, link.token, len(a.result['rejected_nodes']))
""".replace("PASSWORD", PASSWORD)
    out = manage_py_shell(script, env)
    fields = out.split("IDS ")[-1].split()
    if len(fields) != 4:
        raise RuntimeError(f"setup printed {out!r}")
    pk, token, share, rejected = fields
    print(f"analysis {pk}: {rejected} rejected nodes")
    return int(pk), token, share


def poll(
    url: str,
    headers: dict[str, str],
    opener: Any,
    stop: float,
    out: list[float],
    codes: dict[int, int],
    lock: threading.Lock,
) -> None:
    while time.monotonic() < stop:
        req = urllib.request.Request(url, headers=headers)
        t0 = time.perf_counter()
        try:
            with opener.open(req, timeout=60) as r:
                r.read()
                code = r.status
        except urllib.error.HTTPError as e:
            e.read()
            code = e.code
        took = time.perf_counter() - t0
        with lock:
            out.append(took)
            codes[code] = codes.get(code, 0) + 1


def measure_wrk(name: str, url: str, headers: dict[str, str], wrk: str) -> None:
    """The same measurement by wrk: CLIENTS connections on 2 threads for SECONDS."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(WRK_SCRIPT)
    cmd = [wrk, "-t2", f"-c{CLIENTS}", f"-d{SECONDS:.0f}s", "-s", f.name]
    for k, v in headers.items():
        cmd += ["-H", f"{k}: {v}"]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith("RESULT "))
    requests, p50, p95, p99, bad = (int(x) for x in line.split()[1:])
    print(
        f"| {name} | {requests / SECONDS:.0f} | {p50 / 1000:.0f} | {p95 / 1000:.0f} | "
        f"{p99 / 1000:.0f} | non-2xx/3xx: {bad} |",
        flush=True,
    )


def measure(name: str, url: str, headers: dict[str, str], opener: Any) -> None:
    if WRK is not None:
        # wrk does not follow redirects: make sure this URL answers itself (a lost login
        # would make every request a fast 302 to the login page).
        try:
            with opener.open(urllib.request.Request(url, headers=headers)) as r:
                assert r.geturl() == url and r.status == 200, (url, r.geturl(), r.status)
        except urllib.error.HTTPError as e:
            assert e.code == 304, (url, e.code)  # the If-None-Match target
        cookies = _cookie_header(opener)
        measure_wrk(name, url, {**headers, **({"Cookie": cookies} if cookies else {})}, WRK)
        return
    out: list[float] = []
    codes: dict[int, int] = {}
    lock = threading.Lock()
    stop = time.monotonic() + SECONDS
    threads = [
        threading.Thread(target=poll, args=(url, headers, opener, stop, out, codes, lock))
        for _ in range(CLIENTS)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    q = statistics.quantiles(out, n=100)
    print(
        f"| {name} | {len(out) / SECONDS:.0f} | {q[49] * 1000:.0f} | {q[94] * 1000:.0f} | "
        f"{q[98] * 1000:.0f} | {codes} |",
        flush=True,
    )


def _cookie_header(opener: Any) -> str:
    """The session cookies a urllib opener holds, as one Cookie header (for wrk)."""
    for handler in opener.handlers:
        jar = getattr(handler, "cookiejar", None)
        if jar is not None:
            return "; ".join(f"{c.name}={c.value}" for c in jar)
    return ""


def main() -> int:
    var = Path(tempfile.mkdtemp(prefix="preemptlab-load-"))
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "load-only-" + "x" * 40,
        "PREEMPTLAB_VAR_DIR": str(var),
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        # The load is one token's polling by design: measured, not throttled.
        "PREEMPTLAB_API_RATE": "100000000/min",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    pk, token, share = setup(env)
    web = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{PORT}",
            "--workers",
            "3",
            "--timeout",
            "120",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(BASE + "/healthz", timeout=2).read()
                break
            except Exception:
                time.sleep(0.2)
        browser = login(BASE, "load", PASSWORD)
        plain = urllib.request.build_opener()
        auth = {"Authorization": f"Token {token}", "Accept": "application/json"}
        api = f"{BASE}/api/analyses/{pk}/"
        for url in (api, api + "?view=compact", f"{BASE}/analyses/{pk}/"):  # warm every worker
            for _ in range(6):
                (browser if "/api/" not in url else plain).open(
                    urllib.request.Request(url, headers=auth if "/api/" in url else {})
                ).read()
        etag = plain.open(urllib.request.Request(api, headers=auth)).headers["ETag"]
        print(f"{CLIENTS} clients, {SECONDS:.0f} s each, by {'wrk' if WRK else 'Python threads'}")
        print("| target | req/s | p50 ms | p95 ms | p99 ms | statuses |")
        print("|---|---|---|---|---|---|")
        measure("page /analyses/{id}/ (logged in)", f"{BASE}/analyses/{pk}/", {}, browser)
        measure("shared page /s/{token}/", f"{BASE}/s/{share}/", {}, plain)
        measure("API full", api, auth, plain)
        measure("API full, If-None-Match", api, {**auth, "If-None-Match": etag}, plain)
        measure("API ?view=compact", api + "?view=compact", auth, plain)
    finally:
        web.terminate()
        web.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
