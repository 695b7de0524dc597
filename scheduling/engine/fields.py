"""Reading a decoded JSON object's fields: an object, a list, a map of strings; what is
absent reads as empty, a wrong type is InvalidInput naming the field. One helper per
shape for every kind of snapshot object (objects.py, volumes/, dra/)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import InvalidInput


def mapping(raw: Any, field: str) -> Mapping[str, Any]:
    if type(raw) is dict:  # decoded JSON, nearly always: skips the ABC check's cost
        return raw
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidInput("must be an object", field=field)
    return raw


def list_of(raw: Any, field: str) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InvalidInput("must be a list", field=field)
    return raw


def str_map(raw: Any, field: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in mapping(raw, field).items():
        if not isinstance(v, str):
            raise InvalidInput(f"value of {k!r} must be a string", field=field)
        out[str(k)] = v
    return out
