"""A schedule in words: "15m" and back."""

from __future__ import annotations

import re

_UNITS = {"s": 1, "m": 60, "h": 3600}
_EVERY = re.compile(r"^\s*(\d+)\s*([smh]?)\s*$")


def parse_every(text: str) -> int:
    """Seconds of "90", "90s", "15m" or "2h"; ValueError for anything else or zero."""
    match = _EVERY.match(str(text))
    seconds = int(match.group(1)) * _UNITS[match.group(2) or "s"] if match else 0
    if seconds <= 0:
        raise ValueError(
            f'"{text}" is not a schedule: give seconds, minutes or hours (90s, 15m, 2h)'
        )
    return seconds


def format_every(seconds: int) -> str:
    """900 as "15m", 7200 as "2h", 90 as "90s"."""
    for unit in ("h", "m"):
        if seconds % _UNITS[unit] == 0:
            return f"{seconds // _UNITS[unit]}{unit}"
    return f"{seconds}s"
