"""An ingest's memory is bounded by what its files expand to, counted once: a gzipped
dump padded with whitespace up to MAX_UNCOMPRESSED_MB costs the worker that much and
little more (not twice that), and one past it stops at the limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024

# Run in a process of its own (peak memory is per process), on a throwaway SQLite
# database: a real ingest of the upload, as the worker runs it.
_INGEST = """
import json, os, resource, sys
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.contrib.auth import get_user_model
from clusters import services
data = open(sys.argv[1], "rb").read()
owner = get_user_model().objects.create_user("memory")
snapshot = services.snapshot_create(
    owner=owner, name="padded", files=[services.UploadedFile("padded.json.gz", data)],
    run_async=True,
)
del data
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
snapshot = services.snapshot_ingest(snapshot=snapshot)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"status": snapshot.status, "error": snapshot.error, "grew": after - before}))
"""


def _padded_gzip(path: Path, padding: int, *, lie: bool = False) -> None:
    """A 1,000:1 gzip bomb of whitespace inside a valid, empty v1 List; one that ``lie``s
    says "100 bytes" in its trailer, so only the bounded reader can stop it."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    with path.open("wb") as out:
        out.write(deflate.compress(b'{"apiVersion": "v1", "kind": "List", "items": ['))
        for _ in range(padding // MiB):
            out.write(deflate.compress(b" " * MiB))
        tail = deflate.compress(b"]}") + deflate.flush()
        out.write(tail[:-4] + ((100).to_bytes(4, "little") if lie else tail[-4:]))


def _ingest(path: Path, tmp_path: Path, limit_mib: int) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TEST_DB_NAME")}
    env |= {
        "DEBUG": "1",
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "PREEMPTLAB_VAR_DIR": str(tmp_path / "var"),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "MAX_UNCOMPRESSED_MB": str(limit_mib),
    }
    done = subprocess.run(
        [sys.executable, "-c", _INGEST, str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_whitespace_bomb_under_the_limit_costs_its_expanded_size_once(tmp_path: Path) -> None:
    bomb = tmp_path / "padded.json.gz"
    _padded_gzip(bomb, 256 * MiB)
    assert bomb.stat().st_size < MiB  # 256 KB that a worker expands to 256 MiB
    result = _ingest(bomb, tmp_path, limit_mib=300)
    assert result["status"] == "failed" and "no Node and no Pod" in str(result["error"])
    grew = int(str(result["grew"]))
    # The expanded bytes once, and the ingest's own few MiB; a copy of them would be 512.
    assert grew < 256 * MiB + 48 * MiB, f"{grew / MiB:.0f} MiB"


def test_a_whitespace_bomb_past_the_limit_stops_there(tmp_path: Path) -> None:
    bomb = tmp_path / "padded.json.gz"
    _padded_gzip(bomb, 256 * MiB, lie=True)
    result = _ingest(bomb, tmp_path, limit_mib=64)
    assert result["status"] == "failed"
    assert "expands to more than 67,108,864 bytes uncompressed" in str(result["error"])
    assert int(str(result["grew"])) < 64 * MiB + 48 * MiB
