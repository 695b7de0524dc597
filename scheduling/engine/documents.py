"""Reading snapshot files: JSON (orjson) or YAML (safe loader, multi-document), gzipped or not."""

from __future__ import annotations

import io
import zlib
from collections.abc import Mapping
from typing import Any

import orjson
import yaml

from .errors import InvalidInput

# A YAML file may not nest deeper than this, nor expand through aliases beyond
# ALIAS_EXPANSION times its own size (ALIAS_FLOOR_BYTES at least) or the caller's limit:
# a "billion laughs" document, or one alias of a large string repeated, is refused while
# still being scanned, before any of it is built. kubectl never writes an alias, and a
# hand-written manifest reuses a few small blocks, far below the bound.
MAX_DEPTH = 200
ALIAS_EXPANSION = 10
ALIAS_FLOOR_BYTES = 1024 * 1024
# Each node counts its text and this much more (the quotes, comma or colon of its JSON).
_NODE_OVERHEAD = 2

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader


GZIP_MAGIC = b"\x1f\x8b"
# What a gzip file may expand to when the caller states no limit (the command line).
DEFAULT_GZIP_MAX_BYTES = 4 * 1024**3
# How much one step of gunzip inflates: the most held twice at any moment.
GUNZIP_STEP_BYTES = 16 * 1024 * 1024


def is_gzip(data: bytes | memoryview) -> bool:
    return bytes(data[:2]) == GZIP_MAGIC


def gunzip(data: bytes | memoryview, source: str, *, max_bytes: int) -> bytes:
    """The contents of a gzip file (several members included), stopping as soon as they
    pass ``max_bytes``: a gzip bomb costs at most that much, never a full disk.

    Read through a bounded reader: at most GUNZIP_STEP_BYTES are inflated at a time into
    one growing buffer whose bytes are returned without a copy, so the peak is the
    expanded size once (a bomb of whitespace padding up to the limit included), not
    twice."""
    out = io.BytesIO()
    pending: bytes | memoryview = data
    inflater = zlib.decompressobj(wbits=31)
    try:
        while True:
            asked = min(GUNZIP_STEP_BYTES, max_bytes - out.tell() + 1)
            piece = inflater.decompress(pending, asked)
            out.write(piece)
            if out.tell() > max_bytes:
                raise InvalidInput(
                    f"expands to more than {max_bytes:,} bytes uncompressed (the limit); "
                    "refused. Upload it uncompressed, or split it by namespace.",
                    source=source,
                )
            pending = inflater.unconsumed_tail
            if pending or (len(piece) == asked and not inflater.eof):
                continue  # more input, or output the step left inside the inflater
            if inflater.eof and inflater.unused_data.strip(b"\x00"):
                pending = inflater.unused_data  # the next member of a concatenated file
                inflater = zlib.decompressobj(wbits=31)
                continue
            break
    except zlib.error as e:
        raise InvalidInput(f"is not a readable gzip file ({e})", source=source) from None
    if not inflater.eof:
        raise InvalidInput("is a gzip file cut short (it ends mid-stream)", source=source)
    # A BytesIO's getvalue() hands over its own buffer (no copy) once nothing else views it.
    return out.getvalue()


def expansion_limit(size: int, max_bytes: int | None) -> int:
    """How large a YAML file of ``size`` bytes may become once its aliases are expanded."""
    bound = max(ALIAS_EXPANSION * size, ALIAS_FLOOR_BYTES)
    return bound if max_bytes is None else min(bound, max_bytes)


def _check_yaml_events(data: bytes, source: str, limit: int) -> None:
    """Walks the parser's events (no objects built) adding up what each node, and each
    alias of one, becomes; InvalidInput as soon as the sum passes ``limit``."""
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = []  # [expanded bytes so far, anchor]
    total = 0
    doc = 0
    for ev in yaml.parse(data, Loader=_Loader):
        if isinstance(ev, yaml.DocumentStartEvent):
            doc += 1
        if isinstance(ev, yaml.AliasEvent):
            n = sizes.get(ev.anchor or "", _NODE_OVERHEAD)
        elif isinstance(ev, yaml.ScalarEvent):
            n = len(ev.value) + _NODE_OVERHEAD
            if ev.anchor:
                sizes[ev.anchor] = n
        elif isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            stack.append([_NODE_OVERHEAD, ev.anchor])
            total += _NODE_OVERHEAD
            if len(stack) > MAX_DEPTH:
                line = ev.start_mark.line + 1 if ev.start_mark else "?"
                raise InvalidInput(
                    f"document {doc}: nesting deeper than {MAX_DEPTH} levels (line {line})",
                    source=source,
                )
            continue
        elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            n, anchor = stack.pop()
            if anchor:
                sizes[anchor] = n
            if stack:
                stack[-1][0] += n
            continue  # its nodes were counted in the total one by one
        else:
            continue
        total += n
        if total > limit:
            raise InvalidInput(
                f"document {doc}: its aliases (*name) expand it to more than {limit:,} bytes "
                f"(at most {ALIAS_EXPANSION} times the file's size, {ALIAS_FLOOR_BYTES:,} "
                "bytes at least, within the upload limit); refused. Write the repeated "
                "parts out, or upload JSON.",
                source=source,
            )
        if stack:
            stack[-1][0] += n


def _flatten(doc: Any, out: list[dict[str, Any]], source: str, where: str) -> None:
    if doc is None:
        return
    if isinstance(doc, list):
        for i, item in enumerate(doc):
            _flatten(item, out, source, f"{where}[{i}]")
        return
    if not isinstance(doc, Mapping):
        raise InvalidInput(f"{where}: expected an object, got {type(doc).__name__}", source=source)
    kind = doc.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(doc.get("items"), list):
        for i, item in enumerate(doc["items"]):
            _flatten(item, out, source, f"{where} items[{i}]")
        return
    out.append(dict(doc))


def read_documents(
    data: bytes, source: str, *, max_bytes: int | None = None
) -> list[dict[str, Any]]:
    """Every object in a JSON or YAML file, gzipped or not; v1 Lists are flattened to
    their items.

    ``max_bytes`` bounds what YAML aliases may expand the file to, and what a gzip file
    may expand to (the caller's own size limit), on top of the bounds stated above."""
    if isinstance(data, str):
        data = data.encode()
    if is_gzip(data):
        data = gunzip(data, source, max_bytes=max_bytes or DEFAULT_GZIP_MAX_BYTES)
    stripped = data.lstrip()
    out: list[dict[str, Any]] = []
    if stripped[:1] in (b"{", b"["):
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError as e:
            raise InvalidInput(f"invalid JSON: {e}", source=source) from None
        _flatten(doc, out, source, "document 1")
        return out
    try:
        _check_yaml_events(data, source, expansion_limit(len(data), max_bytes))
        docs = list(yaml.load_all(data, Loader=_Loader))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise InvalidInput(f"invalid YAML{line}: {e.problem or e.context}", source=source) from None
    except yaml.YAMLError as e:
        raise InvalidInput(f"invalid YAML: {e}", source=source) from None
    except RecursionError:
        raise InvalidInput("nesting too deep", source=source) from None
    for i, doc in enumerate(docs):
        _flatten(doc, out, source, f"document {i + 1}")
    return out
