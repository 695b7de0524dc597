"""Exact parsing of Kubernetes resource quantities (apimachinery resource.Quantity), and
the one way pages, charts, reports and the command line write them back.

Values are kept as exact fractions and rounded up the way ``Quantity.Value()`` and
``Quantity.MilliValue()`` round (towards +infinity), so "0.1m" of cpu is 1 millicore.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache

# Binary suffixes as powers of two, decimal ones as powers of ten (suffix.go).
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
# parseQuantityString's scanner: a sign, digits, an optional "." and digits (either part
# may be empty: ".", "5." and even "-" are zero or valid), then suffix letters, then an
# optional signed integer (the exponent of "1e3", "1E-3").
_QUANTITY = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[+-]?[0-9]*)")
_INT64_TEXT = re.compile(r"[+-]?[0-9]+")
# Quantities are capped at the int64 maximum (maxAllowed) and rounded up to 1n.
MAX_ALLOWED = Fraction(2**63 - 1)
_NANO = Fraction(1, 10**9)
# Beyond these powers of ten the exact value cannot matter: it saturates or rounds to 1n.
_MAX_POWER = 40
# A quantity with a binary suffix is read exactly up to this many significant digits (no
# real quantity has a tenth of them); a decimal one is exact at any length.
MAX_DIGITS = 64


class QuantityError(ValueError):
    pass


def _invalid(text: str) -> QuantityError:
    return QuantityError(f'invalid quantity "{_shown(text)}"')


def _interpret(suffix: str, text: str) -> tuple[int, int]:
    """suffixHandler.interpret: (base, exponent) of a suffix, binary or decimal."""
    if suffix in _BINARY:
        return 2, _BINARY[suffix]
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix]
    # An int64 has at most 19 digits: a longer exponent is out of range without reading it
    # (int() of thousands of digits is refused by Python, and slow long before that).
    if len(suffix) > 1 and suffix[0] in "eE" and _INT64_TEXT.fullmatch(suffix[1:][:22]):
        if len(suffix) > 22:
            raise _invalid(text)
        exponent = int(suffix[1:])
        if -(2**63) <= exponent < 2**63:
            return 10, exponent
    raise _invalid(text)


def _shown(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}…({len(text):,} characters)"


def _significant(digits: str, power: int) -> tuple[str, int]:
    """``digits`` * 10**power with the zeros that change nothing dropped from both ends."""
    stripped = digits.rstrip("0")
    return stripped.lstrip("0"), power + len(digits) - len(stripped)


@lru_cache(maxsize=65536)
def _parse_str(text: str) -> Fraction:
    """ParseQuantity: the exact value, capped at maxAllowed, tiny values rounded up to 1n."""
    m = _QUANTITY.fullmatch(text)
    if not text or m is None:
        raise _invalid(text)
    sign, num, denom, suffix = m.groups()
    denom = denom or ""
    base, exponent = _interpret(suffix, text)
    digits, power = _significant(num + denom, -len(denom))
    if not digits:
        return Fraction(0)
    if base == 2:
        if len(digits) + power > 19:
            value = MAX_ALLOWED  # 20 digits before the point: beyond it before any suffix
        elif len(digits) > MAX_DIGITS:
            raise QuantityError(
                f'"{_shown(text)}" has {len(digits):,} significant digits; '
                f"at most {MAX_DIGITS} are read"
            )
        else:
            value = Fraction(int(digits) << exponent) * Fraction(10) ** power
    else:
        power += exponent
        magnitude = len(digits) + power  # digits before the decimal point
        if magnitude > _MAX_POWER:
            value = MAX_ALLOWED
        elif magnitude < -_MAX_POWER:
            value = _NANO
        else:
            # Only digits down to 1n can matter: ParseQuantity rounds the rest up to 1n.
            # So however long the text, at most about 60 digits become an integer.
            keep = max(0, magnitude + 9)
            head, tail = digits[:keep], digits[keep:]
            nanos = int(head or "0") * 10 ** max(0, keep - len(head))
            if tail:
                nanos += 1
            value = nanos * _NANO
    if value < _NANO:
        value = _NANO
    elif value > MAX_ALLOWED:
        value = MAX_ALLOWED
    return -value if sign == "-" else value


def parse_quantity(raw: object) -> Fraction:
    """The exact value of a quantity given as a string or a JSON number."""
    if isinstance(raw, bool):
        raise QuantityError(f"invalid quantity {raw!r}")
    if isinstance(raw, int):
        return max(-MAX_ALLOWED, min(Fraction(raw), MAX_ALLOWED))
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError(f"invalid quantity {raw!r}: not a finite number")
        return Fraction(str(raw))
    if isinstance(raw, str):
        return _parse_str(raw.strip())
    raise QuantityError(f"invalid quantity {raw!r}")


def _ceil(value: Fraction) -> int:
    """Round away from zero, as Quantity.Value()/MilliValue() do."""
    if value < 0:
        return -_ceil(-value)
    return -((-value.numerator) // value.denominator)


def value(raw: object) -> int:
    """``Quantity.Value()``: the integer value, rounded up."""
    return _ceil(parse_quantity(raw))


def milli_value(raw: object) -> int:
    """``Quantity.MilliValue()``: the value in thousandths, rounded up."""
    return _ceil(parse_quantity(raw) * 1000)


# A cluster spells its requests with a few dozen strings ("100m", "128Mi") over and
# over: exact parsing (fractions) once per spelling, not once per container.
_RESOURCE_VALUES: dict[tuple[str, str], int] = {}
_RESOURCE_VALUES_MAX = 4096


def resource_value(name: str, raw: object) -> int:
    """The integer the scheduler keeps for a resource: millicores for cpu, else Value()."""
    if not isinstance(raw, str):
        return milli_value(raw) if name == "cpu" else value(raw)
    key = (name, raw)
    got = _RESOURCE_VALUES.get(key)
    if got is None:
        got = milli_value(raw) if name == "cpu" else value(raw)
        if len(_RESOURCE_VALUES) >= _RESOURCE_VALUES_MAX:
            _RESOURCE_VALUES.clear()
        _RESOURCE_VALUES[key] = got
    return got


# --- shown ----------------------------------------------------------------------------

# The parser's binary suffixes up to Ti, largest first: (suffix, bytes).
_SHOWN_BINARY = tuple(
    (suffix, 1 << power)
    for suffix, power in sorted(_BINARY.items(), key=lambda item: -item[1])
    if power <= _BINARY["Ti"]
)


def _is_byte_resource(resource: str) -> bool:
    return resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")


def format_quantity(amount: int | None, resource: str) -> str:
    """An amount as the scheduler keeps it (millicores for cpu, bytes, counts) written
    for people: cpu as kubectl writes it (``2``, ``250m``, ``15500m``: exact, never a
    rounded ``15.5``), bytes with a binary suffix (``512Mi``, ``1.5Gi``), counts with
    thousands separators; ``—`` for none."""
    if amount is None:
        return "—"
    n = int(amount)
    if resource == "cpu":
        return str(n // 1000) if n % 1000 == 0 else f"{n}m"
    if _is_byte_resource(resource):
        for suffix, size in _SHOWN_BINARY:
            if abs(n) >= size:
                q = n / size
                return f"{q:.0f}{suffix}" if q == int(q) else f"{q:.1f}{suffix}"
        return str(n)
    return f"{n:,}"


def size_words(requests: Mapping[str, int] | None, joiner: str = ", ") -> str:
    """A pod's size from the scheduler's requests (millicores, bytes): "2 CPU, 4Gi" in a
    page's prose, "2 CPU / 4Gi" (``joiner=" / "``) where a sentence already has commas."""
    requests = dict(requests or {})
    parts = []
    if "cpu" in requests:
        parts.append(f"{format_quantity(requests['cpu'], 'cpu')} CPU")
    if "memory" in requests:
        parts.append(format_quantity(requests["memory"], "memory"))
    return joiner.join(parts) or "no requests"
