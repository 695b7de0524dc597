"""One kubectl call bounded while it runs: in bytes received, in memory, in time, and
refused the moment the API server answers with a redirect.

kubectl holds a whole list in memory before it prints anything, so its standard output
says nothing until the end: an API server streaming a list without end grew kubectl by
gigabytes in seconds. What kubectl has received so far is its ``rchar`` in
/proc/<pid>/io (every byte read from its sockets and files) and its memory is VmRSS in
/proc/<pid>/status; both are polled every POLL seconds and kubectl is killed past the
bound. A memory rlimit is not used: Go reserves far more address space than it touches
(RLIMIT_AS would stop kubectl at start) and a killed runtime says nothing useful.

kubectl follows HTTP redirects and has no option not to (kubernetes/kubernetes#93129):
it is run through preemptlab.kube_proxy's ServerProxy, which lets it reach its API
server's host:port and nothing else, so a redirect to another host is refused before
anything is sent there; kubectl is killed then and its output thrown away. Run with -v=6
kubectl logs one line per HTTP exchange, redirect hops included: the status of the
redirect for the failure's sentence (without a proxy, the first 3xx kills kubectl).

A failure is one of a fixed set of sentences: nothing the server or kubectl printed is
quoted, since an API server (or what it redirects to) chooses those words.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from preemptlab.kube_proxy import ServerProxy

# How often the bounds are looked at (an endless list arrives at ~250 MB/s on loopback:
# about 5 MB between two looks).
POLL = 0.02
# kubectl's stderr kept to classify a failure (the end of it: the error comes last).
STDERR_KEPT = 64 * 1024

# -v=6's line for each exchange: `GET https://host/api/v1/pods?limit=500 200 OK in 3
# milliseconds` (kubectl up to 1.32) or `"Response" verb="GET" url="https://..."
# status="200 OK"` (structured logging, later ones).
_EXCHANGE = (
    re.compile(r"\b(?:GET|HEAD|POST|PUT|PATCH|DELETE) (\S+) (\d{3}) "),
    re.compile(r'url="([^"]+)" status="(\d{3})'),
)
_FORBIDDEN = re.compile(r'cannot (\w+) resource "([^"]+)"')
# What kubectl says of a body it cannot decode (Go's encoding/json and apimachinery's).
_NOT_JSON = (
    "invalid character",
    "looking for beginning of value",
    "unexpected end of JSON",
    "cannot unmarshal",
    "Object 'Kind' is missing",
    "couldn't get version/kind",
    "unable to decode",
    "malformed",
)


@dataclass(frozen=True)
class Bounds:
    """What one call may take: bytes received (None: unbounded), kubectl's resident
    memory in bytes (None: unbounded) and seconds (None: no deadline)."""

    max_bytes: int | None = None
    max_memory: int | None = None
    timeout: float | None = None


@dataclass
class Exchanges:
    """What kubectl's -v=6 lines said so far: the last URL answered and the first
    redirect. Filled by the thread reading stderr."""

    last_url: str = ""
    redirect: int | None = None
    tail: deque[bytes] = field(default_factory=lambda: deque(maxlen=STDERR_KEPT // 256))

    def take(self, line: bytes) -> bool:
        """Notes ``line``; True when it is a redirect (kubectl must stop now)."""
        text = line.decode(errors="replace")
        for pattern in _EXCHANGE:
            found = pattern.search(text)
            if found:
                self.last_url, code = found.group(1), int(found.group(2))
                if 300 <= code < 400 and self.redirect is None:
                    self.redirect = code
                    return True
                return False
        self.tail.append(line[:256])
        return False

    @property
    def text(self) -> str:
        return b"".join(self.tail).decode(errors="replace")

    @property
    def resource(self) -> str:
        """The plural of the list being read (the last exchange's path), "" if none."""
        path = self.last_url.split("?", 1)[0].rstrip("/")
        return path.rpartition("/")[2] if "/api" in path else ""


@dataclass(frozen=True)
class Outcome:
    """How a call ended: kubectl's exit status (None: killed at a bound), the bound it
    was stopped at ("bytes", "memory", "time", "redirect"; "" when it exited), what
    kubectl's -v=6 lines said, kubectl's peak resident memory seen, in bytes, and whether
    the proxy could not reach the API server."""

    returncode: int | None
    stopped: str
    exchanges: Exchanges
    peak_rss: int
    unreachable: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.stopped


def run_bounded(
    cmd: list[str],
    out: Path,
    bounds: Bounds,
    *,
    env: dict[str, str] | None = None,
    proxy: ServerProxy | None = None,
) -> Outcome:
    """Runs ``cmd`` (kubectl with -v=6 among its flags) with its standard output going
    to ``out``, stopping it at the first bound it passes. With ``proxy`` (the one kubectl
    goes through) a redirect stops it when the proxy refused another host; a redirect to
    the API server itself is followed. Without, the first 3xx stops it."""
    with out.open("wb") as sink:
        proc = subprocess.Popen(
            cmd, stdout=sink, stderr=subprocess.PIPE, env=env, start_new_session=True
        )
    exchanges = Exchanges()
    redirected = threading.Event()
    reader = threading.Thread(
        target=_read_stderr, args=(proc, exchanges, None if proxy else redirected), daemon=True
    )
    reader.start()
    deadline = time.monotonic() + bounds.timeout if bounds.timeout else None
    stopped, peak = "", 0
    try:
        while proc.poll() is None:
            received, rss = _usage(proc.pid)
            peak = max(peak, rss)
            if redirected.is_set() or (proxy is not None and proxy.refused.is_set()):
                stopped = "redirect"
            elif bounds.max_bytes is not None and (
                received > bounds.max_bytes or _size(out) > bounds.max_bytes
            ):
                stopped = "bytes"
            elif bounds.max_memory is not None and rss > bounds.max_memory:
                stopped = "memory"
            elif deadline is not None and time.monotonic() > deadline:
                stopped = "time"
            if stopped:
                _kill(proc)
                break
            time.sleep(POLL)
    finally:
        if proc.poll() is None:
            _kill(proc)
        proc.wait()
        reader.join(timeout=5)
    # With a proxy, the proxy decides (a redirect to the API server itself is fine).
    if proxy.refused.is_set() if proxy is not None else exchanges.redirect is not None:
        stopped = "redirect"
    if stopped:
        # Whatever kubectl wrote is not the answer asked for: nothing of it is kept.
        out.write_bytes(b"")
    unreachable = proxy is not None and proxy.unreachable.is_set()
    return Outcome(None if stopped else proc.returncode, stopped, exchanges, peak, unreachable)


def _read_stderr(
    proc: subprocess.Popen[bytes], exchanges: Exchanges, redirected: threading.Event | None
) -> None:
    """Reads kubectl's stderr into ``exchanges``; kills kubectl at the first redirect
    when ``redirected`` is given (no proxy decides)."""
    assert proc.stderr is not None
    # A line at most STDERR_KEPT long at a time: a server's message is no longer held.
    while line := proc.stderr.readline(STDERR_KEPT):
        if exchanges.take(line) and redirected is not None:
            # Killed from here, as soon as the line arrives, not at the next look.
            redirected.set()
            _kill(proc)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.returncode is not None:
        return  # reaped already: its id may be another process's now
    # kubectl's session: an exec credential plugin it started goes with it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _usage(pid: int) -> tuple[int, int]:
    """(bytes read so far, resident bytes) of process ``pid``; zeros once it is gone."""
    received = rss = 0
    try:
        with open(f"/proc/{pid}/io", "rb") as io:
            for line in io:
                if line.startswith(b"rchar:"):
                    received = int(line.split()[1])
                    break
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError):
        pass
    return received, rss


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


# -- what a failure is called -------------------------------------------------------------


def failure_sentence(
    outcome: Outcome, *, where: str, resources: tuple[str, ...], bounds: Bounds
) -> str:
    """The failure of a call, as one of a fixed set of sentences. Only what this side
    chose appears in them (the context's name, the resources asked for, the bounds),
    never the server's words: a verb or resource kubectl quotes is named only when it is
    one that was asked for."""
    if outcome.stopped == "redirect":
        code = outcome.exchanges.redirect
        return (
            f"the cluster answered with a redirect{f' (HTTP {code})' if code else ''} to "
            f"another host, which is not followed ({where}): point the kubeconfig at the API "
            "server itself"
        )
    if outcome.stopped == "bytes" and bounds.max_bytes is not None:
        return _too_large(outcome.exchanges.resource, resources, bounds.max_bytes, where)
    if outcome.stopped == "memory" and bounds.max_memory is not None:
        resource = outcome.exchanges.resource
        named = f"{resource} list" if resource in resources else "list"
        return (
            f"the cluster's {named} is larger than kubectl can read in "
            f"{bounds.max_memory // 2**20} MB of memory ({where}): "
            "CONNECTED_READ_MAX_MEMORY_MB bounds it"
        )
    if outcome.stopped == "time":
        return f"the cluster did not answer within {bounds.timeout:g} s ({where})"
    if outcome.unreachable:
        return f"the cluster could not be reached ({where})"
    return explain_failure(outcome.exchanges.text, where, resources)


def _too_large(resource: str, resources: tuple[str, ...], limit: int, where: str) -> str:
    named = f"{resource} list" if resource in resources else "list"
    return (
        f"the cluster's {named} is larger than {limit // 2**20} MB ({where}), the most one "
        "snapshot may hold (MAX_UPLOAD_MB)"
    )


def explain_failure(stderr: str, where: str, resources: tuple[str, ...]) -> str:
    """kubectl's error, as the sentence of its kind, with what the user can do."""
    text = stderr.strip()
    forbidden = _FORBIDDEN.search(text)
    if forbidden or "Forbidden" in text:
        verb, resource = forbidden.groups() if forbidden else ("list", "")
        verb = verb if verb in ("get", "list", "watch") else "list"
        resource = resource if resource in resources else "one of them"
        return (
            f"the cluster refused to {verb} {resource} ({where}): a snapshot needs get and "
            f"list on {', '.join(resources)} in every namespace; ask for a ClusterRole "
            "with those verbs"
        )
    if "Unauthorized" in text or "provide credentials" in text:
        return (
            f"the cluster refused the credentials of {where}: renew them (kubectl get pods "
            "with the same context says more)"
        )
    if any(
        s in text
        for s in ("current-context", "context was not found", "cannot locate", "does not exist")
    ):
        return (
            f"no usable kubectl context ({where}): choose one with --context, or give a "
            "kubeconfig with --kubeconfig"
        )
    if "x509:" in text or "tls: failed to verify" in text:
        return (
            f"the cluster's certificate could not be verified with the kubeconfig's "
            f"certificate authority ({where})"
        )
    if any(s in text for s in ("connection refused", "was refused", "Unable to connect")) or (
        "no such host" in text
    ):
        return f"the cluster could not be reached ({where})"
    if any(s in text for s in ("Timeout exceeded", "deadline exceeded", "i/o timeout")):
        return f"the cluster did not answer in time ({where})"
    if any(s in text for s in _NOT_JSON):
        return f"the cluster answered with something that is not Kubernetes JSON ({where})"
    if "doesn't have a resource type" in text:
        return f"the cluster does not serve it ({where})"
    return (
        f"kubectl could not read the cluster ({where}): `kubectl get pods -A` with the same "
        "context and kubeconfig says why"
    )
