"""The worker's liveness probe: ``python -m operations.alive [FILE] [SECONDS]`` exits 0
when FILE (PREEMPTLAB_HEARTBEAT_FILE) was touched within SECONDS, else 1 with why.

The heartbeat thread of the worker's main process touches it every
PREEMPTLAB_HEARTBEAT_SECONDS whatever the database and the broker do: a worker whose
process is alive stays alive through their outages (it reconnects on its own), and a
wedged or dead one is restarted. No Django here: the probe starts in milliseconds.
"""

from __future__ import annotations

import os
import sys
import time

DEFAULT_FILE = "/tmp/preemptlab-worker-alive"
DEFAULT_SECONDS = 120.0


def alive(path: str, seconds: float, now: float | None = None) -> tuple[bool, str]:
    try:
        age = (time.time() if now is None else now) - os.stat(path).st_mtime
    except OSError:
        return False, f"{path}: no heartbeat yet (the worker has not started, or cannot write)"
    if age > seconds:
        return False, f"{path}: last heartbeat {age:.0f} s ago, over {seconds:g} s"
    return True, f"heartbeat {age:.0f} s ago"


def main(argv: list[str]) -> int:
    path = argv[1] if len(argv) > 1 else os.environ.get("PREEMPTLAB_HEARTBEAT_FILE", DEFAULT_FILE)
    seconds = float(argv[2]) if len(argv) > 2 else DEFAULT_SECONDS
    ok, said = alive(path, seconds)
    print(said, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
