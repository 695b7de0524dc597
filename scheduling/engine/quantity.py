"""Exact parsing of Kubernetes resource quantities (apimachinery resource.Quantity).

Values are kept as exact fractions and rounded up the way ``Quantity.Value()`` and
``Quantity.MilliValue()`` round (towards +infinity), so "0.1m" of cpu is 1 millicore.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
# sign, digits with an optional fraction, then a binary/decimal suffix or an exponent.
_QUANTITY = re.compile(r"^([+-]?)(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$")


class QuantityError(ValueError):
    pass


@lru_cache(maxsize=65536)
def _parse_str(text: str) -> Fraction:
    m = _QUANTITY.match(text)
    if m is None:
        raise QuantityError(f"invalid quantity {text!r}".replace("'", '"'))
    sign, number, suffix = m.groups()
    value = Fraction(number)
    suffix = suffix or ""
    if suffix in _BINARY:
        value *= _BINARY[suffix]
    elif suffix in _DECIMAL:
        value *= _DECIMAL[suffix]
    else:
        exponent = int(suffix[1:])
        if abs(exponent) > 1000:
            raise QuantityError(f'invalid quantity "{text}"')
        value *= Fraction(10) ** exponent
    return -value if sign == "-" else value


def parse_quantity(raw: object) -> Fraction:
    """The exact value of a quantity given as a string or a JSON number."""
    if isinstance(raw, bool):
        raise QuantityError(f"invalid quantity {raw!r}")
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
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


def resource_value(name: str, raw: object) -> int:
    """The integer the scheduler keeps for a resource: millicores for cpu, else Value()."""
    return milli_value(raw) if name == "cpu" else value(raw)
