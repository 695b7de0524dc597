"""Reading snapshot files: JSON (orjson) or YAML (safe loader, multi-document)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
import yaml

from .errors import InvalidInput

# A YAML file may not expand (through aliases) to more nodes than this, nor nest deeper:
# a "billion laughs" document is refused while still being scanned.
MAX_YAML_NODES = 5_000_000
MAX_DEPTH = 200

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader


def _check_yaml_events(data: bytes, source: str) -> None:
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = []  # [node count, anchor]
    total = 0
    doc = 0
    for ev in yaml.parse(data, Loader=_Loader):
        if isinstance(ev, yaml.DocumentStartEvent):
            doc += 1
        if isinstance(ev, yaml.AliasEvent):
            n = sizes.get(ev.anchor or "", 1)
        elif isinstance(ev, yaml.ScalarEvent):
            n = 1
            if ev.anchor:
                sizes[ev.anchor] = 1
        elif isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            stack.append([1, ev.anchor])
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
        else:
            continue
        total += n
        if total > MAX_YAML_NODES:
            raise InvalidInput(
                f"document {doc}: expands to more than {MAX_YAML_NODES} nodes through aliases; refused",
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


def read_documents(data: bytes, source: str) -> list[dict[str, Any]]:
    """Every object in a JSON or YAML file; v1 Lists are flattened to their items."""
    if isinstance(data, str):
        data = data.encode()
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
        _check_yaml_events(data, source)
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
