"""Finished analyses rendered once per process: the API's bytes, keyed by an ETag.

A finished analysis never changes (a retry gives it a new ``finished_at``), so
its JSON, hundreds of KB for a 2,000-node result, is built once and served from
memory on every later poll; a client that sends If-None-Match gets a 304 without
the body. Bounded by bytes, least recently used first out; each web process
keeps its own.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from scheduling.models import Analysis

# Total bytes one process keeps (about 60 finished 2,000-node results).
CAPACITY_BYTES = 64 * 1024 * 1024

_lock = threading.Lock()
_entries: OrderedDict[str, bytes] = OrderedDict()
_size = 0


def analysis_etag(analysis: Analysis, variant: str) -> str:
    """A strong validator of the analysis as served in ``variant`` (view, host)."""
    # created too: SQLite may give a deleted row's id to a new one.
    finished = analysis.finished_at.isoformat() if analysis.finished_at else ""
    raw = (
        f"{analysis.pk}|{analysis.created.isoformat()}|{analysis.status}|{finished}|"
        f"{analysis.engine_version}|{variant}"
    )
    return '"' + hashlib.blake2b(raw.encode(), digest_size=12).hexdigest() + '"'


def rendered_get(etag: str) -> bytes | None:
    with _lock:
        body = _entries.get(etag)
        if body is not None:
            _entries.move_to_end(etag)
        return body


def rendered_put(etag: str, body: bytes) -> None:
    global _size
    if len(body) > CAPACITY_BYTES // 4:
        return
    with _lock:
        if etag in _entries:
            return
        _entries[etag] = body
        _size += len(body)
        while _size > CAPACITY_BYTES and _entries:
            _, old = _entries.popitem(last=False)
            _size -= len(old)


def rendered_clear() -> None:
    global _size
    with _lock:
        _entries.clear()
        _size = 0
