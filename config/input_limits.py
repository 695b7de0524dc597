"""What no stored value may hold: the limits every input path checks before the database.

PostgreSQL refuses a NUL character in text and in jsonb, JSON holds no NaN or
infinity (YAML does), the engine and the browse columns hold 64-bit integers,
and a structure nested thousands deep overflows Python's recursion when it is
encoded again. Kubernetes itself never
writes any of these, so they are refused with a 400 naming where they are.
"""

from __future__ import annotations

import math
from typing import Any

# Deeper than any Kubernetes object (a pod spec is about a dozen levels deep).
MAX_DEPTH = 100
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def unstorable_value(value: Any, path: str = "") -> str | None:
    """The first thing in ``value`` (decoded JSON or YAML) that cannot be stored, as
    "<path>: <why>", or None. Iterative, so any depth is examined without recursion."""
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"{where or 'the object'}: nested more than {MAX_DEPTH} levels deep"
        if isinstance(item, str):
            if "\x00" in item:
                return f"{where or 'a value'}: contains a NUL character (\\u0000)"
        elif isinstance(item, float):
            # YAML's .nan and .inf (and 1e309, which overflows to inf): neither JSON nor
            # jsonb can hold them, and Kubernetes never writes them.
            if not math.isfinite(item):
                return f"{where or 'a value'}: {item} is not a finite number"
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if not INT64_MIN <= item <= INT64_MAX:
                return f"{where or 'a value'}: the integer {short_number(item)} is outside the 64-bit range"
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and "\x00" in key:
                    return f"{where or 'the object'}: a key contains a NUL character (\\u0000)"
                stack.append((child, f"{where}.{key}" if where else str(key), depth + 1))
        elif isinstance(item, list):
            for i, child in enumerate(item):
                stack.append((child, f"{where}[{i}]", depth + 1))
    return None


def short_number(number: int) -> str:
    text = str(number)
    return text if len(text) <= 30 else f"{text[:12]}…({len(text)} digits)"
