"""Read uploaded files into scrubbed Kubernetes objects.

YAML, and any JSON the fast path refuses, goes through the engine's
``read_documents`` (safe loader, bounded aliases, Lists flattened), so the
snapshot reads files exactly as the engine does.

Large kubectl JSON dumps take a fast path: msgspec decodes only the fields a
snapshot keeps, so metadata.managedFields and the data of Secrets and
ConfigMaps are skipped inside the decoder and never become Python objects.
That keeps a 150,000-pod dump within memory. The fast path only handles input
it can read unambiguously; anything else falls back to ``read_documents``,
whose error messages are the canonical ones.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgspec
from msgspec import UNSET, Raw, UnsetType

from clusters.constants import KEPT_KINDS
from clusters.ingest.scrub import scrub_object
from scheduling.engine import InvalidInput, read_documents

# Files at least this large try the fast path.
FAST_PATH_BYTES = 1024 * 1024


class _Meta(msgspec.Struct, rename="camel", omit_defaults=True):
    name: Any = UNSET
    generate_name: Any = UNSET
    namespace: Any = UNSET
    uid: Any = UNSET
    labels: Any = UNSET
    annotations: Any = UNSET
    owner_references: Any = UNSET
    creation_timestamp: Any = UNSET
    deletion_timestamp: Any = UNSET
    deletion_grace_period_seconds: Any = UNSET
    # Decoded as an unparsed slice of the input: counted, then dropped.
    managed_fields: Raw | UnsetType = UNSET


class _Object(msgspec.Struct, rename="camel", omit_defaults=True):
    api_version: Any = UNSET
    kind: Any = UNSET
    metadata: _Meta | UnsetType = UNSET
    spec: Any = UNSET
    status: Any = UNSET
    # PriorityClass keeps its fields at the top level.
    value: Any = UNSET
    global_default: Any = UNSET
    preemption_policy: Any = UNSET
    description: Any = UNSET
    # A v1 List.
    items: list[_Object] | UnsetType = UNSET


_decoder = msgspec.json.Decoder(_Object | list[_Object])


@dataclass
class FileObjects:
    """The kept objects of one file, with where each came from in it."""

    source: str
    objects: list[dict[str, Any]] = field(default_factory=list)
    # positions[i]: the index of objects[i] among the file's items (Lists flattened).
    positions: list[int] = field(default_factory=list)


def _looks_like_json(data: bytes) -> bool:
    head = data[:64].lstrip()
    return head[:1] in (b"{", b"[")


def read_file(
    data: bytes, source: str, *, scrubbed: Counter[str], skipped: Counter[str]
) -> FileObjects:
    """The objects of one uploaded file that a snapshot keeps, scrubbed.

    Raises InvalidInput naming the file (and the document or item) when it
    cannot be read.
    """
    if not data.strip():
        raise InvalidInput("the file is empty", source=source)
    items: list[Any] | None = None
    if len(data) >= FAST_PATH_BYTES and _looks_like_json(data):
        items = _fast_json(data, scrubbed)
    if items is None:
        items = _read_documents(data, source)
    out = FileObjects(source)
    for position, obj in enumerate(items):
        if not isinstance(obj, dict):
            raise InvalidInput("must be an object", source=source, index=position)
        kind = obj.get("kind")
        if not scrub_object(obj, scrubbed):
            continue
        if kind in KEPT_KINDS:
            out.objects.append(obj)
            out.positions.append(position)
        elif isinstance(kind, str) and kind:
            skipped[kind] += 1
        else:
            raise InvalidInput("is required", source=source, index=position, field="kind")
    return out


def _read_documents(data: bytes, source: str) -> list[Any]:
    try:
        return read_documents(data, source)
    except InvalidInput:
        raise
    except RecursionError:
        raise InvalidInput("nested too deeply to read", source=source) from None
    except (ValueError, TypeError) as exc:
        raise InvalidInput(f"cannot be read: {exc}", source=source) from None


def _fast_json(data: bytes, scrubbed: Counter[str]) -> list[Any] | None:
    """Decode a kubectl JSON dump keeping only the snapshot's fields, or None to fall back."""
    try:
        decoded = _decoder.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    if isinstance(decoded, list):
        top = decoded
    elif decoded.items is not UNSET:
        top = decoded.items
    else:
        top = [decoded]
    items: list[Any] = []
    append = items.append
    to_builtins = msgspec.to_builtins
    for obj in top:
        if obj.items is not UNSET:
            return None  # nested Lists: leave them to the general reader
        meta = obj.metadata
        if meta is not UNSET and meta.managed_fields is not UNSET:
            scrubbed["managedFields"] += 1
            meta.managed_fields = UNSET
        if obj.kind in ("Secret", "ConfigMap"):
            # Their payload was never decoded; the scrubber counts and drops them.
            append({"kind": obj.kind})
            continue
        append(to_builtins(obj))
    return items
