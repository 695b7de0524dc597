"""field.Error of k8s.io/apimachinery: a path and a body worded as kube-scheduler's."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if v is None:
        return "null"
    return json.dumps(v, sort_keys=True)


def invalid(path: str, value: Any, detail: str) -> str:
    return f"{path}: Invalid value: {_value(value)}: {detail}"


def required(path: str, detail: str = "") -> str:
    return f"{path}: Required value" + (f": {detail}" if detail else "")


def forbidden(path: str, detail: str) -> str:
    return f"{path}: Forbidden: {detail}"


def duplicate(path: str, value: Any) -> str:
    return f"{path}: Duplicate value: {_value(value)}"


def not_supported(path: str, value: Any, supported: Iterable[str]) -> str:
    values = ", ".join(json.dumps(s) for s in supported)
    return f"{path}: Unsupported value: {_value(value)}: supported values: {values}"
