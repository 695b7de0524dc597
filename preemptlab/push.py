"""preemptlab push: a snapshot file uploaded to a running preemptlab over its REST API
(POST /api/snapshots/, multipart), streamed from disk; prints the snapshot's page."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

CHUNK = 1 << 20


def _name_part(boundary: str, name: str) -> bytes:
    return (
        f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n{name}\r\n'
    ).encode()


def _file_header(boundary: str, f: Path) -> bytes:
    return (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
        f'filename="{f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode()


def _end(boundary: str) -> bytes:
    return f"--{boundary}--\r\n".encode()


def _parts(boundary: str, name: str, files: list[Path]) -> Iterator[bytes]:
    yield _name_part(boundary, name)
    for f in files:
        yield _file_header(boundary, f)
        with f.open("rb") as fh:
            while chunk := fh.read(CHUNK):
                yield chunk
        yield b"\r\n"
    yield _end(boundary)


def _length(boundary: str, name: str, files: list[Path]) -> int:
    """The body's length up front, so that it streams from disk without being joined."""
    return (
        len(_name_part(boundary, name))
        + sum(len(_file_header(boundary, f)) + f.stat().st_size + 2 for f in files)
        + len(_end(boundary))
    )


def push(args: argparse.Namespace) -> int:
    if not args.token:
        print("preemptlab push: give --token (or PREEMPTLAB_TOKEN)", file=sys.stderr)
        return 2
    files = [Path(f) for f in args.files]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(f"preemptlab push: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    boundary = secrets.token_hex(16)
    name = args.name or files[0].name.split(".")[0]
    request = urllib.request.Request(
        args.server.rstrip("/") + "/api/snapshots/",
        data=_parts(boundary, name, files),
        method="POST",
        headers={
            "Authorization": f"Token {args.token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Content-Length": str(_length(boundary, name, files)),
            "Accept": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=600) as r:
            body = json.loads(r.read())
    except urllib.error.HTTPError as e:
        print(
            f"preemptlab push: {e.code} {e.read().decode(errors='replace')[:500]}", file=sys.stderr
        )
        return 2
    except urllib.error.URLError as e:
        print(f"preemptlab push: cannot reach {args.server}: {e.reason}", file=sys.stderr)
        return 2
    print(
        f"snapshot {body.get('id')} ({body.get('status')}): {body.get('page_url') or body.get('url')}"
    )
    return 0
