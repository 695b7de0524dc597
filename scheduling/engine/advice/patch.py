"""RFC 6902 JSON Patch: the ops that turn one submitted object into its changed copy
(``diff``), and those ops applied (``apply``). Every re-run of a patched question runs
the object ``apply`` makes from the advertised patch, so what is proven is the patch
itself, not the object it was made from.

``diff`` writes add, remove and replace only (no move, copy or test): a mapping is
compared key by key, a list of the same length item by item, anything else that
differs is replaced whole. Keys are escaped as JSON Pointer says ("~" as "~0", "/" as
"~1": label keys such as ``app.kubernetes.io/name`` hold a slash).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

Op = dict[str, Any]


def pointer(path: Sequence[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _tokens(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise ValueError(f"a JSON Pointer starts with '/': {path!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def diff(old: Any, new: Any, path: tuple[str | int, ...] = ()) -> list[Op]:
    """The ops that turn ``old`` into ``new``."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        ops: list[Op] = []
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": pointer((*path, key))})
        for key, value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": pointer((*path, key)), "value": value})
            else:
                ops.extend(diff(old[key], value, (*path, key)))
        return ops
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            op
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for op in diff(a, b, (*path, i))
        ]
    if type(old) is type(new) and old == new:
        return []
    return [{"op": "replace", "path": pointer(path), "value": new}]


def apply(document: Any, ops: Sequence[Mapping[str, Any]]) -> Any:
    """``document`` with ``ops`` applied (add, remove, replace), a new object."""
    doc = copy.deepcopy(document)
    for op in ops:
        tokens = _tokens(str(op["path"]))
        if not tokens:
            if op["op"] == "remove":
                raise ValueError("cannot remove the whole document")
            doc = copy.deepcopy(op["value"])
            continue
        parent = doc
        for t in tokens[:-1]:
            parent = parent[int(t)] if isinstance(parent, list) else parent[t]
        last = tokens[-1]
        kind = op["op"]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if kind == "add":
                parent.insert(index, copy.deepcopy(op["value"]))
            elif kind == "remove":
                del parent[index]
            elif kind == "replace":
                parent[index] = copy.deepcopy(op["value"])
            else:
                raise ValueError(f"unsupported op {kind!r}")
        else:
            if kind in ("add", "replace"):
                if kind == "replace" and last not in parent:
                    raise KeyError(op["path"])
                parent[last] = copy.deepcopy(op["value"])
            elif kind == "remove":
                del parent[last]
            else:
                raise ValueError(f"unsupported op {kind!r}")
    return doc
