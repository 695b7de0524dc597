"""The scrubbed objects kept as compressed JSON chunks, so that "clone this pod" decodes
one chunk, not the snapshot."""

from __future__ import annotations

import functools
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import orjson

from clusters.constants import OBJECTS_PER_CHUNK
from clusters.ingest.located import offset_of
from clusters.ingest.reading import FileObjects, refuse_unstorable_object


@functools.cache
def _executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="snapshot-compress")


def raw_chunks(
    objects: list[dict[str, Any]], parts: list[FileObjects], origins: list[int]
) -> list[bytes]:
    """The scrubbed objects as JSON, OBJECTS_PER_CHUNK to a chunk."""
    try:
        return [
            orjson.dumps(objects[i : i + OBJECTS_PER_CHUNK])
            for i in range(0, len(objects), OBJECTS_PER_CHUNK)
        ]
    except orjson.JSONEncodeError:
        # An integer beyond 64 bits (the only value orjson refuses here): say where.
        for i, obj in enumerate(objects):
            refuse_unstorable_object(
                obj, parts[origins[i]].source, i - offset_of(parts, origins[i])
            )
        raise


def compress_chunks(raws: list[bytes]) -> list[bytes]:
    """Each chunk compressed, freeing its JSON as soon as it is."""
    out = []
    for i, raw in enumerate(raws):
        out.append(zlib.compress(raw, 1))
        raws[i] = b""
    return out


def compress_in_background(raws: list[bytes]) -> Future[list[bytes]]:
    """The chunks compressed on a thread: zlib releases the GIL, so this runs on the
    second core while the ingest stores the rows. ``raws`` is emptied as it goes."""
    return _executor().submit(compress_chunks, raws)
