"""A small RFC 6902 applier (add, remove, replace) for the tests: the advised patches
are applied by this, not by the engine's own, before the question is asked again."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any


def apply_patch(document: Any, ops: Sequence[Mapping[str, Any]]) -> Any:
    doc = copy.deepcopy(document)
    for op in ops:
        assert op["op"] in ("add", "remove", "replace"), op
        parts = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].split("/")[1:]]
        target = doc
        for p in parts[:-1]:
            target = target[int(p)] if isinstance(target, list) else target[p]
        last = parts[-1]
        if isinstance(target, list):
            i = len(target) if last == "-" else int(last)
            if op["op"] == "add":
                target.insert(i, copy.deepcopy(op["value"]))
            elif op["op"] == "remove":
                target.pop(i)
            else:
                target[i] = copy.deepcopy(op["value"])
        elif op["op"] == "remove":
            del target[last]
        else:
            if op["op"] == "replace":
                assert last in target, f"replace of a missing member {op['path']}"
            target[last] = copy.deepcopy(op["value"])
    return doc
